//! The server processes: the real server (`--serve DB`), and this binary re-executed as one.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gokata_server::limits::Limits;
use gokata_server::{shown_address, Config, RunningServer};

use crate::{SERVER_START_TIMEOUT, SERVER_STOP_TIMEOUT};

/// `--serve DB [--behind-proxy]`: the real server on a free loopback port, printed on stdout; it
/// serves until stdin closes, then stops cleanly (exit 0) or says why not (exit 1). Behind a
/// proxy, it takes a client's address from `X-Forwarded-For`, as `gokata serve --behind-proxy`.
pub(crate) fn serve_game(database: String, behind_proxy: bool) -> ExitCode {
    let server = match RunningServer::start(Config {
        host: "127.0.0.1".into(),
        port: 0,
        database,
        move_time: Duration::from_secs(300),
        // Every player and watcher of the generator is on 127.0.0.1: the limits of
        // `--max-connections-per-address` and `--registrations-per-hour` raised. The API's limit
        // a second per address stays (readers come from addresses of their own, behind a proxy).
        limits: Limits {
            connections_per_address: 1_000_000,
            registrations_per_hour: 1_000_000_000,
            behind_proxy,
            ..Limits::default()
        },
        resident: None,
    }) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("server_load --serve: {error}");
            return ExitCode::from(1);
        }
    };
    println!("{}", server.address().port());
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    match server.stop() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("server_load --serve: the server stopped on an error: {error}");
            ExitCode::from(1)
        }
    }
}
/// A process's resident memory (VmRSS), in KiB.
pub(crate) fn resident_kib(pid: u32) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("cannot read /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .ok_or_else(|| format!("no VmRSS in /proc/{pid}/status"))
}

/// The running server processes by pid, which the watchdog kills if the run hangs.
pub(crate) type Children = Arc<Mutex<HashMap<u32, Child>>>;

/// A server process: this binary re-executed.
pub(crate) struct ServerProcess {
    children: Children,
    stdin: Option<ChildStdin>,
    pub(crate) port: u16,
    pub(crate) pid: u32,
}

impl ServerProcess {
    pub(crate) fn start(args: &[&str], children: &Children) -> Result<ServerProcess, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the server process: {e}"))?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped");
        children.lock().unwrap().insert(pid, child);
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let mut process = ServerProcess {
            children: children.clone(),
            stdin,
            port: 0,
            pid,
        };
        let shown: Vec<String> = args.iter().map(|arg| shown_address(arg)).collect();
        let line = receiver
            .recv_timeout(SERVER_START_TIMEOUT)
            .map_err(|_| format!("the server process {shown:?} did not say its port in time"))?;
        process.port = line
            .trim()
            .parse()
            .map_err(|_| format!("the server process {shown:?} did not start (said {line:?})"))?;
        Ok(process)
    }

    /// Closes its stdin, which stops it; it must exit cleanly in time.
    pub(crate) fn stop(mut self) -> Result<(), String> {
        drop(self.stdin.take());
        let deadline = Instant::now() + SERVER_STOP_TIMEOUT;
        loop {
            let mut children = self.children.lock().unwrap();
            let Some(child) = children.get_mut(&self.pid) else {
                return Err("the server process is gone".into());
            };
            match child.try_wait() {
                Ok(Some(status)) => {
                    children.remove(&self.pid);
                    return if status.success() {
                        Ok(())
                    } else {
                        Err(format!("the server process ended with {status}"))
                    };
                }
                Ok(None) if Instant::now() < deadline => {}
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    children.remove(&self.pid);
                    return Err("the server process did not stop in time: killed".into());
                }
            }
            drop(children);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops every one (all told at once, so they stop together); the first error, if any.
    pub(crate) fn stop_all(mut servers: Vec<ServerProcess>) -> Result<(), String> {
        for server in &mut servers {
            drop(server.stdin.take());
        }
        servers
            .into_iter()
            .map(ServerProcess::stop)
            .fold(Ok(()), Result::and)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let child = self.children.lock().unwrap().remove(&self.pid);
        if let Some(mut child) = child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
