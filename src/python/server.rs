//! `gokata.Server`: the game server ([`gokata_server`]) started and stopped from Python.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;

use super::arguments::whole_number;
use gokata_server::limits::Limits;
use gokata_server::resident::Resident;
use gokata_server::{shown_address, Config, RunningServer, ServerError};

/// The longest move time a server takes: a week.
const MAX_MOVE_TIME: f64 = 7.0 * 24.0 * 3600.0;

/// A game server running on background threads (the protocol: docs/protocol.md).
///
/// `Server(host="127.0.0.1", port=8080, db="gokata.sqlite3", move_time=300.0)` binds the
/// address (port 0 picks a free one), opens the database (an SQLite file, or PostgreSQL:
/// `"postgresql://USER@HOST:PORT/DBNAME"` or libpq's `"host=... dbname=..."`, where several
/// servers may share one database; not opened, nor an SQLite file made, if the address cannot
/// be bound) and serves until `stop()`; it is a
/// context manager. `bot="NAME"` adds the server's own computer player under that name. The server installs no signal handler: the caller stops it (the `gokata
/// serve` command does on Ctrl-C and SIGTERM).
#[pyclass(module = "gokata", frozen)]
pub struct Server {
    running: RunningServer,
    host: String,
    database: String,
}

#[pymethods]
impl Server {
    #[new]
    #[pyo3(
        signature = (
            host = "127.0.0.1".to_string(), port = None, db = PathBuf::from("gokata.sqlite3"), move_time = None,
            *, max_connections_per_address = None, registrations_per_hour = None,
            api_requests_per_second = None, behind_proxy = false, bot = None
        ),
        text_signature = "(host='127.0.0.1', port=8080, db='gokata.sqlite3', move_time=300.0, *, \
                          max_connections_per_address=64, registrations_per_hour=20, \
                          api_requests_per_second=20, behind_proxy=False, bot=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        host: String,
        port: Option<&Bound<'_, PyAny>>,
        db: PathBuf,
        move_time: Option<&Bound<'_, PyAny>>,
        max_connections_per_address: Option<&Bound<'_, PyAny>>,
        registrations_per_hour: Option<&Bound<'_, PyAny>>,
        api_requests_per_second: Option<&Bound<'_, PyAny>>,
        behind_proxy: bool,
        bot: Option<String>,
    ) -> PyResult<Self> {
        let defaults = Limits::default();
        let limits = Limits {
            connections_per_address: count(max_connections_per_address, "max_connections_per_address", 1)?
                .unwrap_or(defaults.connections_per_address as u32)
                as usize,
            registrations_per_hour: count(registrations_per_hour, "registrations_per_hour", 0)?
                .unwrap_or(defaults.registrations_per_hour),
            api_requests_per_second: count(api_requests_per_second, "api_requests_per_second", 1)?
                .unwrap_or(defaults.api_requests_per_second),
            behind_proxy,
        };
        let port = match port {
            None => 8080,
            Some(port) => {
                let number = whole_number(port, "port")?;
                u16::try_from(number)
                    .map_err(|_| PyValueError::new_err(format!("port must be 0 to 65535, not {number}")))?
            }
        };
        let move_time = match move_time {
            None => 300.0,
            Some(value) => seconds(value, 0.001)?,
        };
        let database = db.into_os_string().into_string().map_err(|path| {
            PyValueError::new_err(format!("the database path {path:?} is not valid UTF-8"))
        })?;
        let shown = shown_address(&database);
        let config = Config {
            host: host.clone(),
            port,
            database,
            move_time: Duration::from_secs_f64(move_time),
            limits,
            resident: bot.map(|name| Resident::named(&name)),
        };
        let running = py.detach(|| RunningServer::start(config)).map_err(to_py_err)?;
        Ok(Server {
            running,
            host,
            database: shown,
        })
    }

    /// The address it listens on, `http://HOST:PORT/`.
    #[getter]
    fn url(&self) -> String {
        format!(
            "http://{}:{}/",
            self.host_for_url(),
            self.running.address().port()
        )
    }

    /// The WebSocket endpoint, `ws://HOST:PORT/ws`.
    #[getter]
    fn ws_url(&self) -> String {
        format!(
            "ws://{}:{}/ws",
            self.host_for_url(),
            self.running.address().port()
        )
    }

    /// The database it serves from, any password hidden.
    #[getter]
    fn database(&self) -> String {
        self.database.clone()
    }

    #[getter]
    fn port(&self) -> u16 {
        self.running.address().port()
    }

    /// Waits up to `timeout` seconds (forever if `None`) for the server to stop, with the GIL
    /// released; whether it has stopped. Call it in a loop to let Python handle signals.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let timeout = timeout
            .map(|value| seconds(value, 0.0))
            .transpose()?
            .map(Duration::from_secs_f64);
        Ok(py.detach(|| self.running.wait(timeout)))
    }

    /// Stops the server: the last turns are committed and announced, clients get a goodbye,
    /// the database is closed. Raises `RuntimeError` if the server had stopped on an error.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.running.stop()).map_err(to_py_err)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (_kind = None, _value = None, _traceback = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: Option<&Bound<'_, PyType>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.stop(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!("<gokata.Server {}>", self.url())
    }
}

impl Server {
    fn host_for_url(&self) -> String {
        match self.running.address() {
            std::net::SocketAddr::V6(address) => format!("[{}]", address.ip()),
            std::net::SocketAddr::V4(_) => self.host.clone(),
        }
    }
}

/// A whole number from `least` to a billion, if given.
fn count(value: Option<&Bound<'_, PyAny>>, name: &str, least: u32) -> PyResult<Option<u32>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let number = whole_number(value, name)?;
    u32::try_from(number)
        .ok()
        .filter(|n| (least..=1_000_000_000).contains(n))
        .map(Some)
        .ok_or_else(|| PyValueError::new_err(format!("{name} must be {least} to 1000000000, not {number}")))
}

/// A number of seconds from `shortest` to a week.
fn seconds(value: &Bound<'_, PyAny>, shortest: f64) -> PyResult<f64> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "a time in seconds must be a number, not bool",
        ));
    }
    let seconds: f64 = value
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("a time in seconds must be a number, not {value}")))?;
    if !(shortest..=MAX_MOVE_TIME).contains(&seconds) {
        return Err(PyValueError::new_err(format!(
            "a time in seconds must be {shortest} to {MAX_MOVE_TIME}, not {seconds}"
        )));
    }
    Ok(seconds)
}

fn to_py_err(error: ServerError) -> PyErr {
    match error {
        ServerError::Config(_) => PyValueError::new_err(error.to_string()),
        ServerError::Listen { .. } | ServerError::Database { .. } => PyOSError::new_err(error.to_string()),
        ServerError::Stopped(_) | ServerError::Runtime(_) => PyRuntimeError::new_err(error.to_string()),
    }
}
