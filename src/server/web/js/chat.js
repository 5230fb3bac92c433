// A chat box for the game shown: its players and its watchers. Every message is written as
// text, never as markup. The watchers' channel is marked as such, and may be hidden.

import { S } from "./state.js";
import { $, element } from "./util.js";
import { send } from "./connection.js";
import { myColor } from "./game.js";

const KEPT = 100; // as many as a STATE carries
let sent = 0; // chat frames sent: each carries its own `ref`, to place its error in the box
let problem = ""; // why the last message was not taken, told until the next one is sent

// One message as a list item: "alice: good luck", a spectator's marked.
function item(message) {
  const watchers = message.channel === "watchers";
  const li = element("li", { className: watchers ? "watchers" : "players" });
  if (watchers) li.append(element("span", { className: "channel", title: "Said among the spectators" }, "spectator"), " ");
  li.append(element("strong", { className: "from" }, message.from), ": ", element("span", { className: "text" }, message.text));
  li.dataset.ply = String(message.ply);
  return li;
}

// The game's messages as its state gives them (a new game, a reload, a resynchronisation).
export function showChat() {
  const game = S.game;
  const messages = (game && game.chat) || [];
  problem = "";
  $("chat-log").replaceChildren(...messages.map(item));
  scrollDown(true);
}

// A message as the server relays it.
export function addChat(message) {
  const game = S.game;
  const { type, game: id, ref, ...kept } = message;
  game.chat = [...(game.chat || []), kept].slice(-KEPT);
  const log = $("chat-log");
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  log.append(item(kept));
  while (log.children.length > KEPT) log.firstElementChild.remove();
  scrollDown(atEnd);
  renderChat();
}

function scrollDown(wanted) {
  const log = $("chat-log");
  if (wanted) log.scrollTop = log.scrollHeight;
}

export function renderChat() {
  const game = S.game;
  const signedIn = Boolean(S.me);
  $("chat").hidden = !game || $("game-panel").hidden;
  $("chat-text").disabled = !signedIn;
  $("chat-send").disabled = !signedIn;
  const muted = $("chat-hide-watchers").checked;
  $("chat-log").classList.toggle("mute-watchers", muted);
  const watcherSaid = Boolean(game && game.chat && game.chat.some((m) => m.channel === "watchers"));
  let note = "";
  if (!signedIn) note = "Sign in to chat.";
  else if (game && !myColor() && game.status !== "over") note = "As a spectator, you speak to the other spectators until the game is over.";
  if (muted && watcherSaid) note = `${note} Spectators' messages are hidden.`.trim();
  if (problem) note = problem;
  if ($("chat-note").textContent !== note) $("chat-note").textContent = note;
  $("chat-log").hidden = !(game && game.chat && game.chat.length);
}

// What a chat frame's error says, told in the box (true), or not one of the box's (false).
export function chatError(message) {
  if (typeof message.ref !== "string" || !message.ref.startsWith("chat-")) return false;
  problem = message.message;
  renderChat();
  return true;
}

export function initChat() {
  $("chat-hide-watchers").checked = localStorage.getItem("gokata.hideWatchers") === "on";
  $("chat-hide-watchers").addEventListener("change", () => {
    localStorage.setItem("gokata.hideWatchers", $("chat-hide-watchers").checked ? "on" : "off");
    renderChat();
  });
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const game = S.game;
    const text = $("chat-text").value.trim();
    if (!game || !S.me || !text) return;
    if (text.length > 500) {
      problem = `At most 500 characters: this message has ${text.length}.`;
    } else if (send({ type: "chat", game: game.id, text, ref: `chat-${++sent}` })) {
      problem = "";
      $("chat-text").value = "";
    } else {
      problem = "Not connected: the message was not sent.";
    }
    renderChat();
  });
}
