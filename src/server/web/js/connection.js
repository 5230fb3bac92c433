// The page's one WebSocket, while the page wants one: to play (signed in as `S.wanted`), to
// watch the game of `#game=ID`, or to follow the lobby. A page that only watches never says
// hello.

import { S, live, saved } from "./state.js";
import { $ } from "./util.js";
import { handlers } from "./handlers.js";
import { lobbyShown } from "./lobby.js";
import { setStatus, showError } from "./render.js";

export function connect() {
  clearTimeout(S.retryTimer);
  S.retryTimer = null;
  dropSocket();
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const ws = new WebSocket(url);
  S.socket = ws;
  ws.onopen = () => {
    S.retries = 0;
    if (S.wanted) {
      const token = S.wantedToken || saved.token(S.wanted);
      send(token ? { type: "hello", name: S.wanted, token } : { type: "hello", name: S.wanted });
    }
    follow();
  };
  ws.onmessage = (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    const handler = handlers[message.type];
    if (handler) handler(message);
  };
  ws.onclose = () => {
    if (S.socket !== ws) return;
    S.socket = null;
    if (S.lobbyFollowed) $("lobby-note").textContent = "Not connected to the server: trying again.";
    S.watching = null;
    S.lobbyFollowed = false;
    if (!S.wanted && !followed().lobby && !followed().game) return;
    const delay = Math.min(8000, 250 * 2 ** S.retries++);
    if (S.wanted) setStatus(`Connection lost: reconnecting in ${(delay / 1000).toFixed(1)} s…`);
    S.retryTimer = setTimeout(connect, delay);
  };
}

// Closes the connection, if any, at once and for good (a new one may follow).
export function dropSocket() {
  const old = S.socket;
  if (old) {
    old.onclose = null;
    old.onmessage = null;
    // Closed once open: a connection closed while it opens is an error in the console.
    if (old.readyState === WebSocket.CONNECTING) old.onopen = () => old.close();
    else old.close();
  }
  S.socket = null;
  S.watching = null;
  S.lobbyFollowed = false;
}

// What the page follows: the game of `#game=ID` while it may still be played, and the lobby
// while it is on show in a tab that is not hidden.
function followed() {
  const id = watchedGame();
  const over = id && S.game && S.game.id === id && !live(S.game);
  return { game: over ? null : id, lobby: lobbyShown() };
}

// Tells the server what the page follows now (it pushes the game's turns and the lobby's
// lists from then on), opening a connection if none is open or on its way.
export function follow() {
  const wants = followed();
  if (S.parked) return;
  if (!S.socket) {
    if ((S.wanted || wants.game || wants.lobby) && S.retryTimer === null) connect();
    return;
  }
  if (S.socket.readyState !== WebSocket.OPEN) return; // asked once it opens
  if (S.watching !== wants.game) {
    if (S.watching) send({ type: "unwatch", game: S.watching });
    if (wants.game) send({ type: "watch", game: wants.game });
    S.watching = wants.game;
  }
  if (S.lobbyFollowed !== wants.lobby) {
    send({ type: wants.lobby ? "watch_lobby" : "unwatch_lobby" });
    S.lobbyFollowed = wants.lobby;
  }
}

export function send(frame) {
  if (S.socket && S.socket.readyState === WebSocket.OPEN) {
    S.socket.send(JSON.stringify(frame));
    return true;
  }
  return false;
}

// A page left for another address may be kept, frozen, to come back to (the back-forward
// cache): its connection is closed, so that the server and the opponent know the player has
// gone, and opened again if the page is shown again.
export function keepConnectionWithThePage() {
  window.addEventListener("pagehide", () => {
    S.parked = true;
    clearTimeout(S.retryTimer);
    S.retryTimer = null;
    dropSocket();
  });
  window.addEventListener("pageshow", (event) => {
    S.parked = false;
    if (event.persisted) follow();
  });
}

// --- watching -------------------------------------------------------------------------------

// `/#game=ID` shows any game, signed in or not: the page watches it on the WebSocket (its
// state, then each turn as it is played; `follow`). A game of the player's own comes to the
// player anyway: the server sends it once.
export function watchedGame() {
  const match = /(?:^|[#&])game=([A-Za-z0-9]+)/.exec(location.hash);
  return match ? match[1] : null;
}

// The game of `#game=ID` put away: the address loses it, and the page unwatches it (`follow`).
export function stopWatching() {
  if (watchedGame()) history.replaceState(null, "", location.pathname + location.search);
}

export function showWatchError(problem) {
  if (problem || S.watchError) showError(problem || "");
  S.watchError = Boolean(problem);
}
