//! nginx (the Debian package) in front of `toolwire serve --http` replicas, with the
//! repository's configuration (`bindings/mcp/deploy/nginx.conf`, its ports substituted), run
//! with its own prefix, pid and logs in a temporary directory.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{WAIT, temp_file};

const CONF: &str = include_str!("../../../mcp/deploy/nginx.conf");

pub fn nginx_binary() -> Option<PathBuf> {
    let from_env = std::env::var_os("TOOLWIRE_NGINX").map(PathBuf::from);
    let mut candidates = from_env.into_iter().chain(
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
            .into_iter()
            .map(PathBuf::from),
    );
    candidates.find(|c| c.is_file())
}

/// A free TCP port on 127.0.0.1 (bound, read, released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct Nginx {
    child: Child,
    prefix: PathBuf,
}

impl Drop for Nginx {
    /// nginx's fast stop (SIGTERM to the master: what `nginx -s stop` sends), which takes
    /// the workers down with the master; a SIGKILL of the master alone left them running,
    /// orphaned and still listening. Killed only when it does not stop in time.
    fn drop(&mut self) {
        super::stop_child(&mut self.child, "TERM", WAIT);
    }
}

impl Nginx {
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("logs/access.log")).unwrap_or_default()
    }
}

/// The shipped configuration with this test's ports in place of 8765 (replicas) and 8080.
pub fn config(replica_port: u16, port: u16) -> String {
    let mut conf = CONF.to_owned();
    for (from, to) in [
        (
            "server 127.0.0.1:8765;",
            format!("server 127.0.0.1:{replica_port};"),
        ),
        (
            "server 127.0.0.2:8765;",
            format!("server 127.0.0.2:{replica_port};"),
        ),
        (
            "Host localhost:8765;",
            format!("Host localhost:{replica_port};"),
        ),
        (
            "listen 127.0.0.1:8080;",
            format!("listen 127.0.0.1:{port};"),
        ),
    ] {
        assert_eq!(
            conf.matches(from).count(),
            1,
            "nginx.conf holds `{from}` once"
        );
        conf = conf.replace(from, &to);
    }
    conf
}

pub fn start_nginx(bin: &Path, conf: &str, port: u16) -> Nginx {
    let prefix = temp_file("placeholder", b"")
        .parent()
        .unwrap()
        .join("nginx");
    for d in ["logs", "tmp", "conf"] {
        std::fs::create_dir_all(prefix.join(d)).unwrap();
    }
    let conf_path = prefix.join("conf/nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let child = Command::new(bin)
        .arg("-p")
        .arg(&prefix)
        .arg("-c")
        .arg(&conf_path)
        .args(["-g", "daemon off; pid nginx.pid; error_log logs/error.log;"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nginx");
    let mut n = Nginx { child, prefix };
    let t0 = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(s) = n.child.try_wait().unwrap() {
            let log = std::fs::read_to_string(n.prefix.join("logs/error.log")).unwrap_or_default();
            panic!("nginx exited ({s}): {log}");
        }
        assert!(t0.elapsed() < WAIT, "nginx does not listen on {port}");
        std::thread::sleep(Duration::from_millis(20));
    }
    n
}
