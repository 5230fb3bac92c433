//! The PostgreSQL databases of the multi-process measurements: a fresh database for each, on the
//! server `DB` names or on a throwaway cluster started here (initdb and pg_ctl from Debian's
//! `postgresql`, as the postgres user when run as root, as python_tests/support/postgres_cluster.py
//! does), with fsync on: the point is to measure durable commits.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};

use gokata_server::shown_address;
use tokio_postgres::NoTls;

const START_TIMEOUT_SECONDS: &str = "30";
/// The throwaway cluster's folder in the temporary folder: this and our pid.
const FOLDER_PREFIX: &str = "gokata-load-pg-";

/// Where each measurement gets a new empty database; dropping it removes them all (and the
/// throwaway cluster).
pub struct Databases {
    /// An address to connect to for `CREATE DATABASE`.
    admin: String,
    cluster: Option<Cluster>,
    made: Vec<String>,
    version: String,
}

impl Databases {
    /// On a throwaway cluster of our own.
    pub fn throwaway() -> Result<Databases, String> {
        let cluster = Cluster::start()?;
        let admin = format!("postgresql://postgres@127.0.0.1:{}/postgres", cluster.port);
        Databases::connect(admin, Some(cluster))
    }

    /// On the server `address` names (its user may create databases).
    pub fn on(address: String) -> Result<Databases, String> {
        Databases::connect(address, None)
    }

    fn connect(admin: String, cluster: Option<Cluster>) -> Result<Databases, String> {
        let mut databases = Databases {
            admin,
            cluster,
            made: Vec::new(),
            version: String::new(),
        };
        databases.version = databases.sql("SHOW server_version")?;
        Ok(databases)
    }

    /// A new empty database's address.
    pub fn fresh(&mut self) -> Result<String, String> {
        let name = format!("gokata_load_{}_{}", std::process::id(), self.made.len());
        self.sql(&format!("CREATE DATABASE {name}"))?;
        self.made.push(name.clone());
        Ok(with_dbname(&self.admin, &name))
    }

    /// The pid of the cluster's postmaster, whose children are the database's processes; none
    /// for a server that is not ours.
    pub fn postmaster(&self) -> Option<u32> {
        self.cluster.as_ref().and_then(Cluster::postmaster)
    }

    pub fn describe(&self) -> String {
        match &self.cluster {
            Some(cluster) => format!(
                "a throwaway PostgreSQL {} cluster on 127.0.0.1:{} (fsync on, synchronous_commit \
                 on, defaults otherwise)",
                self.version, cluster.port
            ),
            None => format!("PostgreSQL {} at {}", self.version, shown_address(&self.admin)),
        }
    }

    /// Runs `sql` on the admin database; the first column of its first row, if any.
    fn sql(&self, sql: &str) -> Result<String, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime: {e}"))?;
        runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&self.admin, NoTls)
                .await
                .map_err(|e| format!("cannot connect to PostgreSQL: {e}"))?;
            tokio::spawn(connection);
            let rows = client
                .simple_query(sql)
                .await
                .map_err(|e| format!("{sql}: {e}"))?;
            let first = rows.iter().find_map(|message| match message {
                tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
                _ => None,
            });
            Ok(first.unwrap_or_default())
        })
    }
}

impl Drop for Databases {
    fn drop(&mut self) {
        if self.cluster.is_some() {
            return;
        }
        for name in std::mem::take(&mut self.made) {
            if let Err(error) = self.sql(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")) {
                eprintln!("server_load: cannot drop the database {name}: {error}");
            }
        }
    }
}

/// `address` with its database replaced: a later `dbname` wins, in a URL's parameters as in
/// the `key=value` form.
fn with_dbname(address: &str, name: &str) -> String {
    if address.contains("://") {
        let separator = if address.contains('?') { '&' } else { '?' };
        format!("{address}{separator}dbname={name}")
    } else {
        format!("{address} dbname={name}")
    }
}

