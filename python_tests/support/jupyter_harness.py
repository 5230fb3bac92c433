"""The harness of the widget's browser test: a real JupyterLab server on 127.0.0.1 (a token, a
temporary root folder, settings and data folders of its own, nothing fetched from outside), and
Debian's headless Chromium driven by selenium, showing a notebook in it.

The server is started from this interpreter (``python -m jupyterlab``), so its kernel is this
interpreter too, with gokata and anywidget. `JupyterLab.stop` shuts it down through its API,
then kills its process group, and any kernel that a notebook recorded in ``kernel.pid`` (a
kernel runs in a session of its own).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Optional, TypeVar

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
STARTUP = 90.0
"""Seconds the server may take to answer, on a busy machine."""

T = TypeVar("T")

SETTINGS = {
    # Every cell stays in the page (no windowing), so the test sees every output.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # No question about news.
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
SERVER_CONFIG = {
    "LabApp": {
        "news_url": None,
        "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
        "extension_manager": "readonly",
    },
    "ServerApp": {"terminals_enabled": False},
}


class Timeout(AssertionError):
    """Something waited for did not happen in time."""


def wait_for(condition: Callable[[], Optional[T]], timeout: float, what: str, every: float = 0.05) -> T:
    """Calls ``condition()`` until it returns something true, and returns it; after ``timeout``
    seconds fails naming ``what`` and the last value seen."""
    deadline = time.monotonic() + timeout
    while True:
        seen = condition()
        if seen:
            return seen
        if time.monotonic() >= deadline:
            raise Timeout(f"timed out after {timeout:g} s waiting for {what} (last seen: {seen!r})")
        time.sleep(every)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class JupyterLab:
    """A JupyterLab server serving ``root``; `url` opens a file of it in the browser."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.log_path = home / "jupyterlab.log"
        config, settings = home / "config", home / "settings"
        config.mkdir(parents=True)
        (config / "jupyter_server_config.json").write_text(json.dumps(SERVER_CONFIG))
        for name, values in SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(config),
            JUPYTER_DATA_DIR=str(home / "data"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
            IPYTHONDIR=str(home / "ipython"),
            JUPYTER_PLATFORM_DIRS="1",
            PYTHONUNBUFFERED="1",
        )
        env.pop("JUPYTER_PATH", None)
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={root}",
                "--ServerApp.allow_root=True",
            ],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_for(self._answers, STARTUP, "the Jupyter server to answer")
        except BaseException:
            self.stop()
            raise

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base}/lab/tree/{path}?token={self.token}"

    def _answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the Jupyter server exited with {self.process.returncode}:\n{self.log()}")
        try:
            with urllib.request.urlopen(f"{self.base}/api/status?token={self.token}", timeout=2) as answer:
                return bool(answer.status == 200)
        except (OSError, urllib.error.URLError):
            return False

    def kernel_ready(self, path: str) -> bool:
        """Whether the notebook at ``path`` has a session whose kernel is connected and idle."""
        request = urllib.request.Request(f"{self.base}/api/sessions", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=5) as answer:
            sessions = json.load(answer)
        return any(
            session.get("path") == path
            and session.get("kernel", {}).get("execution_state") == "idle"
            and session.get("kernel", {}).get("connections", 0) > 0
            for session in sessions
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        """Shuts the server down (its kernels with it); whatever is left is killed."""
        if self.process.poll() is None:
            request = urllib.request.Request(
                f"{self.base}/api/shutdown", method="POST", headers={"Authorization": f"token {self.token}"}
            )
            try:
                urllib.request.urlopen(request, timeout=5).close()
                self.process.wait(timeout=15)
            except (OSError, urllib.error.URLError, subprocess.TimeoutExpired):
                pass
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)
        for recorded in self.root.glob("**/kernel.pid"):
            try:
                os.kill(int(recorded.read_text()), signal.SIGKILL)
            except (ValueError, ProcessLookupError, PermissionError):
                pass
        self._log.close()


def chromium(profile: Path, size: tuple[int, int] = (1280, 1100)) -> webdriver.Chrome:
    """Debian's Chromium, headless, with a fresh profile, that fetches nothing by itself."""
    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: apt-get install chromium chromium-driver"
    assert CHROMEDRIVER.is_file(), f"{CHROMEDRIVER} is missing: apt-get install chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={size[0]},{size[1]}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    return driver
