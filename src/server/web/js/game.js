// The game shown: its state, who plays it, and what the player does in it.

import { S, live } from "./state.js";
import { STONE, getJSON, kata, named, other } from "./util.js";
import { send, stopWatching } from "./connection.js";
import { buildBoard, setStone, showGhost, showDead } from "./board.js";
import { showChat } from "./chat.js";
import { render, setStatus, showError } from "./render.js";

export function showGame(state) {
  const old = S.game;
  const fresh = !old || old.id !== state.id || old.size !== state.size;
  const moved = fresh || old.moves.length !== state.moves.length || state.status !== old.status;
  if (moved || !state.connected) S.back = []; // a player's return is told until the next turn
  if (!fresh && state.connected) noteComebacks(old.connected, state.connected);
  if (fresh) {
    S.undo = null;
    S.news = null;
    S.accepting = null;
  }
  if (!fresh && old.chat && !state.chat) state.chat = old.chat;
  // An undo asked and not yet answered comes with the state (after a reload, say).
  if ("undo" in state) S.undo = state.undo && live(state) ? { game: state.id, ply: state.undo.ply, by: state.undo.by } : null;
  S.game = state;
  S.deadline = live(state) ? performance.now() + state.remaining_ms : null;
  S.stopped = null;
  if (state.status === "playing" && myColor()) localStorage.setItem("gokata.game", state.id);
  if (fresh) {
    buildBoard(state.size);
    S.cursor = null;
  }
  if (moved) showGhost(null);
  if (state.status === "over" && !state.records) fetchRecords(state);
  if (state.status === "over" && state.rated && state.ratings === undefined) fetchRatings(state);
  for (let row = 0; row < state.size; row++) {
    for (let col = 0; col < state.size; col++) setStone(kata(state.size, row, col), state.board[row][col]);
  }
  showDead();
  showChat(fresh);
  render();
}

// A game seen after it ended (a reload, a watcher) gets its players' records from the API.
async function fetchRecords(state) {
  try {
    const records = {};
    for (const color of ["black", "white"]) {
      records[color] = await getJSON(`/api/players/${encodeURIComponent(state[color])}`);
    }
    if (S.game === state) {
      state.records = records;
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
    if (found && found.ratings && S.game === state) {
      state.ratings = found.ratings;
      render();
    }
  } catch {
    // The result stands without them.
  }
}

// Who came back, from what the game said before (`connected` of the STATE, null if none) to
// what it says now; one who left again is no longer back.
export function noteComebacks(before, after) {
  for (const color of ["black", "white"]) {
    if (!after[color]) S.back = S.back.filter((c) => c !== color);
    else if (before && before[color] === false && !S.back.includes(color)) S.back.push(color);
  }
}

// Whether the player of `color` has left the server while the game shown goes on.
export function gone(color) {
  const game = S.game;
  return live(game) && Boolean(game.connected) && game.connected[color] === false;
}

// The colour the signed-in player plays in the game shown, if any.
export function myColor() {
  const { game, me } = S;
  if (!game || !me) return null;
  const name = me.name.toLowerCase();
  if (game.black.toLowerCase() === name) return "black";
  if (game.white.toLowerCase() === name) return "white";
  return null;
}

export function playsIn(state) {
  return Boolean(S.me) && [state.black, state.white].some((name) => name.toLowerCase() === S.me.name.toLowerCase());
}

export const isBot = (color) => Boolean(S.game && S.game.bots && S.game.bots[color]);
// The name of the shown game's player of `color`.
export const who = (color) => named(S.game[color], isBot(color));

// Seeking again puts the last game, or a watched one, away: it is no longer shown, nor
// after a reload.
export function putAwayGame() {
  if (!S.game || (live(S.game) && myColor())) return;
  S.game = null;
  localStorage.removeItem("gokata.game");
  stopWatching();
}

// A stone on `point` (the kata form), or a pass (null), sent as the player's turn.
export function play(point) {
  const game = S.game;
  if (!game || game.status !== "playing") return;
  if (!S.me) return showError(`Only ${who("black")} and ${who("white")} play in this game: you are watching it.`);
  if (S.pending) return showError("Your last turn is still on its way.");
  const ply = game.moves.length;
  const frame = point === null ? { type: "pass", game: game.id, ply } : { type: "move", game: game.id, ply, point };
  S.pending = { game: game.id, ply, frame };
  showError("");
  if (!send(frame)) setStatus("Not connected: the turn is sent when the connection is back.");
}

// The colour of a turn: black moves first, but white in a handicap game.
const first = () => (S.game.handicap >= 2 ? "white" : "black");
export const colorOf = (ply) => (ply % 2 === 0 ? first() : other(first()));

// The stones each colour has taken: those its opponent played (black's handicap stones too),
// less those still on the board.
export function captures() {
  const game = S.game;
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
export function lastPasser() {
  const game = S.game;
  if (!game || game.status !== "playing" || !game.moves.length) return null;
  if (game.moves[game.moves.length - 1] !== null) return null;
  return colorOf(game.moves.length - 1);
}

// The time the players have to agree on the dead stones: five minutes, or the game's move time
// if shorter.
export function scoringTime(game) {
  const t = game.time;
  const most = 5 * 60 * 1000;
  return t && t.system === "per_move" ? Math.min(t.move_ms, most) : most;
}

// Whether the signed-in player may ask to take back the last turn now: its own, the opponent
// to move, nothing pending.
export function mayUndo() {
  const game = S.game;
  const mine = myColor();
  if (!game || game.status !== "playing" || !mine || S.pending || S.undo) return false;
  return game.moves.length > 0 && colorOf(game.moves.length - 1) === mine && game.to_move !== mine;
}

export function askUndo() {
  if (!mayUndo()) return;
  send({ type: "undo", game: S.game.id, ply: S.game.moves.length });
}

export function answerUndo(accept) {
  const request = S.undo;
  if (!request || !S.game || request.game !== S.game.id) return;
  send({ type: "undo_answer", game: request.game, ply: request.ply, accept });
  if (!accept) S.undo = null;
  render();
}
