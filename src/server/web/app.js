// The gokata page: sign in, seek (rated or not, a time control, a handicap), play, watch, and
// the leaderboard and each player's games, on the v1 protocol (docs/protocol.md). No
// framework, no build step, no request to any other host. The server is the authority: the
// page shows what the server says and sends what the player does. Player names and anything
// else the server relays are written as text, never as HTML.
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
  let me = null; // {name, wins, losses, bot, rating, deviation, rank} after welcome
  let game = null; // the STATE shown, kept current from played/over/state
  let pending = null; // {game, ply, frame}: a turn sent and not yet acknowledged
  let seeking = null; // the seek as the server echoed it (`seeking`), while it waits
  let deadline = null; // performance.now() when the player to move runs out of time
  let stopped = null; // how long the last turn of the game shown had run when the game ended
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
      me = { name: m.name, wins: m.wins, losses: m.losses, bot: m.bot === true, rating: m.rating, deviation: m.deviation, rank: m.rank };
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
      const { type, ref, ...terms } = m;
      seeking = { opponent: "human", ...terms };
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
      if (route().page) location.hash = ""; // from the leaderboard or a player's page to the game
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
      game.move_time_ms = m.remaining_ms; // the new turn's whole time
      if (m.clocks) game.clocks = m.clocks;
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
      stopped = m.reason === "timeout" ? game.move_time_ms : elapsed(game.to_move);
      Object.assign(game, { status: "over", winner: m.winner, reason: m.reason, score: m.score, remaining_ms: null });
      game.records = m.records;
      game.ratings = m.ratings || null;
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
    stopped = null;
    if (state.status === "playing" && myColor()) localStorage.setItem("gokata.game", state.id);
    if (fresh) {
      buildBoard(state.size);
      cursor = null;
    }
    if (moved) showGhost(null);
    if (state.status === "over" && !state.records) fetchRecords(state);
    if (state.status === "over" && state.rated && state.ratings === undefined) fetchRatings(state);
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

  // A rated game seen after it ended gets its rating changes from its black player's list.
  async function fetchRatings(state) {
    state.ratings = null;
    try {
      const listed = await getJSON(`/api/players/${encodeURIComponent(state.black)}/games`);
      const found = listed.games.find((g) => g.id === state.id);
      if (found && found.ratings && game === state) {
        game.ratings = found.ratings;
        render();
      }
    } catch {
      // The result stands without them.
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
  const playerHref = (name) => `#player=${encodeURIComponent(name)}`;

  // A duration in words: "5 min", "30 s", "1 day", "1 h 30 min", "1.5 s".
  function span(ms) {
    const units = [[86400000, (n) => (n === 1 ? "1 day" : `${n} days`)], [3600000, (n) => `${n} h`], [60000, (n) => `${n} min`]];
    const parts = [];
    let rest = ms;
    for (const [size, words] of units) {
      if (rest >= size) parts.push(words(Math.floor(rest / size)));
      rest %= size;
    }
    if (rest || !parts.length) parts.push(`${rest / 1000} s`);
    return parts.join(" ");
  }

  // A time control in words, as the presets are named: "10 min + 5 × 30 s byo-yomi".
  function timeText(t) {
    if (!t) return "the server's time a move";
    switch (t.system) {
      case "per_move": return `${span(t.move_ms)} a move`;
      case "absolute": return `${span(t.total_ms)} for the game`;
      case "fischer": return `${span(t.initial_ms)} + ${span(t.increment_ms)} Fischer (max ${span(t.max_ms)})`;
      case "byoyomi": return `${span(t.main_ms)} + ${t.periods} × ${span(t.period_ms)} byo-yomi`;
      case "canadian": return `${span(t.main_ms)} + ${plural(t.stones, "stone")} / ${span(t.period_ms)} Canadian`;
      default: return t.system;
    }
  }

  // A seek's terms (as `seeking` and the lobby give them): "rated, 5 min a move".
  function termsText(t) {
    const parts = [t.rated === false ? "unrated" : "rated"];
    if (t.handicap === "auto") parts.push("handicap from the ranks");
    else if (t.handicap > 0) parts.push(`${t.handicap} handicap stones`);
    if (t.rated === false) parts.push(`komi ${t.komi}`);
    parts.push(timeText(t.time));
    return parts.join(", ");
  }

  // A game's terms (STATE): "Rated, even, komi 0.5, 10 min + 5 × 30 s byo-yomi."
  function gameTermsText(g) {
    const stones = g.handicap >= 2 ? `${g.handicap} handicap stones` : "even";
    const rated = g.rated === undefined ? "" : g.rated ? "Rated, " : "Unrated, ";
    return title(`${rated}${stones}, komi ${g.komi}${g.time ? `, ${timeText(g.time)}` : ""}.`);
  }

  // A rating change: "1500 → 1662 (4k?)".
  const change = (r) => `${Math.round(r.before)} → ${Math.round(r.after)} (${r.rank})`;

  function ratingsText() {
    if (!game || game.status !== "over" || !game.ratings) return "";
    const r = game.ratings;
    return `Ratings: ${who("black")} ${change(r.black)}; ${who("white")} ${change(r.white)}.`;
  }

  function statusText() {
    if (game && game.status === "playing") return presenceText() + passText() + (ghost ? ghostText() : turnText());
    if (!me && wanted) return `Signing in as ${wanted}…`;
    if (!me) return game ? "The game is over. Sign in to play." : "Sign in to play.";
    if (seeking) {
      const colour = seeking.color === "any" ? "any colour" : seeking.color;
      return `Waiting for ${OPPONENTS[seeking.opponent]}: ${sizesText(seeking.size)}, ${colour}, ${termsText(seeking)}…`;
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
    let text = game.reason === "passes" ? "A draw after two passes." : "A draw.";
    if (game.winner) {
      const winner = who(game.winner);
      text = {
        resign: `${title(game.winner)} (${winner}) wins by resignation.`,
        timeout: `${title(game.winner)} (${winner}) wins on time: ${other(game.winner)} took too long.`,
        passes: `${title(game.winner)} (${winner}) wins after two passes.`,
      }[game.reason];
    }
    if (game.score) {
      const s = game.score;
      const margin = Math.abs(s.black - (s.white + s.komi));
      text += ` Area score: black ${s.black}, white ${s.white} + ${s.komi} komi = ${s.white + s.komi}`;
      text += margin ? `; by ${margin} points.` : ".";
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
    $("player-link").href = me ? playerHref(me.name) : "#";
    $("my-rank").hidden = !me;
    if (me) {
      $("my-rank").textContent = me.rank || "";
      $("my-rank").title = `Rating ${Math.round(me.rating)} ± ${Math.round(me.deviation)}`;
    }
    const playing = game && game.status === "playing";
    const mine = myColor();
    const away = Boolean(route().page); // the leaderboard or a player's page is on show
    $("directory").hidden = !away;
    $("directory-back").textContent = playing && mine ? "Back to your game" : game ? "Back to the game" : "Back to the lobby";
    $("signin-panel").hidden = Boolean(me) || away;
    $("signout").hidden = !me;
    $("token-box").hidden = !me;
    $("options").hidden = !me || away;
    $("seek-panel").hidden = !me || away || (playing && mine !== null);
    $("seek").hidden = Boolean(seeking);
    $("cancel").hidden = !seeking;
    $("game-panel").hidden = !game || away;
    $("lobby").hidden = Boolean(game) || away; // a game on show has the window to itself
    $("to-lobby").hidden = !game || (playing && mine !== null);
    document.body.classList.toggle("with-game", Boolean(game) && !away);
    $("pass").disabled = !playing || mine !== game.to_move || Boolean(pending);
    $("resign").disabled = !playing || !mine;
    if (game) {
      $("game-title").textContent = `${who("black")} (black) against ${who("white")} (white), ${game.size}×${game.size}`;
      renderSeats();
      markLastMove();
      $("sgf").href = `/api/games/${encodeURIComponent(game.id)}.sgf`;
    }
    $("result").textContent = resultText();
    $("ratings").textContent = ratingsText();
    $("terms").textContent = game ? gameTermsText(game) : "";
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
      $(`${color}-name`).href = playerHref(game[color]);
      $(`${color}-rank`).textContent = (game.ranks && game.ranks[color]) || "";
      $(`${color}-bot`).hidden = !isBot(color);
      $(`${color}-captures`).textContent = plural(taken[color], "capture");
      $(`${color}-passed`).hidden = passer !== color;
      $(`${color}-gone`).hidden = !gone(color);
      $(`seat-${color}`).classList.toggle("to-move", game.status === "playing" && game.to_move === color);
    }
    $("move-number").textContent = `Move ${game.moves.length}`;
  }

  // The colour of a turn: black moves first, but white in a handicap game.
  const first = () => (game.handicap >= 2 ? "white" : "black");
  const colorOf = (ply) => (ply % 2 === 0 ? first() : other(first()));

  // The stones each colour has taken: those its opponent played (black's handicap stones too),
  // less those still on the board.
  function captures() {
    const played = { black: game.handicap >= 2 ? game.handicap : 0, white: 0 };
    game.moves.forEach((point, ply) => {
      if (point) played[colorOf(ply)] += 1;
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

  // The colour whose pass was the last turn of a game still played.
  function lastPasser() {
    if (!game || game.status !== "playing" || !game.moves.length) return null;
    if (game.moves[game.moves.length - 1] !== null) return null;
    return colorOf(game.moves.length - 1);
  }

  // --- clocks -----------------------------------------------------------------------------

  // How long the turn of the player of `color` has run: 0 for the player waiting.
  function elapsed(color) {
    if (!game || color !== game.to_move) return 0;
    if (game.status !== "playing") return stopped !== null ? stopped : game.reason === "timeout" ? game.move_time_ms : 0;
    if (deadline === null) return 0;
    return Math.min(game.move_time_ms, Math.max(0, game.move_time_ms - (deadline - performance.now())));
  }

  // Each player's clock as its system shows it: main time, then byo-yomi periods ("3 × 0:30")
  // or a Canadian period ("12 stones / 4:10"); the player to move's running down from the
  // clock its turn began with.
  function tick() {
    for (const color of ["black", "white"]) {
      const element = $(`${color}-clock`);
      const time = game && (game.time || { system: "per_move", move_ms: game.move_time_ms });
      const clock = game && ((game.clocks && game.clocks[color]) || { main_ms: game.move_time_ms });
      if (!game || !clock) {
        element.replaceChildren();
        continue;
      }
      const shown = clockView(time, clock, elapsed(color));
      const running = game.status === "playing" && game.to_move === color;
      const text = shown.extra ? `${shown.main} ${shown.extra}` : shown.main;
      if (element.textContent !== text) {
        const extra = document.createElement("span");
        extra.className = "extra";
        extra.textContent = shown.extra || "";
        element.replaceChildren(shown.main, ...(shown.extra ? [" ", extra] : []));
      }
      element.classList.toggle("running", running);
      element.classList.toggle("low", Boolean(running && shown.low));
      element.setAttribute("aria-label", `${title(color)}'s clock: ${text.replace(" × ", " periods of ")}`);
    }
  }

  // `clock` (CLOCK of the protocol) after `spent` ms of the turn: {main, extra, low}.
  function clockView(time, clock, spent) {
    const main = clock.main_ms - spent;
    if (time.system === "byoyomi") {
      const periods = (n, left) => `${n} × ${countdown(left)}`;
      if (main > 0) return { main: countdown(main), extra: `+ ${periods(clock.periods, clock.period_ms)}` };
      const used = Math.floor(-main / clock.period_ms);
      const left = clock.period_ms - (-main % clock.period_ms);
      if (used >= clock.periods) return { main: countdown(0), low: true };
      return { main: periods(clock.periods - used, left), low: left < 10000 };
    }
    if (time.system === "canadian") {
      const stones = (left) => `${plural(clock.stones, "stone")} / ${countdown(left)}`;
      if (clock.main_ms > 0 && main > 0) return { main: countdown(main), extra: `+ ${stones(clock.period_ms)}` };
      const left = clock.period_ms + Math.min(0, main);
      return { main: stones(Math.max(0, left)), low: left / clock.stones < 10000 };
    }
    return { main: countdown(main), low: main < 30000 };
  }

  // A time left as a clock shows it, whole seconds rounded up: "4:59", "1:02:03", "2d 5h".
  function countdown(ms) {
    const s = Math.ceil(Math.max(0, ms) / 1000);
    const two = (n) => String(n).padStart(2, "0");
    if (s >= 86400) return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
    if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
    return `${Math.floor(s / 60)}:${two(s % 60)}`;
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
      const item = lobbyItem(seek.name, seek.bot, seek.rank);
      item.dataset.seek = seek.name;
      const wants = WANTS[seek.opponent] || seek.opponent;
      item.append(`, ${sizesText(seek.size)}, ${COLOURS[seek.color] || seek.color}, ${wants}, ${termsText(seek)}`);
      return item;
    });
    fillList("lobby-seeks", items, "Nobody is waiting for an opponent.");
  }

  function showGames(games, total) {
    const items = games.map((listed) => {
      const rank = (color) => listed.ranks && listed.ranks[color];
      const item = lobbyItem(listed.black, listed.bots.black, rank("black"));
      item.dataset.game = listed.id;
      item.append(" against ");
      item.append(...playerName(listed.white, listed.bots.white, rank("white")));
      item.append(`, ${listed.size}×${listed.size}, move ${listed.moves} `);
      const link = document.createElement("a");
      link.href = `#game=${encodeURIComponent(listed.id)}`;
      link.textContent = "Watch";
      link.className = "watch";
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
  function lobbyItem(name, bot, rank) {
    const item = document.createElement("li");
    item.append(...playerName(name, bot, rank));
    return item;
  }

  // A name as shown beside the board, a link to the player's page: then the rank, if known; a
  // program's carries a "bot" badge.
  function playerName(name, bot, rank) {
    const parts = [element("a", { className: "name", href: playerHref(name) }, name)];
    if (rank) parts.push(" ", element("span", { className: "rank" }, rank));
    if (bot) parts.push(" ", element("span", { className: "bot", title: "A program, not a person" }, "bot"));
    return parts;
  }

  // A new element with these properties, holding these children (text as text).
  function element(tag, properties = {}, ...children) {
    const made = Object.assign(document.createElement(tag), properties);
    made.append(...children);
    return made;
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

  // --- the seek's terms -------------------------------------------------------------------

  // The time controls offered as OGS offers them; "server": none named, the server's per-move
  // time (what programs and `gokata connect` seek unless told otherwise).
  const PRESETS = {
    server: null,
    live: { system: "per_move", move_ms: 300000 },
    byoyomi: { system: "byoyomi", main_ms: 600000, period_ms: 30000, periods: 5 },
    fischer: { system: "fischer", initial_ms: 300000, increment_ms: 5000, max_ms: 600000 },
    day: { system: "per_move", move_ms: 86400000 },
  };
  // The custom form's fields of each system: [input, the protocol's name, the label if another].
  const CUSTOM = {
    per_move: [["t-main", "move_ms", "Time a move"]],
    absolute: [["t-main", "total_ms", "Time for the game"]],
    fischer: [["t-main", "initial_ms", "Starting time"], ["t-increment", "increment_ms"], ["t-max", "max_ms"]],
    byoyomi: [["t-main", "main_ms", "Main time"], ["t-period", "period_ms"], ["t-periods", "periods"]],
    canadian: [["t-main", "main_ms", "Main time"], ["t-period", "period_ms"], ["t-stones", "stones"]],
  };
  const COUNTS = { periods: [1, 30], stones: [1, 100] };
  const SEEK_FIELDS = ["size", "color", "opponent", "rated", "handicap", "komi", "time", "time-system",
    "t-main", "t-increment", "t-max", "t-period", "t-periods", "t-stones"];

  // "30s", "10m", "1h 30m", "2d", "1:30", "1:00:00", "90" (seconds): milliseconds, or NaN.
  function parseDuration(text) {
    const t = text.trim().toLowerCase();
    if (/^\d+(:[0-5]?\d){1,2}$/.test(t)) return t.split(":").reduce((sum, part) => sum * 60 + Number(part), 0) * 1000;
    if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
    const unit = { d: 86400, h: 3600, m: 60, s: 1 };
    const parts = [...t.matchAll(/(\d+(?:\.\d+)?)\s*(d|days?|h|hours?|m|mins?|minutes?|s|secs?|seconds?)(?=\s|\d|$)\s*/g)];
    if (!parts.length || parts.map((m) => m[0]).join("") !== t) return NaN;
    return Math.round(parts.reduce((sum, m) => sum + Number(m[1]) * unit[m[2][0]], 0) * 1000);
  }

  // The handicaps a seek may ask: rated, none or from the ranks; unrated, none or 2 to 9 stones
  // (5 on 9x9). The choice is kept where it still may be.
  function fillHandicaps() {
    const rated = $("rated").value === "rated";
    const choices = rated ? [["0", "None (even)"], ["auto", "From the ranks"]] : [["0", "None"]];
    if (!rated) for (let n = 2; n <= ($("size").value === "9" ? 5 : 9); n++) choices.push([String(n), `${n} stones`]);
    const before = $("handicap").value;
    $("handicap").replaceChildren(...choices.map(([value, text]) => element("option", { value }, text)));
    if (choices.some(([value]) => value === before)) $("handicap").value = before;
    $("komi-field").hidden = rated;
  }

  function showCustomTime() {
    $("custom-time").hidden = $("time").value !== "custom";
    const fields = CUSTOM[$("time-system").value];
    for (const span of document.querySelectorAll("#custom-time .field")) {
      span.hidden = !fields.some(([id]) => id === span.dataset.for);
    }
    $("t-main-label").textContent = fields[0][2];
  }

  // The seek frame the form asks for; an Error naming the field if one is wrong.
  function seekFrame() {
    const frame = { type: "seek", size: Number($("size").value), color: $("color").value, opponent: $("opponent").value };
    frame.rated = $("rated").value === "rated";
    const handicap = $("handicap").value;
    frame.handicap = handicap === "auto" ? "auto" : Number(handicap);
    if (!frame.rated) {
      const komi = Number($("komi").value);
      if ($("komi").value.trim() === "" || !Number.isFinite(komi) || Math.abs(komi) > 150 || (komi * 2) % 1 !== 0) {
        throw new Error(`Komi must be a multiple of 0.5 from -150 to 150, not "${$("komi").value}".`);
      }
      frame.komi = komi;
    }
    const chosen = $("time").value;
    if (chosen !== "custom") {
      if (PRESETS[chosen]) frame.time = PRESETS[chosen];
      return frame;
    }
    const system = $("time-system").value;
    frame.time = { system };
    for (const [id, name, label] of CUSTOM[system]) {
      const words = label || document.querySelector(`label[for="${id}"]`).textContent;
      const text = $(id).value;
      if (COUNTS[name]) {
        const [low, high] = COUNTS[name];
        const n = Number(text);
        if (!Number.isInteger(n) || n < low || n > high) throw new Error(`${words}: a whole number from ${low} to ${high}, not "${text}".`);
        frame.time[name] = n;
      } else {
        const ms = parseDuration(text);
        if (!(ms >= 1000 && ms <= 604800000)) {
          throw new Error(`${words}: "${text}" is not a time from 1 second to 7 days (write 30s, 10m, 1h 30m, 1d or 1:30).`);
        }
        frame.time[name] = ms;
      }
    }
    if (system === "fischer" && frame.time.max_ms < frame.time.initial_ms) {
      throw new Error("At most: the most a Fischer clock may hold is at least its starting time.");
    }
    return frame;
  }

  // The form's choices are kept for the next visit.
  function keepSeekChoices() {
    const kept = {};
    for (const id of SEEK_FIELDS) kept[id] = $(id).value;
    localStorage.setItem("gokata.seek", JSON.stringify(kept));
  }

  function restoreSeekChoices() {
    let kept = {};
    try {
      kept = JSON.parse(localStorage.getItem("gokata.seek") || "{}") || {};
    } catch {
      // none kept
    }
    for (const id of SEEK_FIELDS) {
      if (id === "handicap") fillHandicaps();
      const value = kept[id];
      if (typeof value !== "string") continue;
      const field = $(id);
      if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === value)) field.value = value;
    }
    fillHandicaps();
    showCustomTime();
  }

  for (const [key, time] of Object.entries(PRESETS)) if (time) $("time").querySelector(`[value="${key}"]`).textContent = timeText(time);
  for (const id of ["rated", "size"]) $(id).addEventListener("change", fillHandicaps);
  for (const id of ["time", "time-system"]) $(id).addEventListener("change", showCustomTime);

  // --- the leaderboard and the players' pages ----------------------------------------------

  // `#leaderboard`, and `#player=NAME` (`&before=ID`: the page of games older than that one).
  function route() {
    const hash = location.hash.slice(1);
    if (hash === "leaderboard") return { page: "leaderboard" };
    const match = /^player=([^&]+)(?:&before=([A-Za-z0-9]+))?$/.exec(hash);
    if (!match) return { page: null };
    try {
      return { page: "player", name: decodeURIComponent(match[1]), before: match[2] || null };
    } catch {
      return { page: null };
    }
  }

  async function getJSON(path) {
    const response = await fetch(path);
    let body = null;
    try {
      body = await response.json();
    } catch {
      // not JSON
    }
    if (!response.ok) throw new Error((body && body.error) || `the server answered ${response.status}`);
    return body;
  }

  let shownRoute = ""; // the address whose page is shown or on its way

  // Fetches and shows the page of the address (the leaderboard or a player's), once per visit.
  async function showDirectory() {
    const where = route();
    if (!where.page) {
      shownRoute = "";
      return;
    }
    if (shownRoute === location.hash) return;
    const hash = (shownRoute = location.hash);
    const body = $("directory-body");
    $("directory-title").textContent = where.page === "leaderboard" ? "Leaderboard" : where.name;
    body.replaceChildren(element("p", { className: "help" }, "Loading…"));
    try {
      const [heading, parts] = where.page === "leaderboard" ? ["Leaderboard", await leaderboard()] : await playerPage(where);
      if (shownRoute !== hash) return;
      $("directory-title").replaceChildren(...[].concat(heading));
      body.replaceChildren(...parts);
    } catch (problem) {
      if (shownRoute === hash) body.replaceChildren(element("p", { className: "help" }, `${title(problem.message)}.`));
    }
  }

  async function leaderboard() {
    const { players } = await getJSON("/api/leaderboard");
    if (!players.length) return [element("p", { className: "help" }, "Nobody has a settled rank yet: it takes a few rated games.")];
    const cells = (tag, texts) => element("tr", {}, ...texts.map((text) => element(tag, {}, ...[].concat(text))));
    const rows = players.map((p, i) => cells("td", [String(i + 1), playerName(p.name, p.bot), p.rank,
      String(Math.round(p.rating)), `${p.wins}–${p.losses}`]));
    const table = element("table", { id: "leaderboard-table" },
      element("thead", {}, cells("th", ["#", "Player", "Rank", "Rating", "Won–lost"])), element("tbody", {}, ...rows));
    return [table, element("p", { className: "help" }, "Players with a settled rank (a rating deviation under 160), by rating.")];
  }

  async function playerPage({ name, before }) {
    const query = before ? `?before=${encodeURIComponent(before)}` : "";
    const [p, list] = await Promise.all([
      getJSON(`/api/players/${encodeURIComponent(name)}`),
      getJSON(`/api/players/${encodeURIComponent(name)}/games${query}`),
    ]);
    const heading = [p.name, ...playerName(p.name, p.bot, p.rank).slice(1)];
    const summary = element("p", { id: "player-summary" }, `Rating ${Math.round(p.rating)} ± ${Math.round(p.deviation)}, ` +
      `${plural(p.rated_games, "rated game")}; ${plural(p.wins, "win")}, ${plural(p.losses, "loss")}.`);
    const games = list.games.map((g) => gameItem(p.name, g));
    if (!games.length) games.push(element("li", { className: "none" }, before ? "No older games." : "No finished game yet."));
    const pages = element("p", { className: "pages" });
    if (before) pages.append(element("a", { href: playerHref(p.name) }, "Newest games"), " ");
    if (list.games.length >= 50) {
      const last = list.games[list.games.length - 1].id;
      pages.append(element("a", { id: "next-page", href: `${playerHref(p.name)}&before=${encodeURIComponent(last)}` }, "Next page"));
    }
    const listed = element("ul", { id: "player-games" }, ...games);
    return [heading, [summary, element("h3", {}, before ? "Older games" : "Finished games"), listed, pages]];
  }

  // One finished game of the player's list, in the player's words: "Won against bob 5k (white),
  // 9×9, by resignation; rated, 10 min + 5 × 30 s byo-yomi; 1500 → 1662 (4k?). View".
  function gameItem(name, g) {
    const color = g.black.toLowerCase() === name.toLowerCase() ? "black" : "white";
    const opponent = other(color);
    const outcome = g.winner === null ? "Draw" : g.winner === color ? "Won" : "Lost";
    let how = { resign: "by resignation", timeout: "on time", passes: "after two passes" }[g.reason] || g.reason;
    if (g.score) {
      const margin = Math.abs(g.score.black - (g.score.white + g.score.komi));
      how = margin ? `by ${margin} points` : "on points";
    }
    const terms = termsText(g);
    const rating = g.ratings ? `; ${change(g.ratings[color])}` : "";
    const item = element("li", {}, element("strong", {}, outcome), ` as ${color} against `,
      ...playerName(g[opponent], false, g.ranks && g.ranks[opponent]),
      `, ${g.size}×${g.size}, ${how}, ${plural(g.moves, "move")}; ${terms}${rating}. `);
    item.dataset.game = g.id;
    // A game of one's own being played stays in this tab: another game opens in a new one.
    const busy = game && game.status === "playing" && myColor();
    item.append(element("a", { href: `#game=${encodeURIComponent(g.id)}`, ...(busy ? { target: "_blank" } : {}) }, "View"));
    return item;
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
    showDirectory();
    render();
  });

  $("seek-form").addEventListener("submit", (event) => {
    event.preventDefault();
    let frame;
    try {
      frame = seekFrame();
    } catch (problem) {
      return showError(problem.message);
    }
    keepSeekChoices();
    showError("");
    putAwayGame();
    render();
    send(frame);
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
  restoreSeekChoices();
  showDirectory();
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
