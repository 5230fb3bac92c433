"""What ``gokata connect`` keeps between runs, by server and name: the token of each name it
registered, and the last game it played, so that a game that ended while the player was away
can be reported when they come back. Both under ``$XDG_CONFIG_HOME/gokata`` (default
``~/.config``), readable by their owner only."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gokata.client import websocket_url


def config_folder() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "gokata"


def tokens_file() -> Path:
    """Where tokens are kept: ``$XDG_CONFIG_HOME/gokata/tokens.json`` (default ``~/.config``)."""
    return config_folder() / "tokens.json"


def games_file() -> Path:
    """Where the last game of each name is kept, until its end was shown."""
    return config_folder() / "games.json"


def load_token(url: str, name: str) -> str | None:
    """The saved token of ``name`` on the server at ``url``, if any."""
    return _load(tokens_file()).get(websocket_url(url), {}).get(name.lower())


def save_token(url: str, name: str, token: str) -> Path:
    """Saves the token of ``name`` on the server at ``url``; where it is saved."""
    return _save(tokens_file(), url, name, token)


def load_last_game(url: str, name: str) -> str | None:
    """The id of the last game ``name`` played here on the server at ``url``, if its end was
    not shown."""
    return _load(games_file()).get(websocket_url(url), {}).get(name.lower())


def save_last_game(url: str, name: str, game: str | None) -> None:
    """Keeps ``game`` as the last game of ``name`` (``None``: its end was shown); a
    convenience, so a file that cannot be written is passed over."""
    try:
        _save(games_file(), url, name, game)
    except OSError:
        pass


def _load(path: Path) -> dict[str, dict[str, str]]:
    """``{server: {name: value}}`` from ``path``; empty if it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        url: {name: value for name, value in names.items() if isinstance(value, str)}
        for url, names in data.items()
        if isinstance(names, dict)
    }


def _save(path: Path, url: str, name: str, value: str | None) -> Path:
    """Sets (or, with ``None``, removes) the value of ``name`` on the server at ``url`` in
    ``path``, replaced whole so that it is never half written."""
    data = _load(path)
    names = data.setdefault(websocket_url(url), {})
    if value is None:
        names.pop(name.lower(), None)
    else:
        names[name.lower()] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=2, sort_keys=True)
        file.write("\n")
    os.replace(temporary, path)
    return path
