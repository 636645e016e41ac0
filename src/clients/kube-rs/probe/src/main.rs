//! kube-rs-probe: the `kube` crate (kube-rs) as a client of an exec
//! credential plugin, for credprov's client matrix (src/clients/kube-rs/).
//!
//! It reads the kubeconfig as a user's program does (`Kubeconfig::read_from`,
//! `Config::from_custom_kubeconfig`), builds one `kube::Client` on the first
//! request (kube-rs runs the plugin while it builds the client, so a plugin
//! failure is that request's error, and a later request builds it again),
//! then answers requests read from stdin, one JSON line each, until stdin
//! closes:
//!
//!   in:  {"path":"/version"}
//!   out: {"status":200} or {"error":"…"}
//!
//! The client lives as long as the process, so its credential cache carries
//! over between requests, as in a long-running controller. The plugin's
//! stderr (inherited in interactive mode) goes to this process's stderr.
//!
//! With --terminal the probe gives itself a pseudo-terminal as stdin before
//! the client runs any plugin, and keeps reading requests from the original
//! stdin.
use std::io::{BufRead, BufReader, Write};
use std::os::fd::FromRawFd;

use kube::client::Body;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned());
    let Some(kubeconfig) = flag("--kubeconfig") else { fatal("--kubeconfig is required".into()) };
    let context = flag("--context");
    let terminal = args.iter().any(|a| a == "--terminal");

    let protocol_in: Box<dyn std::io::Read> = if terminal {
        match attach_terminal() {
            Ok(f) => Box::new(f),
            Err(e) => fatal(format!("cannot give the client a terminal: {e}")),
        }
    } else {
        Box::new(std::io::stdin())
    };

    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(r) => r,
        Err(e) => fatal(format!("starting the tokio runtime: {e}")),
    };
    let config = match Kubeconfig::read_from(&kubeconfig) {
        Ok(k) => k,
        Err(e) => fatal(format!("loading {kubeconfig}: {e}")),
    };
    let options = KubeConfigOptions { context, cluster: None, user: None };

    answer(&serde_json::json!({"ready": "kube-rs", "version": kube_version()}));
    let mut client: Option<Client> = None;
    for line in BufReader::new(protocol_in).lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let path = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(v) => match v.get("path").and_then(|p| p.as_str()) {
                Some(p) => p.to_string(),
                None => {
                    answer(&serde_json::json!({"error": "kube-rs-probe: bad request line: no path"}));
                    continue;
                }
            },
            Err(e) => {
                answer(&serde_json::json!({"error": format!("kube-rs-probe: bad request line: {e}")}));
                continue;
            }
        };
        let out = runtime.block_on(async {
            if client.is_none() {
                // As a user's program does: Config from the kubeconfig, then Client::try_from (this runs the plugin).
                let built = match Config::from_custom_kubeconfig(config.clone(), &options).await {
                    Ok(c) => Client::try_from(c).map_err(|e| format!("building the client: {e}")),
                    Err(e) => Err(format!("loading the kubeconfig: {e}")),
                };
                match built {
                    Ok(c) => client = Some(c),
                    Err(e) => return serde_json::json!({"error": e}),
                }
            }
            get(client.as_ref().unwrap(), &path).await
        });
        answer(&out);
    }
}

/// One GET through the client's own stack (auth layer included); the status the server gave, or the client's error.
async fn get(client: &Client, path: &str) -> serde_json::Value {
    let request = match http::Request::get(path).body(Body::empty()) {
        Ok(r) => r,
        Err(e) => return serde_json::json!({"error": format!("kube-rs-probe: bad path: {e}")}),
    };
    match client.send(request).await {
        Ok(response) => serde_json::json!({"status": response.status().as_u16()}),
        Err(kube::Error::Api(status)) => serde_json::json!({"status": status.code, "error": status.message}),
        Err(e) => serde_json::json!({"error": error_chain(&e)}),
    }
}

/// The error and its sources, as one line: kube's own Display names only the outermost.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// The one kube version Cargo.toml pins (=5.0.0); the caller checks the ready line against it.
fn kube_version() -> &'static str {
    "5.0.0"
}

fn answer(v: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

// The pseudo-terminal's controlling side: kept open for the life of the process, or the terminal hangs up.
static mut PTY_MASTER: i32 = -1;

/// Opens a pseudo-terminal, makes its terminal side fd 0, and returns the original stdin.
fn attach_terminal() -> std::io::Result<std::fs::File> {
    unsafe {
        let saved = libc::dup(0);
        if saved < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        if master < 0 || libc::grantpt(master) != 0 || libc::unlockpt(master) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let name = libc::ptsname(master);
        if name.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        let tty = libc::open(name, libc::O_RDWR | libc::O_NOCTTY);
        if tty < 0 || libc::dup2(tty, 0) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::close(tty);
        PTY_MASTER = master;
        Ok(std::fs::File::from_raw_fd(saved))
    }
}

fn fatal(msg: String) -> ! {
    answer(&serde_json::json!({"fatal": msg}));
    eprintln!("kube-rs-probe: {msg}");
    std::process::exit(2);
}
