// What the page does with each frame of the server (docs/protocol.md). The server is the
// authority: the page shows what it says.

import { S, live, saved } from "./state.js";
import { $, STONE, pointsShown, shown, title } from "./util.js";
import { send, dropSocket, stopWatching, watchedGame, showWatchError } from "./connection.js";
import { showGame, playsIn, noteComebacks, colorOf, who, myColor, scoringTime } from "./game.js";
import { setStone, showGhost, showDead } from "./board.js";
import { elapsed } from "./clock.js";
import { showSeeks, showGames } from "./lobby.js";
import { route } from "./directory.js";
import { addChat, chatError } from "./chat.js";
import { render, setStatus, showError } from "./render.js";

// An acceptance that crossed another change of the scoring phase (through another server
// process) is answered with the game's state: sent again if the marks are still those
// accepted, else the player looks at them again.
function acceptedAgain(accepted, marks) {
  const mine = myColor();
  if (!mine || marks.accepted[mine]) return;
  const same = [...accepted.dead].sort().join() === [...marks.dead].sort().join();
  if (same && accepted.tries < 3) {
    S.accepting = { ...accepted, tries: accepted.tries + 1 };
    send({ type: "accept", game: accepted.game, dead: marks.dead });
  } else {
    S.news = { game: accepted.game, text: "The marks changed before your acceptance reached the server: check them, and accept again." };
  }
  render();
}

