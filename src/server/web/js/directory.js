// The leaderboard (`#leaderboard`) and each player's finished games (`#player=NAME`, and
// `&before=ID` for the page of games older than that one), read from the HTTP API.

import { S, live } from "./state.js";
import { $, change, element, getJSON, other, playerHref, playerName, plural, termsText, title } from "./util.js";
import { myColor } from "./game.js";

export function route() {
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

let shownRoute = ""; // the address whose page is shown or on its way

// Fetches and shows the page of the address (the leaderboard or a player's), once per visit.
export async function showDirectory() {
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
  let how = { resign: "by resignation", timeout: "on time", passes: "after two passes", score: "on the score agreed" }[g.reason] || g.reason;
  if (g.score) {
    const margin = Math.abs(g.score.black - (g.score.white + g.score.komi));
    how = margin ? `by ${margin} points` : "on points";
  }
  const rating = g.ratings ? `; ${change(g.ratings[color])}` : "";
  const item = element("li", {}, element("strong", {}, outcome), ` as ${color} against `,
    ...playerName(g[opponent], false, g.ranks && g.ranks[opponent]),
    `, ${g.size}×${g.size}, ${how}, ${plural(g.moves, "move")}; ${termsText(g)}${rating}. `);
  item.dataset.game = g.id;
  // A game of one's own being played stays in this tab: another game opens in a new one.
  const busy = live(S.game) && myColor();
  item.append(element("a", { href: `#game=${encodeURIComponent(g.id)}`, ...(busy ? { target: "_blank" } : {}) }, "View"));
  return item;
}
