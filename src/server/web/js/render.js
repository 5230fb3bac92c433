// Drawing the page from what it knows: which parts are on show, the seats beside the board,
// the controls of the moment; and telling a player in another tab that the turn has come.

import { S, live } from "./state.js";
import { $, gameTermsText, plural, playerHref, record, shown } from "./util.js";
import { follow } from "./connection.js";
import { captures, gone, isBot, lastPasser, mayUndo, myColor, who } from "./game.js";
import { markLastMove } from "./board.js";
import { tick } from "./clock.js";
import { route } from "./directory.js";
import { renderChat } from "./chat.js";
import { renderScoring } from "./scoring.js";
import { noticeText, ratingsText, resultText, statusLine } from "./words.js";

export function setStatus(text) {
  $("status").textContent = text;
}

export function showError(text) {
  $("error").textContent = text;
}

export function render() {
  const { me, game, seeking } = S;
  $("player").textContent = me ? record(me) : "Not signed in";
  $("player-link").href = me ? playerHref(me.name) : "#";
  $("my-rank").hidden = !me;
  if (me) {
    $("my-rank").textContent = me.rank || "";
    $("my-rank").title = `Rating ${Math.round(me.rating)} ± ${Math.round(me.deviation)}`;
  }
  const going = live(game);
  const playing = going && game.status === "playing";
  const mine = myColor();
  const away = Boolean(route().page); // the leaderboard or a player's page is on show
  $("directory").hidden = !away;
  $("directory-back").textContent = going && mine ? "Back to your game" : game ? "Back to the game" : "Back to the lobby";
  $("signin-panel").hidden = Boolean(me) || away;
  $("signout").hidden = !me;
  $("token-box").hidden = !me;
  $("options").hidden = !me || away;
  $("seek-panel").hidden = !me || away || (going && mine !== null);
  $("seek").hidden = Boolean(seeking);
  $("cancel").hidden = !seeking;
  $("game-panel").hidden = !game || away;
  $("extras").hidden = !game || away;
  $("lobby").hidden = Boolean(game) || away; // a game on show has the window to itself
  $("to-lobby").hidden = !game || (going && mine !== null);
  document.body.classList.toggle("with-game", Boolean(game) && !away);
  document.body.classList.toggle("spectator", Boolean(game) && !mine);
  renderControls(game, mine, going, playing);
  if (game) {
    $("game-title").textContent = `${who("black")} (black) against ${who("white")} (white), ${game.size}×${game.size}`;
    renderSeats();
    markLastMove();
    $("sgf").href = `/api/games/${encodeURIComponent(game.id)}.sgf`;
  }
  const notice = noticeText();
  if ($("notice").textContent !== notice) $("notice").textContent = notice;
  $("result").textContent = resultText();
  $("ratings").textContent = ratingsText();
  $("terms").textContent = game ? gameTermsText(game) : "";
  renderScoring();
  renderChat();
  setStatus(statusLine());
  tick();
  tellTurn();
  follow();
}

// Pass, Undo and Resign for the players (never a spectator's), an undo asked of the player,
// what a player may do while the game is scored.
function renderControls(game, mine, going, playing) {
  const player = Boolean(mine);
  const scoring = going && game.status === "scoring";
  $("pass").hidden = !player || scoring || !going;
  $("pass").disabled = !playing || mine !== game.to_move || Boolean(S.pending);
  $("undo").hidden = !player || !playing;
  $("undo").disabled = !mayUndo();
  $("resign").hidden = !player || !going;
  $("resign").disabled = !going || !player;
  $("play-help").hidden = !player || !playing;
  const asked = S.undo && game && S.undo.game === game.id && player && S.undo.by !== mine && playing;
  $("undo-offer").hidden = !asked;
  if (asked) {
    const last = game.moves.length ? game.moves[game.moves.length - 1] : undefined;
    const what = last ? `their last move (${shown(last)})` : "their last turn";
    $("undo-question").textContent = `${who(S.undo.by)} asks to take back ${what}.`;
  }
}

// Both players beside the board: the one to move marked, their captures, a pass just made,
// a player who left.
function renderSeats() {
  const game = S.game;
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

// --- telling a player in another tab that their turn has come ---------------------------

const PAGE_TITLE = document.title;

export function tellTurn() {
  const game = S.game;
  const now = Boolean(game) && game.status === "playing" && myColor() === game.to_move;
  if (now && !S.myTurn && document.hidden && $("sound").checked) beep();
  S.myTurn = now;
  document.title = now && document.hidden ? `Your move (${game.to_move}) · ${PAGE_TITLE}` : PAGE_TITLE;
}

export function beep() {
  const audio = S.audio;
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

export function soundOn() {
  S.audio = S.audio || new AudioContext();
  S.audio.resume();
}