export const handlers = {
  welcome(m) {
    S.me = { name: m.name, wins: m.wins, losses: m.losses, bot: m.bot === true, rating: m.rating, deviation: m.deviation, rank: m.rank };
    saved.keep(m.name, m.token);
    S.wantedToken = null;
    $("name").value = m.name;
    $("token").value = "";
    $("my-token").textContent = m.token;
    const remembered = localStorage.getItem("gokata.game");
    const watch = watchedGame();
    const find = (id) => m.games.find((g) => g.id === id);
    const mine = watch ? find(watch) : (S.game && find(S.game.id)) || find(remembered) || m.games[0];
    if (mine) {
      showGame(mine);
    } else if (!watch && (S.game || remembered)) {
      // The last game is over (a reload, or it ended while we were away): show how.
      send({ type: "sync", game: S.game ? S.game.id : remembered });
    }
    const { pending, game } = S;
    if (pending && game && pending.game === game.id && game.status === "playing" && game.moves.length === pending.ply) {
      send(pending.frame); // the ply makes a resent turn harmless
    } else {
      S.pending = null;
    }
    if (S.seeking) send({ type: "seek", ...S.seeking });
    render();
  },
  seeking(m) {
    const { type, ref, ...terms } = m;
    S.seeking = { opponent: "human", ...terms };
    render();
  },
  cancelled() {
    S.seeking = null;
    render();
  },
  start(m) {
    S.seeking = null;
    S.pending = null;
    stopWatching();
    if (route().page) location.hash = ""; // from the leaderboard or a player's page to the game
    showGame(m.game);
  },
  played(m) {
    const game = S.game;
    if (!game || m.game !== game.id) return;
    if (m.ply !== game.moves.length) {
      // A turn missed: the whole state again (a spectator, without a name, watches it again).
      if (m.ply > game.moves.length) send({ type: S.me ? "sync" : "watch", game: game.id });
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
    S.deadline = performance.now() + m.remaining_ms;
    S.back = [];
    S.undo = null; // a turn played answers any request to take one back
    S.news = null;
    game.lastCaptured = m.captured.length;
    if (S.pending && S.pending.ply === m.ply) S.pending = null;
    showError("");
    render();
  },
  over(m) {
    if (m.game === S.watching) S.watching = null; // the server's watch ends with the game
    // The player's record changes whichever of its games ended.
    for (const color of ["black", "white"]) {
      const record = m.records[color];
      if (S.me && record.name.toLowerCase() === S.me.name.toLowerCase()) Object.assign(S.me, record);
    }
    const game = S.game;
    if (!game || m.game !== game.id) return render();
    S.stopped = m.reason === "timeout" ? game.move_time_ms : elapsed(game.to_move);
    Object.assign(game, { status: "over", winner: m.winner, reason: m.reason, score: m.score, remaining_ms: null });
    game.records = m.records;
    game.ratings = m.ratings || null;
    S.pending = null;
    S.undo = null;
    S.accepting = null;
    render();
  },
  state(m) {
    const incoming = m.game;
    const replaces = !S.game || incoming.id === S.game.id || !live(S.game);
    if (incoming.id !== watchedGame() && !(replaces && playsIn(incoming))) return;
    if (incoming.id === S.watching && !live(incoming)) S.watching = null;
    if (incoming.id === watchedGame()) showWatchError(null);
    const accepted = S.accepting;
    S.accepting = null;
    showGame(incoming);
    const { pending } = S;
    if (pending && (incoming.status !== "playing" || incoming.moves.length !== pending.ply)) S.pending = null;
    if (accepted && accepted.game === incoming.id && incoming.status === "scoring" && incoming.marks) {
      acceptedAgain(accepted, incoming.marks);
    }
  },
  error(m) {
    if (m.code === "bad_token" || m.code === "name_taken") {
      if (m.code === "bad_token" && S.wanted && !S.wantedToken) saved.forget(S.wanted);
      S.wanted = null;
      S.wantedToken = null;
      S.me = null;
      dropSocket(); // a spectator's connection follows, if the page wants one
      showError(m.message);
      render();
      $("token").focus();
      return;
    }
    if (chatError(m)) return;
    if (m.code === "unknown_game" && m.game === S.watching && m.game === watchedGame()) {
      showWatchError(`${title(m.message)}.`); // not watched again until the address changes
      return;
    }
    if (m.game && S.pending && S.pending.game === m.game) S.pending = null;
    if (m.game && S.accepting && S.accepting.game === m.game) S.accepting = null;
    // Points in the server's words are written letter first, as the page writes them.
    const withPoints = m.game && (m.code === "illegal_move" || m.code === "bad_request");
    showError(withPoints ? pointsShown(m.message) : m.message);
    render();
  },
  // The opponent left the server, or is back (a player hears only of the game's opponent).
  presence(m) {
    const game = S.game;
    if (!game || m.game !== game.id || !live(game) || !game.connected) return;
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

  // --- undo ---------------------------------------------------------------------------------
  undo_requested(m) {
    if (!S.game || m.game !== S.game.id) return;
    S.undo = { game: m.game, ply: m.ply, by: m.by };
    render();
  },
  undone(m) {
    const game = S.game;
    if (game && m.game.id === game.id && game.moves.length) {
      const ply = game.moves.length - 1;
      const point = game.moves[ply];
      const color = colorOf(ply);
      const what = point ? `move ${shown(point)}` : "pass";
      S.news = { game: game.id, text: `${title(color)}'s ${what} was taken back: ${color} to play again.` };
    }
    S.undo = null;
    S.pending = null;
    if (game && m.game.id === game.id) showGame(m.game);
  },
  undo_declined(m) {
    if (!S.game || m.game !== S.game.id) return;
    S.undo = null;
    const opponent = myColor() === "black" ? "white" : "black";
    S.news = { game: m.game, text: `${who(opponent)} did not take back your move.` };
    render();
  },

  // --- chat -----------------------------------------------------------------------------------
  chat(m) {
    if (!S.game || m.game !== S.game.id) return;
    addChat(m);
  },

  // --- scoring by agreement -------------------------------------------------------------------
  scoring(m) {
    const game = S.game;
    if (!game || m.game !== game.id || game.status === "over") return;
    if (game.status !== "scoring") {
      game.status = "scoring";
      game.move_time_ms = game.remaining_ms = scoringTime(game);
      S.deadline = performance.now() + game.remaining_ms;
      showGhost(null);
    }
    game.marks = { dead: m.dead, score: m.score, accepted: m.accepted };
    if (S.accepting && S.accepting.game === game.id && S.accepting.dead.join() !== m.dead.join()) S.accepting = null;
    showDead();
    render();
  },
  resumed(m) {
    if (!S.game || m.game.id !== S.game.id) return;
    S.accepting = null;
    S.news = { game: m.game.id, text: `Play resumed: ${m.game.to_move} to play.` };
    showGame(m.game);
  },

  unwatched() {},
  unwatched_lobby() {},
  pong() {},
};
