// The gokata page: sign in, seek (rated or not, a time control, a handicap, scoring by
// agreement) or take a seek from the lobby, play, take back a move, chat, agree on the dead
// stones, watch; the leaderboard and each player's games; on the v1 protocol
// (docs/protocol.md). No framework, no build step, no request to any other host. The server
// is the authority: the page shows what the server says and sends what the player does.
//
// The modules: state (what the page knows), connection, handlers (the server's frames),
// game, board, clock, words, render, lobby, seekform, directory, chat, scoring; this one wires
// the controls and starts the page.

import { S, live, saved } from "./state.js";
import { $ } from "./util.js";
import { connect, dropSocket, follow, keepConnectionWithThePage, send, watchedGame } from "./connection.js";
import { answerUndo, askUndo, myColor, play, putAwayGame } from "./game.js";
import { showGhost } from "./board.js";
import { tick } from "./clock.js";
import { showDirectory } from "./directory.js";
import { initChat } from "./chat.js";
import { acceptScore, resumePlay } from "./scoring.js";
import { initSeekForm, keepSeekChoices, seekFrame } from "./seekform.js";
import { beep, render, showError, soundOn, tellTurn } from "./render.js";

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
  S.wanted = name;
  S.wantedToken = token.toLowerCase() || null;
  S.me = null;
  leaveGame();
  connect();
  render();
});

$("signout").addEventListener("click", () => {
  localStorage.removeItem("gokata.current");
  S.wanted = null;
  S.me = null;
  leaveGame();
  dropSocket(); // a spectator's connection follows, if the page wants one
  render();
});

// Signing in or out: the player's game goes; a watched one stays.
function leaveGame() {
  if (S.game && S.game.id !== watchedGame()) S.game = null;
  S.seeking = null;
  S.pending = null;
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
  if (S.game && S.game.id !== watchedGame() && !myColor()) S.game = null;
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
$("undo").addEventListener("click", askUndo);
$("undo-accept").addEventListener("click", () => answerUndo(true));
$("undo-decline").addEventListener("click", () => answerUndo(false));
$("score-accept").addEventListener("click", acceptScore);
$("score-resume").addEventListener("click", resumePlay);
$("resign").addEventListener("click", () => {
  if (!live(S.game)) return;
  const button = $("resign");
  if (S.resignArmed) {
    clearTimeout(S.resignArmed);
    S.resignArmed = null;
    button.textContent = "Resign";
    send({ type: "resign", game: S.game.id });
    return;
  }
  button.textContent = "Really resign?";
  S.resignArmed = setTimeout(() => {
    S.resignArmed = null;
    button.textContent = "Resign";
  }, 4000);
});

keepConnectionWithThePage();
initSeekForm();
initChat();
setInterval(tick, 250);
showDirectory();
$("sound").checked = localStorage.getItem("gokata.sound") === "on";
$("confirm").checked = localStorage.getItem("gokata.confirm") !== "off";
const current = saved.current();
if (current && saved.token(current)) {
  S.wanted = current;
  $("name").value = current;
  connect();
}
render();
