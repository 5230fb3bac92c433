//! The throwaway PostgreSQL cluster of one run of the test binary, started by the first test
//! that needs it, with a fresh database for each test.
//!
//! `initdb` and `pg_ctl` come from Debian's `postgresql` (the newest under
//! /usr/lib/postgresql, else the PATH), run as the postgres user when we are root (PostgreSQL
//! refuses to run as root), in a temporary folder that user owns, with fsync off: nothing here
//! outlives the run. A test binary ends without dropping its statics, so the cluster is
//! stopped by a guard: a shell in a process group of its own that waits for its stdin to close
//! (when this process ends, however it ends), then stops the cluster and removes the folder.
//! Whatever is left behind (the guard killed too) has `gokata-contract-pg-` in its command
//! line, for `pkill -f`.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use tokio_postgres::NoTls;

/// The cluster's folder in the temporary folder: this and our pid.
const FOLDER_PREFIX: &str = "gokata-contract-pg-";

struct Cluster {
    port: u16,
    /// Held for its stdin, which closes when this process ends.
    _guard: Child,
    databases: AtomicUsize,
}

static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();

/// The address of a new empty database on the run's cluster (started now if need be). Panics
/// saying what to install if PostgreSQL is not there: the PostgreSQL half of the contract must
/// not pass without it.
pub(crate) async fn fresh_database() -> String {
    let cluster = match CLUSTER.get_or_init(Cluster::start) {
        Ok(cluster) => cluster,
        Err(error) => panic!("no throwaway PostgreSQL for the store's contract tests: {error}"),
    };
    let admin = format!("postgresql://postgres@127.0.0.1:{}/postgres", cluster.port);
    let (client, connection) = tokio_postgres::connect(&admin, NoTls)
        .await
        .unwrap_or_else(|error| panic!("cannot connect to the throwaway PostgreSQL at {admin}: {error}"));
    tokio::spawn(connection);
    let name = format!("contract_{}", cluster.databases.fetch_add(1, Ordering::Relaxed));
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap_or_else(|error| panic!("CREATE DATABASE {name}: {error}"));
    format!("postgresql://postgres@127.0.0.1:{}/{name}", cluster.port)
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let tools = Tools::find()?;
        let folder = std::env::temp_dir().join(format!("{FOLDER_PREFIX}{}", std::process::id()));
        // A folder of an earlier run of this pid (pids are reused) is long dead.
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(folder.join("sockets"))
            .map_err(|e| format!("cannot make {}: {e}", folder.display()))?;
        let guard = start_guard(&tools, &folder)?;
        if tools.as_postgres {
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&folder))?;
        }
        let path = |name: &str| folder.join(name).to_string_lossy().into_owned();
        let (data, log) = (path("data"), path("postgres.log"));
        tools.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        )?;
        let port = free_port()?;
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
            path("sockets")
        );
        tools
            .run(
                "pg_ctl",
                &["-D", &data, "-l", &log, "-w", "-t", "30", "-o", &options, "start"],
            )
            .map_err(|e| format!("{e}\n{}", log_tail(&folder)))?;
        Ok(Cluster {
            port,
            _guard: guard,
            databases: AtomicUsize::new(0),
        })
    }
}

/// The guard of the cluster in `folder`: stops it and removes the folder once our end of its
/// stdin closes. In a process group of its own, so that an interrupt from the terminal, which
/// ends the tests, leaves it to clean up.
fn start_guard(tools: &Tools, folder: &Path) -> Result<Child, String> {
    const SCRIPT: &str = r#"cat > /dev/null
if [ -f "$1/data/postmaster.pid" ]; then
    if [ "$3" = as_postgres ]; then
        runuser -u postgres -- "$2" -D "$1/data" -m immediate -w -t 30 stop
    else
        "$2" -D "$1/data" -m immediate -w -t 30 stop
    fi
fi
rm -rf "$1""#;
    let pg_ctl = tools.bin.join("pg_ctl");
    Command::new("sh")
        .args(["-c", SCRIPT, "gokata-contract-pg-guard"])
        .arg(folder)
        .arg(pg_ctl)
        .arg(if tools.as_postgres {
            "as_postgres"
        } else {
            "as_self"
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the cluster's guard: {e}"))
}

fn log_tail(folder: &Path) -> String {
    let log = std::fs::read_to_string(folder.join("postgres.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// PostgreSQL's programs.
struct Tools {
    bin: PathBuf,
    /// Run as the postgres user (we are root).
    as_postgres: bool,
}

impl Tools {
    fn find() -> Result<Tools, String> {
        let newest = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let version: u32 = entry.file_name().to_str()?.parse().ok()?;
                let bin = entry.path().join("bin");
                bin.join("initdb").exists().then_some((version, bin))
            })
            .max();
        let on_path = || {
            std::env::var_os("PATH")
                .and_then(|path| std::env::split_paths(&path).find(|dir| dir.join("initdb").exists()))
        };
        let bin = newest.map(|(_, bin)| bin).or_else(on_path).ok_or(
            "PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on the \
             PATH): install Debian's postgresql package (apt-get install postgresql; scripts/test \
             installs it before the Rust tests)",
        )?;
        Ok(Tools {
            bin,
            as_postgres: is_root(),
        })
    }

    fn run(&self, tool: &str, args: &[&str]) -> Result<(), String> {
        let program = self.bin.join(tool);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        };
        command.args(args).current_dir(std::env::temp_dir());
        run(&mut command)
    }
}

fn run(command: &mut Command) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid = status
        .lines()
        .find(|line| line.starts_with("Uid:"))
        .and_then(|line| line.split_whitespace().nth(2));
    uid == Some("0")
}

fn free_port() -> Result<u16, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    probe
        .local_addr()
        .map(|address| address.port())
        .map_err(|e| format!("no free port: {e}"))
}
