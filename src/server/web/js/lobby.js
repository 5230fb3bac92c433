// The lobby: the seeks waiting and the games being played, pushed by the server (`lobby`) while
// the page watches it, that is while it is on show in a tab that is not hidden (`follow`). A
// seek waiting can be taken: the page seeks a game that fits it.

import { S, live } from "./state.js";
import { $, element, named, playerName, sizesText, termsText } from "./util.js";
import { send } from "./connection.js";
import { myColor, putAwayGame } from "./game.js";
import { keepSeekChoices } from "./seekform.js";
import { render, showError } from "./render.js";

const WANTS = { human: "wants a person", computer: "wants the computer", any: "wants anyone" };
const COLOURS = { any: "any colour", black: "black", white: "white" };
const OPPOSITE = { black: "white", white: "black", any: "any" };

export const lobbyShown = () => !$("lobby").hidden && !document.hidden;

const own = (seek) => Boolean(S.me) && seek.name.toLowerCase() === S.me.name.toLowerCase();

// Whether the signed-in player (a person) may take this seek: not its own, and one that
// accepts a person (a program's seek is taken by asking for the computer).
const takeable = (seek) => Boolean(S.me) && !own(seek) && (seek.bot || seek.opponent !== "computer");

export function showSeeks(seeks) {
  S.seeks = seeks;
  const items = seeks.map((seek) => {
    const item = lobbyItem(seek.name, seek.bot, seek.rank);
    item.dataset.seek = seek.name;
    const wants = WANTS[seek.opponent] || seek.opponent;
    item.append(`, ${sizesText(seek.size)}, ${COLOURS[seek.color] || seek.color}, ${wants}, ${termsText(seek)}`);
    if (takeable(seek)) {
      const button = element("button", { type: "button", className: "take" }, "Play");
      button.setAttribute("aria-label", `Play ${named(seek.name, seek.bot)}: ${sizesText(seek.size)}, ${termsText(seek)}`);
      button.addEventListener("click", () => takeSeek(seek));
      item.append(" ", button);
      item.classList.add("takeable");
    } else if (own(seek)) {
      item.append(" ", element("span", { className: "yours" }, "(your seek)"));
    }
    return item;
  });
  fillList("lobby-seeks", items, "Nobody is waiting for an opponent.");
  defaultOpponent();
}

// The seek that fits `seek`: a size it accepts (the form's, if it is one of them), the other
// colour, the same terms; a program's asked for as the computer.
export function fittingSeek(seek, preferredSize) {
  const sizes = Array.isArray(seek.size) ? seek.size : [seek.size];
  const size = sizes.includes(preferredSize) ? preferredSize : sizes[0];
  const frame = {
    type: "seek", size, color: OPPOSITE[seek.color] || "any", opponent: seek.bot ? "computer" : "human",
    rated: seek.rated !== false, handicap: seek.handicap === undefined ? 0 : seek.handicap,
  };
  if (seek.komi !== undefined) frame.komi = seek.komi;
  if (seek.time) frame.time = seek.time;
  if (seek.scoring) frame.scoring = seek.scoring;
  return frame;
}

function takeSeek(seek) {
  if (!S.me) return showError("Sign in to play.");
  if (live(S.game) && myColor()) return showError("Finish your game first.");
  keepSeekChoices();
  showError("");
  putAwayGame();
  render();
  send(fittingSeek(seek, Number($("size").value)));
}

// The seek form asks for a person unless only programs wait: then for either, so that a
// player who seeks finds a game at once. A choice the player made on the page stands.
function defaultOpponent() {
  if (S.opponentChosen || S.seeking) return;
  const others = S.seeks.filter((seek) => !own(seek));
  const program = others.some((seek) => seek.bot);
  const person = others.some((seek) => !seek.bot);
  $("opponent").value = program && !person ? "any" : "human";
}

export function showGames(games, total) {
  const items = games.map((listed) => {
    const rank = (color) => listed.ranks && listed.ranks[color];
    const item = lobbyItem(listed.black, listed.bots.black, rank("black"));
    item.dataset.game = listed.id;
    item.append(" against ", ...playerName(listed.white, listed.bots.white, rank("white")));
    item.append(`, ${listed.size}×${listed.size}, move ${listed.moves} `);
    const link = element("a", { href: `#game=${encodeURIComponent(listed.id)}`, className: "watch" }, "Watch");
    link.setAttribute("aria-label", `Watch ${named(listed.black, listed.bots.black)} against ${named(listed.white, listed.bots.white)}`);
    item.append(link);
    return item;
  });
  if (total > games.length) items.push(element("li", {}, `And ${total - games.length} more.`));
  fillList("lobby-games", items, "No game is being played.");
}

// A list item that starts with a player's name.
function lobbyItem(name, bot, rank) {
  return element("li", {}, ...playerName(name, bot, rank));
}

function fillList(id, items, empty) {
  if (!items.length) items.push(element("li", { className: "none" }, empty));
  $(id).replaceChildren(...items);
}
