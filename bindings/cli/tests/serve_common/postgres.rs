//! A PostgreSQL server of the tests' own: Debian's `postgresql` binaries, a temporary data
//! directory owned by the unprivileged `postgres` user (postgres refuses to run as root),
//! listening only on 127.0.0.1 at a free port, with a password (scram-sha-256). Stopped and
//! removed on drop.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The newest installed server's binaries (`/usr/lib/postgresql/N/bin`, Debian's layout).
fn bin() -> String {
    let mut versions: Vec<u32> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    versions.sort_unstable();
    let v = versions
        .iter()
        .rev()
        .find(|v| Path::new(&format!("/usr/lib/postgresql/{v}/bin/postgres")).exists());
    let Some(v) = v else {
        panic!("PostgreSQL is not installed; .ci/run installs the Debian package postgresql")
    };
    format!("/usr/lib/postgresql/{v}/bin")
}
pub const USER: &str = "toolwire";
pub const PASSWORD: &str = "pw-9f3Kq7-never-printed";

pub struct Postgres {
    pub port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// `program args…` as the `postgres` user when running as root.
fn as_postgres(program: &str) -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=postgres",
            "--regid=postgres",
            "--clear-groups",
            "--",
            program,
        ]);
        c
    } else {
        Command::new(program)
    }
}

fn chown_postgres(p: &Path) {
    if is_root() {
        let ok = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(p)
            .status()
            .unwrap()
            .success();
        assert!(ok, "chown {}", p.display());
    }
}

impl Postgres {
    /// initdb, then start.
    pub fn start() -> Postgres {
        let dir = std::env::temp_dir().join(format!(
            "toolwire-pg-{}-{}",
            std::process::id(),
            super::COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(dir.join("sock")).unwrap();
        std::fs::write(dir.join("pw"), PASSWORD).unwrap();
        chown_postgres(&dir);
        let out = as_postgres(&format!("{}/initdb", bin()))
            .arg("-D")
            .arg(dir.join("data"))
            .args([
                "-U",
                USER,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", dir.join("pw").display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut pg = Postgres {
            port,
            dir,
            child: None,
        };
        pg.resume();
        pg
    }

    /// Starts the server on its data directory and waits until it accepts connections.
    pub fn resume(&mut self) {
        let child = as_postgres(&format!("{}/postgres", bin()))
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .arg("-k")
            .arg(self.dir.join("sock"))
            // Messages in English whatever the machine's locale: a connection whose statement
            // is cancelled is kept only when PostgreSQL says so in English.
            .args(["-c", "fsync=off", "-c", "max_connections=50"])
            .args(["-c", "lc_messages=C"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let start = Instant::now();
        loop {
            let ok = Command::new(format!("{}/pg_isready", bin()))
                .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-q"])
                .status()
                .unwrap()
                .success();
            if ok {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "postgres did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server (fast shutdown: connections are closed) and waits for it.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            super::stop_child(&mut c, "INT", Duration::from_secs(20));
        }
    }

    /// The URL of database `postgres` with the password in it.
    pub fn url(&self) -> String {
        url_at(self.port)
    }

    /// The URL without the password (given by `PGPASSWORD`).
    pub fn url_without_password(&self) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/postgres", self.port)
    }

    /// Runs SQL through psql; its stdout.
    pub fn sql(&self, sql: &str) -> String {
        let out = Command::new(format!("{}/psql", bin()))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER])
            .args(["-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql])
            .env("PGPASSWORD", PASSWORD)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "psql: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A TCP relay on 127.0.0.1 to a database that can sever the connections it carries, as a
/// database restarted while a client's connections sat idle does, before the client has
/// noticed: after [`sever`](Self::sever), a connection made before it is closed, unforwarded,
/// the moment its client sends anything. Connections made after it are relayed as usual.
pub struct Relay {
    pub port: u16,
    severed: Arc<AtomicU64>,
}

impl Relay {
    /// Relays 127.0.0.1:`port` from a free port until the test process ends.
    pub fn to(port: u16) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = Relay {
            port: listener.local_addr().unwrap().port(),
            severed: Arc::new(AtomicU64::new(0)),
        };
        let severed = relay.severed.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let (Ok(client), Ok(server)) = (client, TcpStream::connect(("127.0.0.1", port)))
                else {
                    continue;
                };
                let born = severed.load(Ordering::SeqCst);
                let severed = severed.clone();
                let (mut from_client, mut to_client) = (client.try_clone().unwrap(), client);
                let (mut from_server, mut to_server) = (server.try_clone().unwrap(), server);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from_server, &mut to_client);
                    let _ = to_client.shutdown(Shutdown::Both);
                });
                std::thread::spawn(move || {
                    let mut buf = [0u8; 8192];
                    while let Ok(n @ 1..) = from_client.read(&mut buf) {
                        if severed.load(Ordering::SeqCst) != born
                            || to_server.write_all(&buf[..n]).is_err()
                        {
                            break;
                        }
                    }
                    let _ = from_client.shutdown(Shutdown::Both);
                    let _ = to_server.shutdown(Shutdown::Both);
                });
            }
        });
        relay
    }

    /// Severs every connection relayed so far.
    pub fn sever(&self) {
        self.severed.fetch_add(1, Ordering::SeqCst);
    }

    /// The URL of database `postgres` through the relay, with the password in it.
    pub fn url(&self) -> String {
        url_at(self.port)
    }
}

/// The URL of database `postgres` at 127.0.0.1:`port`, with the password in it.
fn url_at(port: u16) -> String {
    format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/postgres")
}
