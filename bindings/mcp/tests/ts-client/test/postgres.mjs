// A PostgreSQL server of the tests' own, as bindings/cli/tests/serve_common/postgres.rs starts
// one for the Rust tests: Debian's `postgresql` binaries, a temporary data directory owned by
// the unprivileged `postgres` user when running as root (postgres refuses root), listening
// only on 127.0.0.1 at a free port, with a password (scram-sha-256). `stop()` stops it and
// removes the directory.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const USER = "toolwire";
const PASSWORD = "pw-ts-7Hq2-never-printed";

/** The newest installed server's binaries (`/usr/lib/postgresql/N/bin`, Debian's layout). */
function bin() {
  const versions = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql").map(Number).filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/postgres`))
    : [];
  if (versions.length === 0) {
    throw new Error("PostgreSQL is not installed; .ci/run installs the Debian package postgresql");
  }
  return `/usr/lib/postgresql/${Math.max(...versions)}/bin`;
}

const root = process.getuid?.() === 0;

/** `[program, args]` run as the `postgres` user when running as root. */
const asPostgres = (program, args) =>
  root ? ["setpriv", ["--reuid=postgres", "--regid=postgres", "--clear-groups", "--", program, ...args]] : [program, args];

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer();
  s.once("error", reject);
  s.listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

/** Starts a server; resolves to `{ url, sql(text), stop() }` once it accepts connections. */
export async function startPostgres() {
  const b = bin();
  const dir = mkdtempSync(join(tmpdir(), "toolwire-ts-pg-"));
  writeFileSync(join(dir, "pw"), PASSWORD);
  if (root) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  chmodSync(dir, 0o700);
  const [p, a] = asPostgres(`${b}/initdb`, [
    "-D", join(dir, "data"), "-U", USER, "--auth=scram-sha-256", "-E", "UTF8", "--no-sync",
    `--pwfile=${join(dir, "pw")}`,
  ]);
  const init = spawnSync(p, a);
  if (init.status !== 0) throw new Error(`initdb: ${init.stderr}`);
  const port = await freePort();
  const [sp, sa] = asPostgres(`${b}/postgres`, [
    "-D", join(dir, "data"), "-h", "127.0.0.1", "-p", String(port), "-k", dir,
    "-c", "fsync=off", "-c", "max_connections=50",
  ]);
  const child = spawn(sp, sa, { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const started = Date.now();
  while (spawnSync(`${b}/pg_isready`, ["-h", "127.0.0.1", "-p", String(port), "-q"]).status !== 0) {
    if (child.exitCode !== null || Date.now() - started > 30_000) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error("postgres did not start");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    /** Runs SQL (from a file: the text may be large) through psql; its stdout. */
    sql(text) {
      const f = join(dir, "script.sql");
      writeFileSync(f, text);
      return execFileSync(`${b}/psql`, [
        "-h", "127.0.0.1", "-p", String(port), "-U", USER, "-d", "postgres",
        "-v", "ON_ERROR_STOP=1", "-qAt", "-f", f,
      ], { env: { ...process.env, PGPASSWORD: PASSWORD }, encoding: "utf8" });
    },
    /** Fast shutdown (connections closed), then the directory removed. */
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
