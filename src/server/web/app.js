// The gokata page: sign in, seek, play, on the v1 protocol (docs/protocol.md). No framework,
// no build step, no request to any other host. The server is the authority: the page shows
// what the server says and sends what the player does.
"use strict";

(() => {
  const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
  const SVG = "http://www.w3.org/2000/svg";
  const STARS = {
    9: [[2, 2], [2, 6], [6, 2], [6, 6], [4, 4]],
    13: [[3, 3], [3, 9], [9, 3], [9, 9], [6, 6]],
    19: [3, 9, 15].flatMap((r) => [3, 9, 15].map((c) => [r, c])),
  };
  const $ = (id) => document.getElementById(id);
  const STONE = { black: "x", white: "o", empty: "." };
  const other = (color) => (color === "black" ? "white" : "black");

  // Names and tokens of the players who signed in on this browser, by lower-case name.
  const saved = {
    all() {
      try {
        return JSON.parse(localStorage.getItem("gokata.players") || "{}");
      } catch {
        return {};
      }
    },
    token(name) {
      const entry = this.all()[name.toLowerCase()];
      return entry ? entry.token : null;
    },
    keep(name, token) {
      const all = this.all();
      all[name.toLowerCase()] = { name, token };
      localStorage.setItem("gokata.players", JSON.stringify(all));
      localStorage.setItem("gokata.current", name);
    },
    forget(name) {
      const all = this.all();
      delete all[name.toLowerCase()];
      localStorage.setItem("gokata.players", JSON.stringify(all));
      localStorage.removeItem("gokata.current");
    },
    current: () => localStorage.getItem("gokata.current"),
  };

  let socket = null;
  let wanted = null; // the name to sign in as, while the page wants a connection
  let wantedToken = null; // the token typed with it, if any (else the saved one is used)
  let me = null; // {name, wins, losses, bot} after welcome
  let game = null; // the STATE shown, kept current from played/over/state
  let pending = null; // {game, ply, frame}: a turn sent and not yet acknowledged
  let seeking = null; // {size, color, opponent} while a seek waits
  let deadline = null; // performance.now() when the player to move runs out of time
  let retries = 0;
  let retryTimer = null;
  let parked = false; // the page was left (maybe kept to come back to): no connection meanwhile
  let cursor = null; // [row, col] of the keyboard cursor
  let resignArmed = null;
  let watching = null; // the game this connection was asked to watch (its answer may be on the way)
  let lobbyFollowed = false; // whether this connection was asked to watch the lobby
  let watchError = false; // whether the error shown is the watcher's own
  let myTurn = false; // whether it was the player's turn when the page was last drawn
  let audio = null; // made when the player turns the sound on (browsers want a click first)
  let pointer = "mouse"; // how the last press on the board was made: "mouse", "touch" or "pen"
  let ghost = null; // the point a tap chose, played by a second tap on it
  let back = []; // the colours of the players who came back to the game shown, until the next turn

  // --- connection -------------------------------------------------------------------------

  // One WebSocket, while the page wants one: to play (signed in as `wanted`), to watch the game
  // of `#game=ID`, or to follow the lobby. A page that only watches never says hello.
  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    dropSocket();
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      retries = 0;
      if (wanted) {
        const token = wantedToken || saved.token(wanted);
        send(token ? { type: "hello", name: wanted, token } : { type: "hello", name: wanted });
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
      if (socket !== ws) return;
      socket = null;
      if (lobbyFollowed) $("lobby-note").textContent = "Not connected to the server: trying again.";
      watching = null;
      lobbyFollowed = false;
      if (!wanted && !followed().lobby && !followed().game) return;
      const delay = Math.min(8000, 250 * 2 ** retries++);
      if (wanted) setStatus(`Connection lost: reconnecting in ${(delay / 1000).toFixed(1)} s…`);
      retryTimer = setTimeout(connect, delay);
    };
  }

  // Closes the connection, if any, at once and for good (a new one may follow).
  function dropSocket() {
    const old = socket;
    if (old) {
      old.onclose = null;
      old.onmessage = null;
      // Closed once open: a connection closed while it opens is an error in the console.
      if (old.readyState === WebSocket.CONNECTING) old.onopen = () => old.close();
      else old.close();
    }
    socket = null;
    watching = null;
    lobbyFollowed = false;
  }

  // What the page follows: the game of `#game=ID` while it may still be played, and the lobby
  // while it is on show in a tab that is not hidden.
  function followed() {
    const id = watchedGame();
    const over = id && game && game.id === id && game.status !== "playing";
    return { game: over ? null : id, lobby: lobbyShown() };
  }

  // Tells the server what the page follows now (it pushes the game's turns and the lobby's
  // lists from then on), opening a connection if none is open or on its way.
  function follow() {
    const wants = followed();
    if (parked) return;
    if (!socket) {
      if ((wanted || wants.game || wants.lobby) && retryTimer === null) connect();
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) return; // asked once it opens
    if (watching !== wants.game) {
      if (watching) send({ type: "unwatch", game: watching });
      if (wants.game) send({ type: "watch", game: wants.game });
      watching = wants.game;
    }
    if (lobbyFollowed !== wants.lobby) {
      send({ type: wants.lobby ? "watch_lobby" : "unwatch_lobby" });
      lobbyFollowed = wants.lobby;
    }
  }

  // A page left for another address may be kept, frozen, to come back to (the back-forward
  // cache): its connection is closed, so that the server and the opponent know the player has
  // gone, and opened again if the page is shown again.
  window.addEventListener("pagehide", () => {
    parked = true;
    clearTimeout(retryTimer);
    retryTimer = null;
    dropSocket();
  });
  window.addEventListener("pageshow", (event) => {
    parked = false;
    if (event.persisted) follow();
  });

  function send(frame) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(frame));
      return true;
    }
    return false;
  }

  // --- messages from the server -----------------------------------------------------------

  const handlers = {
    welcome(m) {
      me = { name: m.name, wins: m.wins, losses: m.losses, bot: m.bot === true };
      saved.keep(m.name, m.token);
      wantedToken = null;
      $("name").value = m.name;
      $("token").value = "";
      $("my-token").textContent = m.token;
      const remembered = localStorage.getItem("gokata.game");
      const watch = watchedGame();
      const find = (id) => m.games.find((g) => g.id === id);
      const mine = watch ? find(watch) : (game && find(game.id)) || find(remembered) || m.games[0];
      if (mine) {
        showGame(mine);
      } else if (!watch && (game || remembered)) {
        // The last game is over (a reload, or it ended while we were away): show how.
        send({ type: "sync", game: game ? game.id : remembered });
      }
      if (pending && game && pending.game === game.id && game.status === "playing" &&
          game.moves.length === pending.ply) {
        send(pending.frame); // the ply makes a resent turn harmless
      } else {
        pending = null;
      }
      if (seeking) send({ type: "seek", ...seeking });
      render();
    },
    seeking(m) {
      seeking = { size: m.size, color: m.color, opponent: m.opponent || "human" };
      render();
    },
    cancelled() {
      seeking = null;
      render();
    },
    start(m) {
      seeking = null;
      pending = null;
      stopWatching();
      showGame(m.game);
    },
    played(m) {
      if (!game || m.game !== game.id) return;
      if (m.ply !== game.moves.length) {
        // A turn missed: the whole state again (a spectator, without a name, watches it again).
        if (m.ply > game.moves.length) send({ type: me ? "sync" : "watch", game: game.id });
        return;
      }
      showGhost(null);
      game.moves.push(m.point);
      if (m.point) setStone(m.point, m.color === "black" ? STONE.black : STONE.white);
      for (const point of m.captured) setStone(point, STONE.empty);
      game.to_move = m.to_move;
      game.remaining_ms = m.remaining_ms;
      deadline = performance.now() + m.remaining_ms;
      back = [];
      if (pending && pending.ply === m.ply) pending = null;
      showError("");
      render();
    },
    over(m) {
      if (m.game === watching) watching = null; // the server's watch ends with the game
      // The player's record changes whichever of its games ended.
      for (const color of ["black", "white"]) {
        const record = m.records[color];
        if (me && record.name.toLowerCase() === me.name.toLowerCase()) Object.assign(me, record);
      }
      if (!game || m.game !== game.id) return render();
      Object.assign(game, { status: "over", winner: m.winner, reason: m.reason, score: m.score, remaining_ms: null });
      game.records = m.records;
      pending = null;
      render();
    },
    state(m) {
      const incoming = m.game;
      const replaces = !game || incoming.id === game.id || game.status !== "playing";
      if (incoming.id !== watchedGame() && !(replaces && playsIn(incoming))) return;
      if (incoming.id === watching && incoming.status !== "playing") watching = null;
      if (incoming.id === watchedGame()) showWatchError(null);
      showGame(incoming);
      if (pending && (incoming.status !== "playing" || incoming.moves.length !== pending.ply)) pending = null;
    },
    error(m) {
      if (m.code === "bad_token" || m.code === "name_taken") {
        if (m.code === "bad_token" && wanted && !wantedToken) saved.forget(wanted);
        wanted = null;
        wantedToken = null;
        me = null;
        dropSocket(); // a spectator's connection follows, if the page wants one
        showError(m.message);
        render();
        $("token").focus();
        return;
      }
      if (m.code === "unknown_game" && m.game === watching && m.game === watchedGame()) {
        showWatchError(`${title(m.message)}.`); // not watched again until the address changes
        return;
      }
      if (m.game && pending && pending.game === m.game) pending = null;
      showError(m.message);
      render();
    },
    // The opponent left the server, or is back (a player hears only of the game's opponent).
    presence(m) {
      if (!game || m.game !== game.id || game.status !== "playing" || !game.connected) return;
      const connected = { ...game.connected, [m.color]: m.connected };
      noteComebacks(game.connected, connected);
      game.connected = connected;
      render();
    },
    goodbye() {
      setStatus("The server is restarting: reconnecting…");
    },
    lobby(m) {
      showSeeks(m.seeks);
      showGames(m.games, m.total);
      $("lobby-note").textContent = "";
    },
    unwatched() {},
    unwatched_lobby() {},
    pong() {},
  };

  // --- the game ---------------------------------------------------------------------------

  function showGame(state) {
    const fresh = !game || game.id !== state.id || game.size !== state.size;
    const moved = fresh || game.moves.length !== state.moves.length || state.status !== "playing";
    if (moved || !state.connected) back = []; // a player's return is told until the next turn
    if (!fresh && state.connected) noteComebacks(game.connected, state.connected);
    game = state;
    deadline = state.status === "playing" ? performance.now() + state.remaining_ms : null;
    if (state.status === "playing" && myColor()) localStorage.setItem("gokata.game", state.id);
    if (fresh) {
      buildBoard(state.size);
      cursor = null;
    }
    if (moved) showGhost(null);
    if (state.status === "over" && !state.records) fetchRecords(state);
    for (let row = 0; row < state.size; row++) {
      for (let col = 0; col < state.size; col++) setStone(pointName(row, col), state.board[row][col]);
    }
    render();
  }

  // A game seen after it ended (a reload, a watcher) gets its players' records from the API.
  async function fetchRecords(state) {
    try {
      const records = {};
      for (const color of ["black", "white"]) {
        const response = await fetch(`/api/players/${encodeURIComponent(state[color])}`);
        if (!response.ok) return;
        records[color] = await response.json();
      }
      if (game === state) {
        game.records = records;
        render();
      }
    } catch {
      // The result stands without the records.
    }
  }

  // Who came back, from what the game said before (`connected` of the STATE, null if none) to
  // what it says now; one who left again is no longer back.
  function noteComebacks(before, after) {
    for (const color of ["black", "white"]) {
      if (!after[color]) back = back.filter((c) => c !== color);
      else if (before && before[color] === false && !back.includes(color)) back.push(color);
    }
  }

  // Whether the player of `color` has left the server while the game shown goes on.
  function gone(color) {
    return Boolean(game) && game.status === "playing" && Boolean(game.connected) && game.connected[color] === false;
  }

  function myColor() {
    if (!game || !me) return null;
    const name = me.name.toLowerCase();
    if (game.black.toLowerCase() === name) return "black";
    if (game.white.toLowerCase() === name) return "white";
    return null;
  }

  function playsIn(state) {
    return Boolean(me) && [state.black, state.white].some((name) => name.toLowerCase() === me.name.toLowerCase());
  }

  // Seeking again puts the last game, or a watched one, away: it is no longer shown, nor
  // after a reload.
  function putAwayGame() {
    if (!game || (game.status === "playing" && myColor())) return;
    game = null;
    localStorage.removeItem("gokata.game");
    stopWatching();
  }

  function play(point) {
    if (!game || game.status !== "playing") return;
    if (!me) return showError(`Only ${who("black")} and ${who("white")} play in this game: you are watching it.`);
    if (pending) return showError("Your last turn is still on its way.");
    const ply = game.moves.length;
    const frame = point === null ? { type: "pass", game: game.id, ply } : { type: "move", game: game.id, ply, point };
    pending = { game: game.id, ply, frame };
    showError("");
    if (!send(frame)) setStatus("Not connected: the turn is sent when the connection is back.");
  }

  function pointName(row, col) {
    return `${game.size - row}${LETTERS[col]}`;
  }

  // --- drawing ----------------------------------------------------------------------------

  function node(name, attributes, parent) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (parent) parent.appendChild(element);
    return element;
  }

  function buildBoard(size) {
    const extent = size + 1;
    const svg = node("svg", {
      viewBox: `0 0 ${extent} ${extent}`, role: "img", tabindex: "0", id: "board",
      "aria-label": `${size} by ${size} Go board; arrow keys move the cursor, Enter plays`,
    });
    node("rect", { x: 0, y: 0, width: extent, height: extent, fill: "#dcb35c" }, svg);
    const lines = node("g", { stroke: "#3b2f1a", "stroke-width": 0.035 }, svg);
    for (let i = 1; i <= size; i++) {
      node("line", { x1: 1, y1: i, x2: size, y2: i }, lines);
      node("line", { x1: i, y1: 1, x2: i, y2: size }, lines);
    }
    for (const [row, col] of STARS[size] || []) node("circle", { cx: col + 1, cy: row + 1, r: 0.09, fill: "#3b2f1a" }, svg);
    const labels = node("g", { "font-size": 0.42, "text-anchor": "middle", "dominant-baseline": "central", fill: "#1b1b1b", "font-family": "system-ui, sans-serif" }, svg);
    for (let i = 0; i < size; i++) {
      for (const y of [0.42, extent - 0.42]) node("text", { x: i + 1, y }, labels).textContent = LETTERS[i];
      for (const x of [0.38, extent - 0.38]) node("text", { x, y: i + 1 }, labels).textContent = String(size - i);
    }
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        const point = `${size - row}${LETTERS[col]}`;
        const g = node("g", { class: "pt", "data-point": point, "data-stone": "empty" }, svg);
        node("rect", { class: "hover", x: col + 0.5, y: row + 0.5, width: 1, height: 1 }, g);
        node("circle", { class: "stone", cx: col + 1, cy: row + 1, r: 0.46, display: "none" }, g);
        node("circle", { class: "mark", cx: col + 1, cy: row + 1, r: 0.18, fill: "none", "stroke-width": 0.08, display: "none" }, g);
        node("circle", { class: "ghost", cx: col + 1, cy: row + 1, r: 0.46, display: "none" }, g);
      }
    }
    node("rect", { class: "cursor", x: 0, y: 0, width: 0.9, height: 0.9, display: "none" }, svg);
    svg.addEventListener("pointerdown", (event) => {
      pointer = event.pointerType;
    });
    svg.addEventListener("click", (event) => {
      const target = event.target.closest(".pt");
      if (target) chosen(target.dataset.point);
    });
    svg.addEventListener("keydown", onBoardKey);
    $("board-wrap").replaceChildren(svg);
  }

  // The stone on a point, in the game's board and on the page.
  function setStone(point, symbol) {
    const row = game.size - parseInt(point, 10);
    const col = LETTERS.indexOf(point.slice(-1));
    const line = game.board[row];
    game.board[row] = line.slice(0, col) + symbol + line.slice(col + 1);
    const g = document.querySelector(`.pt[data-point="${point}"]`);
    if (!g) return;
    const stone = symbol === STONE.black ? "black" : symbol === STONE.white ? "white" : "empty";
    g.dataset.stone = stone;
    const circle = g.querySelector(".stone");
    circle.setAttribute("display", stone === "empty" ? "none" : "inline");
    circle.setAttribute("fill", stone === "black" ? "#111" : "#fafafa");
    circle.setAttribute("stroke", stone === "black" ? "#000" : "#333");
    circle.setAttribute("stroke-width", 0.05);
  }

  // A fingertip covers several points of a 19x19 board on a phone: with the confirm option on,
  // a tap on the player's turn shows the stone, and a second tap on it plays it.
  function chosen(point) {
    const confirm = pointer === "touch" && $("confirm").checked;
    const myMove = game && game.status === "playing" && myColor() === game.to_move && !pending;
    if (confirm && myMove && point !== ghost) {
      showGhost(point);
      render();
      return;
    }
    if (ghost) {
      showGhost(null);
      render();
    }
    play(point);
  }

  function showGhost(point) {
    for (const g of document.querySelectorAll(".pt[data-ghost]")) {
      delete g.dataset.ghost;
      g.querySelector(".ghost").setAttribute("display", "none");
    }
    ghost = point;
    const g = point && document.querySelector(`.pt[data-point="${point}"]`);
    if (!g) return;
    g.dataset.ghost = "true";
    const circle = g.querySelector(".ghost");
    circle.setAttribute("fill", myColor() === "black" ? "#111" : "#fafafa");
    circle.setAttribute("display", "inline");
  }

  function markLastMove() {
    for (const g of document.querySelectorAll(".pt[data-last]")) {
      delete g.dataset.last;
      g.querySelector(".mark").setAttribute("display", "none");
    }
    const last = game && game.moves.length ? game.moves[game.moves.length - 1] : null;
    const g = last && document.querySelector(`.pt[data-point="${last}"]`);
    if (!g) return;
    g.dataset.last = "true";
    const mark = g.querySelector(".mark");
    mark.setAttribute("display", "inline");
    mark.setAttribute("stroke", g.dataset.stone === "black" ? "#fff" : "#000");
  }

  function onBoardKey(event) {
    if (!game) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!cursor) cursor = [Math.floor(game.size / 2), Math.floor(game.size / 2)];
    if (moves[event.key]) {
      const [dr, dc] = moves[event.key];
      cursor = [Math.min(game.size - 1, Math.max(0, cursor[0] + dr)), Math.min(game.size - 1, Math.max(0, cursor[1] + dc))];
    } else if (event.key === "Enter" || event.key === " ") {
      play(pointName(cursor[0], cursor[1]));
    } else {
      return;
    }
    event.preventDefault();
    const box = document.querySelector("#board .cursor");
    box.setAttribute("x", cursor[1] + 0.55);
    box.setAttribute("y", cursor[0] + 0.55);
    box.setAttribute("display", "inline");
    setStatus(`Cursor on ${pointName(cursor[0], cursor[1])}. ${statusText()}`);
  }

  // --- words ------------------------------------------------------------------------------

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;
  const record = (r) => `${named(r.name, r.bot)}: ${plural(r.wins, "win")}, ${plural(r.losses, "loss")}`;
  const title = (word) => word[0].toUpperCase() + word.slice(1);
  // A name in words, marked when the player is a program (a bot).
  const named = (name, bot) => (bot ? `${name} [bot]` : name);
  const isBot = (color) => Boolean(game && game.bots && game.bots[color]);
  // The name of the shown game's player of `color`.
  const who = (color) => named(game[color], isBot(color));
  const OPPONENTS = { human: "an opponent", computer: "the computer", any: "an opponent, a person or the computer" };

  function statusText() {
    if (game && game.status === "playing") return presenceText() + passText() + (ghost ? ghostText() : turnText());
    if (!me && wanted) return `Signing in as ${wanted}…`;
    if (!me) return game ? "The game is over. Sign in to play." : "Sign in to play.";
    if (seeking) {
      const colour = seeking.color === "any" ? "any colour" : seeking.color;
      return `Waiting for ${OPPONENTS[seeking.opponent]}: ${seeking.size}×${seeking.size}, ${colour}…`;
    }
    if (game && game.status === "over") return "The game is over. Seek another one?";
    return `Signed in as ${me.name}. Choose a board and seek a game.`;
  }

  function turnText() {
    const mine = myColor();
    const mover = who(game.to_move);
    if (!mine) return `You are watching: ${who("black")} (black) against ${who("white")} (white); ${game.to_move} to move.`;
    if (pending) return "Your turn is on its way to the server…";
    return mine === game.to_move ? `Your move (${mine}).` : `Waiting for ${mover} (${game.to_move}) to move.`;
  }

  function ghostText() {
    return `Play ${ghost}? Tap it again to play, or tap another point.`;
  }

  // A player who left has a clock that runs on: the opponent may wait, or play on.
  function presenceText() {
    const left = ["black", "white"].filter(gone).map((color) => `${who(color)} left the game; the clock runs on. `);
    return left.join("") + back.map((color) => `${who(color)} is back. `).join("");
  }

  // Two passes end the game: a player must know that the last turn was one.
  function passText() {
    const passer = lastPasser();
    if (!passer) return "";
    const mine = myColor();
    if (passer === mine) return "You passed. ";
    const warning = mine ? ": if you pass too, the game ends" : "";
    return `${title(passer)} (${who(passer)}) passed${warning}. `;
  }

  function resultText() {
    if (!game || game.status !== "over") return "";
    const winner = who(game.winner);
    const how = {
      resign: `${title(game.winner)} (${winner}) wins by resignation.`,
      timeout: `${title(game.winner)} (${winner}) wins on time: ${other(game.winner)} took too long.`,
      passes: `${title(game.winner)} (${winner}) wins after two passes.`,
    }[game.reason];
    let text = how;
    if (game.score) {
      const s = game.score;
      const margin = Math.abs(s.black - (s.white + s.komi));
      text += ` Area score: black ${s.black}, white ${s.white} + ${s.komi} komi = ${s.white + s.komi}; by ${margin} points.`;
    }
    if (game.records) text += ` Records: ${record(game.records.black)}; ${record(game.records.white)}.`;
    return text;
  }

  function setStatus(text) {
    $("status").textContent = text;
  }

  function showError(text) {
    $("error").textContent = text;
  }

  function render() {
    $("player").textContent = me ? record(me) : "Not signed in";
    const playing = game && game.status === "playing";
    const mine = myColor();
    $("signin-panel").hidden = Boolean(me);
    $("signout").hidden = !me;
    $("token-box").hidden = !me;
    $("options").hidden = !me;
    $("seek-panel").hidden = !me || (playing && mine !== null);
    $("seek").hidden = Boolean(seeking);
    $("cancel").hidden = !seeking;
    $("game-panel").hidden = !game;
    $("lobby").hidden = Boolean(game); // a game on show has the window to itself
    $("to-lobby").hidden = !game || (playing && mine !== null);
    document.body.classList.toggle("with-game", Boolean(game));
    $("pass").disabled = !playing || mine !== game.to_move || Boolean(pending);
    $("resign").disabled = !playing || !mine;
    if (game) {
      $("game-title").textContent = `${who("black")} (black) against ${who("white")} (white), ${game.size}×${game.size}`;
      renderSeats();
      markLastMove();
      $("sgf").href = `/api/games/${encodeURIComponent(game.id)}.sgf`;
    }
    $("result").textContent = resultText();
    setStatus(statusText());
    tick();
    tellTurn();
    follow();
  }

  // --- telling a player in another tab that their turn has come ---------------------------

  const PAGE_TITLE = document.title;

  function tellTurn() {
    const now = Boolean(game) && game.status === "playing" && myColor() === game.to_move;
    if (now && !myTurn && document.hidden && $("sound").checked) beep();
    myTurn = now;
    document.title = now && document.hidden ? `Your move (${game.to_move}) · ${PAGE_TITLE}` : PAGE_TITLE;
  }

  function beep() {
    if (!audio) return;
    const start = audio.currentTime;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 660;
    volume.gain.setValueAtTime(0.25, start);
    volume.gain.exponentialRampToValueAtTime(0.001, start + 0.35);
    tone.connect(volume).connect(audio.destination);
    tone.start(start);
    tone.stop(start + 0.35);
  }

  function soundOn() {
    audio = audio || new AudioContext();
    audio.resume();
  }

  // Both players beside the board: the one to move marked, their captures, a pass just made,
  // a player who left.
  function renderSeats() {
    const taken = captures();
    const passer = lastPasser();
    for (const color of ["black", "white"]) {
      $(`${color}-name`).textContent = game[color];
      $(`${color}-bot`).hidden = !isBot(color);
      $(`${color}-captures`).textContent = plural(taken[color], "capture");
      $(`${color}-passed`).hidden = passer !== color;
      $(`${color}-gone`).hidden = !gone(color);
      $(`seat-${color}`).classList.toggle("to-move", game.status === "playing" && game.to_move === color);
    }
    $("move-number").textContent = `Move ${game.moves.length}`;
  }

  // The stones each colour has taken: those its opponent played, less those still on the board.
  function captures() {
    const played = { black: 0, white: 0 };
    game.moves.forEach((point, ply) => {
      if (point) played[ply % 2 === 0 ? "black" : "white"] += 1;
    });
    const left = { black: 0, white: 0 };
    for (const line of game.board) {
      for (const symbol of line) {
        if (symbol === STONE.black) left.black += 1;
        else if (symbol === STONE.white) left.white += 1;
      }
    }
    return { black: played.white - left.white, white: played.black - left.black };
  }

  // The colour whose pass was the last turn of a game still played (black moves first).
  function lastPasser() {
    if (!game || game.status !== "playing" || !game.moves.length) return null;
    if (game.moves[game.moves.length - 1] !== null) return null;
    return game.moves.length % 2 === 1 ? "black" : "white";
  }

  function tick() {
    const clock = $("clock");
    if (!game || game.status !== "playing" || deadline === null) {
      clock.textContent = "";
      return;
    }
    const left = Math.max(0, deadline - performance.now());
    const seconds = Math.ceil(left / 1000);
    clock.textContent = `${title(game.to_move)}: ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    clock.classList.toggle("low", left < 30000);
    clock.setAttribute("aria-label", `${game.to_move} has ${seconds} seconds left`);
  }

  // --- watching ---------------------------------------------------------------------------

  // `/#game=ID` shows any game, signed in or not: the page watches it on the WebSocket (its
  // state, then each turn as it is played; `follow`). A game of the player's own comes to the
  // player anyway: the server sends it once.
  function showWatchError(problem) {
    if (problem || watchError) showError(problem || "");
    watchError = Boolean(problem);
  }

  // The game of `#game=ID` put away: the address loses it, and the page unwatches it (`follow`).
  function stopWatching() {
    if (watchedGame()) history.replaceState(null, "", location.pathname + location.search);
  }

  function watchedGame() {
    const match = /(?:^|[#&])game=([A-Za-z0-9]+)/.exec(location.hash);
    return match ? match[1] : null;
  }

  // --- the lobby --------------------------------------------------------------------------

  // The seeks waiting and the games being played, pushed by the server (`lobby`) while the page
  // watches the lobby: while it is on show in a tab that is not hidden (`follow`).
  const WANTS = { human: "wants a person", computer: "wants the computer", any: "wants anyone" };
  const COLOURS = { any: "any colour", black: "black", white: "white" };

  const lobbyShown = () => !$("lobby").hidden && !document.hidden;

  function showSeeks(seeks) {
    const items = seeks.map((seek) => {
      const item = lobbyItem(seek.name, seek.bot);
      item.dataset.seek = seek.name;
      item.append(`, ${sizesText(seek.size)}, ${COLOURS[seek.color] || seek.color}, ${WANTS[seek.opponent] || seek.opponent}`);
      return item;
    });
    fillList("lobby-seeks", items, "Nobody is waiting for an opponent.");
  }

  function showGames(games, total) {
    const items = games.map((listed) => {
      const item = lobbyItem(listed.black, listed.bots.black);
      item.dataset.game = listed.id;
      item.append(" against ");
      item.append(...playerName(listed.white, listed.bots.white));
      item.append(`, ${listed.size}×${listed.size}, move ${listed.moves} `);
      const link = document.createElement("a");
      link.href = `#game=${encodeURIComponent(listed.id)}`;
      link.textContent = "Watch";
      link.setAttribute("aria-label", `Watch ${named(listed.black, listed.bots.black)} against ${named(listed.white, listed.bots.white)}`);
      item.append(link);
      return item;
    });
    if (total > games.length) {
      const more = document.createElement("li");
      more.textContent = `And ${total - games.length} more.`;
      items.push(more);
    }
    fillList("lobby-games", items, "No game is being played.");
  }

  // A list item that starts with a player's name.
  function lobbyItem(name, bot) {
    const item = document.createElement("li");
    item.append(...playerName(name, bot));
    return item;
  }

  // A name as shown beside the board: a program's carries a "bot" badge.
  function playerName(name, bot) {
    const text = document.createElement("span");
    text.className = "name";
    text.textContent = name;
    if (!bot) return [text];
    const badge = document.createElement("span");
    badge.className = "bot";
    badge.title = "A program, not a person";
    badge.textContent = "bot";
    return [text, " ", badge];
  }

  function fillList(id, items, empty) {
    if (!items.length) {
      const none = document.createElement("li");
      none.className = "none";
      none.textContent = empty;
      items.push(none);
    }
    $(id).replaceChildren(...items);
  }

  // One size (9) or several ([9, 13]): "9×9", "9×9 or 13×13".
  function sizesText(size) {
    const sizes = (Array.isArray(size) ? size : [size]).map((n) => `${n}×${n}`);
    return sizes.length === 1 ? sizes[0] : `${sizes.slice(0, -1).join(", ")} or ${sizes[sizes.length - 1]}`;
  }

  // --- controls ---------------------------------------------------------------------------

  $("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("name").value.trim();
    const token = $("token").value.trim();
    if (!/^[A-Za-z0-9_-]{1,20}$/.test(name)) {
      showError(`"${name}" is not a name: use 1 to 20 letters, digits, _ or -.`);
      return;
    }
    if (token && !/^[0-9a-fA-F]{64}$/.test(token)) {
      showError(`That is not a token: a token is 64 hexadecimal digits (0-9, a-f), not ${token.length} characters. Leave it empty to register a new name.`);
      return;
    }
    showError("");
    wanted = name;
    wantedToken = token.toLowerCase() || null;
    me = null;
    leaveGame();
    connect();
    render();
  });

  $("signout").addEventListener("click", () => {
    localStorage.removeItem("gokata.current");
    wanted = null;
    me = null;
    leaveGame();
    dropSocket(); // a spectator's connection follows, if the page wants one
    render();
  });

  // Signing in or out: the player's game goes; a watched one stays.
  function leaveGame() {
    if (game && game.id !== watchedGame()) game = null;
    seeking = null;
    pending = null;
  }

  $("copy-token").addEventListener("click", async () => {
    const token = $("my-token");
    getSelection().selectAllChildren(token);
    try {
      await navigator.clipboard.writeText(token.textContent);
      $("token-note").textContent = "Copied.";
    } catch {
      $("token-note").textContent = "Selected: copy it with Ctrl+C (⌘C on a Mac).";
    }
  });

  $("confirm").addEventListener("change", () => {
    localStorage.setItem("gokata.confirm", $("confirm").checked ? "on" : "off");
    if (!$("confirm").checked) showGhost(null);
    render();
  });

  $("sound").addEventListener("change", () => {
    localStorage.setItem("gokata.sound", $("sound").checked ? "on" : "off");
    if ($("sound").checked) {
      soundOn();
      beep(); // what it sounds like
    }
  });
  // A sound turned on before a reload can play only after the player's next click or key.
  for (const kind of ["pointerdown", "keydown"]) {
    document.addEventListener(kind, () => {
      if ($("sound").checked) soundOn();
    });
  }
  document.addEventListener("visibilitychange", () => {
    tellTurn();
    follow();
  });

  window.addEventListener("hashchange", () => {
    if (game && game.id !== watchedGame() && !myColor()) game = null;
    render();
  });

  $("seek-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showError("");
    putAwayGame();
    render();
    send({ type: "seek", size: Number($("size").value), color: $("color").value, opponent: $("opponent").value });
  });

  // A finished or watched game is put away for the lobby (a game of one's own, once over).
  $("to-lobby").addEventListener("click", () => {
    putAwayGame();
    showError("");
    render();
  });

  $("cancel").addEventListener("click", () => send({ type: "cancel" }));
  $("pass").addEventListener("click", () => play(null));
  $("resign").addEventListener("click", () => {
    if (!game || game.status !== "playing") return;
    const button = $("resign");
    if (resignArmed) {
      clearTimeout(resignArmed);
      resignArmed = null;
      button.textContent = "Resign";
      send({ type: "resign", game: game.id });
      return;
    }
    button.textContent = "Really resign?";
    resignArmed = setTimeout(() => {
      resignArmed = null;
      button.textContent = "Resign";
    }, 4000);
  });

  setInterval(tick, 250);
  $("sound").checked = localStorage.getItem("gokata.sound") === "on";
  $("confirm").checked = localStorage.getItem("gokata.confirm") !== "off";
  const current = saved.current();
  if (current && saved.token(current)) {
    wanted = current;
    $("name").value = current;
    connect();
  }
  render();
})();
