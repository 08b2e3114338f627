"""A PostgreSQL server of the tests' own, as bindings/cli/tests/serve_common/postgres.rs starts
one for the Rust tests: Debian's `postgresql` binaries, a temporary data directory owned by the
unprivileged `postgres` user when running as root (postgres refuses root), listening only on
127.0.0.1 at a free port, with a password (scram-sha-256). `stop()` stops it and removes the
directory."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

USER = "toolwire"
PASSWORD = "pw-py-4Wd8-never-printed"


def _bin():
    """The newest installed server's binaries (`/usr/lib/postgresql/N/bin`, Debian's layout)."""
    base = pathlib.Path("/usr/lib/postgresql")
    versions = sorted(int(p.name) for p in base.iterdir() if p.name.isdigit()
                      and (p / "bin/postgres").exists()) if base.is_dir() else []
    if not versions:
        raise RuntimeError(
            "PostgreSQL is not installed; .ci/run installs the Debian package postgresql")
    return base / str(versions[-1]) / "bin"


ROOT = os.geteuid() == 0


def _as_postgres(program, *args):
    """The command running `program args…` as the `postgres` user when running as root."""
    cmd = [str(program), *map(str, args)]
    if ROOT:
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--", *cmd]
    return cmd


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self):
        self.bin = _bin()
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="toolwire-py-pg-"))
        (self.dir / "pw").write_text(PASSWORD)
        if ROOT:
            subprocess.run(["chown", "-R", "postgres:postgres", str(self.dir)], check=True)
        subprocess.run(_as_postgres(self.bin / "initdb", "-D", self.dir / "data", "-U", USER,
                                    "--auth=scram-sha-256", "-E", "UTF8", "--no-sync",
                                    f"--pwfile={self.dir / 'pw'}"),
                       check=True, capture_output=True)
        self.port = _free_port()
        self.proc = subprocess.Popen(
            _as_postgres(self.bin / "postgres", "-D", self.dir / "data", "-h", "127.0.0.1",
                         "-p", self.port, "-k", self.dir, "-c", "fsync=off",
                         "-c", "max_connections=50"),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.monotonic()
        while subprocess.run([self.bin / "pg_isready", "-h", "127.0.0.1", "-p", str(self.port),
                              "-q"]).returncode != 0:
            if self.proc.poll() is not None or time.monotonic() - started > 30:
                self.stop()
                raise RuntimeError("postgres did not start")
            time.sleep(0.05)
        self.url = f"postgres://{USER}:{PASSWORD}@127.0.0.1:{self.port}/postgres"

    def sql(self, text):
        """Runs SQL (from a file: the text may be large) through psql; its stdout."""
        f = self.dir / "script.sql"
        f.write_text(text)
        return subprocess.run(
            [self.bin / "psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER,
             "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qAt", "-f", f],
            env={**os.environ, "PGPASSWORD": PASSWORD}, check=True, capture_output=True,
            text=True).stdout

    def stop(self):
        """Fast shutdown (connections closed), then the directory removed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