/// A PostgreSQL server in a temporary folder, on a free loopback port.
struct Cluster {
    port: u16,
    tools: Tools,
    folder: PathBuf,
    /// This program with `--guard-cluster`: it removes the cluster if we end without doing so.
    guard: Option<Child>,
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let (tools, port) = (Tools::find()?, free_port()?);
        let folder = std::env::temp_dir().join(format!("{FOLDER_PREFIX}{}", std::process::id()));
        std::fs::create_dir_all(folder.join("sockets"))
            .map_err(|e| format!("cannot make {}: {e}", folder.display()))?;
        let mut cluster = Cluster {
            port,
            tools,
            folder,
            guard: None,
        };
        cluster.guard = Some(start_guard(&cluster.folder)?);
        if cluster.tools.as_postgres {
            // PostgreSQL refuses to run as root: the postgres user owns the folder.
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&cluster.folder))?;
        }
        let path = |name: &str| cluster.folder.join(name).to_string_lossy().into_owned();
        let (data, log) = (path("data"), path("postgres.log"));
        let initdb = [
            "-D",
            &data,
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        ];
        cluster.tools.run("initdb", &initdb)?;
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200",
            cluster.port,
            path("sockets")
        );
        let start = [
            "-D",
            &data,
            "-l",
            &log,
            "-w",
            "-t",
            START_TIMEOUT_SECONDS,
            "-o",
            &options,
            "start",
        ];
        cluster
            .tools
            .run("pg_ctl", &start)
            .map_err(|e| format!("{e}\n{}", log_tail(&cluster.folder)))?;
        Ok(cluster)
    }

    fn postmaster(&self) -> Option<u32> {
        let pid_file = std::fs::read_to_string(self.folder.join("data/postmaster.pid")).ok()?;
        pid_file.lines().next()?.trim().parse().ok()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        stop(&self.tools, &self.folder);
        if let Some(mut guard) = self.guard.take() {
            drop(guard.stdin.take());
            let _ = guard.wait();
        }
    }
}

/// Stops the cluster in `folder`, if it runs, and removes the folder.
fn stop(tools: &Tools, folder: &Path) {
    let data = folder.join("data");
    if data.exists() {
        let data = data.to_string_lossy();
        let stop = ["-D", &data, "-w", "-t", "30", "-m", "immediate", "stop"];
        let _ = tools.run("pg_ctl", &stop);
    }
    let _ = std::fs::remove_dir_all(folder);
}

/// Starts the guard of the cluster in `folder`, in a process group of its own, so that an
/// interrupt from the terminal does not reach it: it cleans up whenever we end.
fn start_guard(folder: &Path) -> Result<Child, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    Command::new(exe)
        .arg("--guard-cluster")
        .arg(folder)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start the cluster's guard: {e}"))
}

/// `--guard-cluster FOLDER`: waits until the benchmark ends (its end of stdin closes, however
/// it ends), then stops the cluster in FOLDER if it still runs and removes FOLDER.
pub fn guard(folder: &str) -> ExitCode {
    let folder = Path::new(folder);
    let ours = folder.file_name().and_then(|name| name.to_str());
    if !folder.is_absolute() || !ours.is_some_and(|name| name.starts_with(FOLDER_PREFIX)) {
        eprintln!(
            "server_load --guard-cluster: {} is not a cluster of ours",
            folder.display()
        );
        return ExitCode::from(2);
    }
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    match Tools::find() {
        Ok(tools) => stop(&tools, folder),
        Err(_) => {
            let _ = std::fs::remove_dir_all(folder);
        }
    }
    ExitCode::SUCCESS
}

fn log_tail(folder: &Path) -> String {
    let log = std::fs::read_to_string(folder.join("postgres.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// PostgreSQL's programs: the newest installed under /usr/lib/postgresql, or on the PATH.
#[derive(Clone)]
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
            "PostgreSQL is not installed (no initdb): install Debian's postgresql package \
             (scripts/test does), set DB to a PostgreSQL address, or PROCESSES=0 for none",
        )?;
        Ok(Tools {
            bin,
            as_postgres: effective_uid() == Some(0),
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

fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

fn free_port() -> Result<u16, String> {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    probe
        .local_addr()
        .map(|address| address.port())
        .map_err(|e| format!("no free port: {e}"))
}
