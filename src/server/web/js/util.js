// Small helpers of every module: elements, points, and the words the page writes. Player names
// and anything else the server relays are written as text, never as HTML.

export const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
export const SVG = "http://www.w3.org/2000/svg";
export const STONE = { black: "x", white: "o", empty: "." };

export const $ = (id) => document.getElementById(id);
export const other = (color) => (color === "black" ? "white" : "black");

// A new element with these properties, holding these children (text as text).
export function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

// A new SVG element with these attributes, appended to `parent` if given.
export function node(name, attributes, parent) {
  const made = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value);
  if (parent) parent.appendChild(made);
  return made;
}

// --- points ---------------------------------------------------------------------------------
// The protocol names points number first ("3C", the kata form); players read them letter first
// ("C3"), as on the board's edges and in every Go program.

// The protocol's name of the point at `row` (0 the top) and `col` of a board of `size`.
export const kata = (size, row, col) => `${size - row}${LETTERS[col]}`;

// [row, col] of a point in the kata form.
export const rowCol = (size, point) => [size - parseInt(point, 10), LETTERS.indexOf(point.slice(-1).toUpperCase())];

// "3C" as players read it: "C3".
export function shown(point) {
  const match = /^(\d{1,2})([A-Z])$/i.exec(point || "");
  return match ? `${match[2].toUpperCase()}${match[1]}` : point;
}

// A server's message with its points written letter first ("illegal move 5E for black" to
// "illegal move E5 for black").
export const pointsShown = (text) => text.replace(/\b(\d{1,2})([A-HJ-Z])\b/g, "$2$1");

// --- words ----------------------------------------------------------------------------------

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;
export const title = (word) => word[0].toUpperCase() + word.slice(1);
// A name in words, marked when the player is a program (a bot).
export const named = (name, bot) => (bot ? `${name} [bot]` : name);
export const record = (r) => `${named(r.name, r.bot)}: ${plural(r.wins, "win")}, ${plural(r.losses, "loss")}`;
export const playerHref = (name) => `#player=${encodeURIComponent(name)}`;
// A rating change: "1500 → 1662 (4k?)".
export const change = (r) => `${Math.round(r.before)} → ${Math.round(r.after)} (${r.rank})`;

// A duration in words: "5 min", "30 s", "1 day", "1 h 30 min", "1.5 s".
export function span(ms) {
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
export function timeText(t) {
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
export function termsText(t) {
  const parts = [t.rated === false ? "unrated" : "rated"];
  if (t.handicap === "auto") parts.push("handicap from the ranks");
  else if (t.handicap > 0) parts.push(`${t.handicap} handicap stones`);
  if (t.rated === false) parts.push(`komi ${t.komi}`);
  parts.push(timeText(t.time));
  if (t.scoring === "agreement") parts.push("scored by agreement");
  return parts.join(", ");
}

// A game's terms (STATE): "Rated, even, komi 0.5, 10 min + 5 × 30 s byo-yomi."
export function gameTermsText(g) {
  const stones = g.handicap >= 2 ? `${g.handicap} handicap stones` : "even";
  const rated = g.rated === undefined ? "" : g.rated ? "Rated, " : "Unrated, ";
  const scoring = g.scoring === "agreement" ? ", scored by agreement" : "";
  return title(`${rated}${stones}, komi ${g.komi}${g.time ? `, ${timeText(g.time)}` : ""}${scoring}.`);
}

// One size (9) or several ([9, 13]): "9×9", "9×9 or 13×13".
export function sizesText(size) {
  const sizes = (Array.isArray(size) ? size : [size]).map((n) => `${n}×${n}`);
  return sizes.length === 1 ? sizes[0] : `${sizes.slice(0, -1).join(", ")} or ${sizes[sizes.length - 1]}`;
}

// A time left as a clock shows it, whole seconds rounded up: "4:59", "1:02:03", "2d 5h".
export function countdown(ms) {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const two = (n) => String(n).padStart(2, "0");
  if (s >= 86400) return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 60)}:${two(s % 60)}`;
}

// A name as shown beside the board, a link to the player's page: then the rank, if known; a
// program's carries a "bot" badge.
export function playerName(name, bot, rank) {
  const parts = [element("a", { className: "name", href: playerHref(name) }, name)];
  if (rank) parts.push(" ", element("span", { className: "rank" }, rank));
  if (bot) parts.push(" ", element("span", { className: "bot", title: "A program, not a person" }, "bot"));
  return parts;
}

export async function getJSON(path) {
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
