// The board: an SVG of the game's size, its coordinates outside the grid (a stone on an edge
// line never hides them), the stones, the last move, a stone shown before a tap plays it, the
// stones marked dead while the game is scored, and a keyboard cursor.

import { S } from "./state.js";
import { $, LETTERS, STONE, kata, node, rowCol, shown } from "./util.js";
import { myColor, play } from "./game.js";
import { markChain } from "./scoring.js";
import { render, setStatus } from "./render.js";
import { statusLine } from "./words.js";

const STARS = {
  9: [[2, 2], [2, 6], [6, 2], [6, 6], [4, 4]],
  13: [[3, 3], [3, 9], [9, 3], [9, 9], [6, 6]],
  19: [3, 9, 15].flatMap((r) => [3, 9, 15].map((c) => [r, c])),
};
// From the board's edge to the first line: room for the coordinates beside a stone's edge.
const MARGIN = 1.2;
const RADIUS = 0.48;

export function buildBoard(size) {
  const extent = size - 1 + 2 * MARGIN;
  const at = (i) => MARGIN + i;
  const svg = node("svg", {
    viewBox: `0 0 ${extent} ${extent}`, role: "img", tabindex: "0", id: "board",
    "aria-label": `${size} by ${size} Go board; arrow keys move the cursor, Enter plays`,
  });
  node("rect", { x: 0, y: 0, width: extent, height: extent, fill: "#dcb35c" }, svg);
  const lines = node("g", { stroke: "#3b2f1a", "stroke-width": 0.035, "stroke-linecap": "square" }, svg);
  for (let i = 0; i < size; i++) {
    node("line", { x1: at(0), y1: at(i), x2: at(size - 1), y2: at(i) }, lines);
    node("line", { x1: at(i), y1: at(0), x2: at(i), y2: at(size - 1) }, lines);
  }
  for (const [row, col] of STARS[size] || []) node("circle", { cx: at(col), cy: at(row), r: 0.1, fill: "#3b2f1a" }, svg);
  const labels = node("g", {
    class: "coords", "font-size": 0.4, "text-anchor": "middle", "dominant-baseline": "central", fill: "#1b1b1b",
    "font-family": "system-ui, sans-serif", "aria-hidden": "true",
  }, svg);
  const edge = 0.36; // the labels' middle, from the board's edge
  for (let i = 0; i < size; i++) {
    for (const y of [edge, extent - edge]) node("text", { x: at(i), y }, labels).textContent = LETTERS[i];
    for (const x of [edge, extent - edge]) node("text", { x, y: at(i) }, labels).textContent = String(size - i);
  }
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const [cx, cy] = [at(col), at(row)];
      const g = node("g", { class: "pt", "data-point": kata(size, row, col), "data-stone": "empty" }, svg);
      node("rect", { class: "hover", x: cx - 0.5, y: cy - 0.5, width: 1, height: 1 }, g);
      node("circle", { class: "stone", cx, cy, r: RADIUS, display: "none" }, g);
      node("circle", { class: "mark", cx, cy, r: 0.2, fill: "none", "stroke-width": 0.08, display: "none" }, g);
      node("circle", { class: "ghost", cx, cy, r: RADIUS, display: "none" }, g);
      const cross = node("g", { class: "dead", stroke: "#c1121f", "stroke-width": 0.1, "stroke-linecap": "round", display: "none" }, g);
      node("line", { x1: cx - 0.22, y1: cy - 0.22, x2: cx + 0.22, y2: cy + 0.22 }, cross);
      node("line", { x1: cx - 0.22, y1: cy + 0.22, x2: cx + 0.22, y2: cy - 0.22 }, cross);
    }
  }
  node("rect", { class: "cursor", x: 0, y: 0, width: 0.9, height: 0.9, display: "none" }, svg);
  svg.addEventListener("pointerdown", (event) => {
    S.pointer = event.pointerType;
  });
  svg.addEventListener("click", (event) => {
    const target = event.target.closest(".pt");
    if (target) chosen(target.dataset.point);
  });
  svg.addEventListener("keydown", onBoardKey);
  $("board-wrap").replaceChildren(svg);
}

const point = (name) => document.querySelector(`.pt[data-point="${name}"]`);

// The stone on a point, in the game's board and on the page.
export function setStone(name, symbol) {
  const game = S.game;
  const [row, col] = rowCol(game.size, name);
  const line = game.board[row];
  game.board[row] = line.slice(0, col) + symbol + line.slice(col + 1);
  const g = point(name);
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
// a tap on the player's turn shows the stone, and a second tap on it plays it. While the game
// is scored, a click marks the chain dead or alive.
function chosen(name) {
  const game = S.game;
  if (game && game.status === "scoring") return markChain(name);
  const confirm = S.pointer === "touch" && $("confirm").checked;
  const myMove = game && game.status === "playing" && myColor() === game.to_move && !S.pending;
  if (confirm && myMove && name !== S.ghost) {
    showGhost(name);
    render();
    return;
  }
  if (S.ghost) {
    showGhost(null);
    render();
  }
  play(name);
}

export function showGhost(name) {
  for (const g of document.querySelectorAll(".pt[data-ghost]")) {
    delete g.dataset.ghost;
    g.querySelector(".ghost").setAttribute("display", "none");
  }
  S.ghost = name;
  const g = name && point(name);
  if (!g) return;
  g.dataset.ghost = "true";
  const circle = g.querySelector(".ghost");
  circle.setAttribute("fill", myColor() === "black" ? "#111" : "#fafafa");
  circle.setAttribute("display", "inline");
}

export function markLastMove() {
  for (const g of document.querySelectorAll(".pt[data-last]")) {
    delete g.dataset.last;
    g.querySelector(".mark").setAttribute("display", "none");
  }
  const game = S.game;
  const last = game && game.moves.length ? game.moves[game.moves.length - 1] : null;
  const g = last && point(last);
  if (!g) return;
  g.dataset.last = "true";
  const mark = g.querySelector(".mark");
  mark.setAttribute("display", "inline");
  mark.setAttribute("stroke", g.dataset.stone === "black" ? "#fff" : "#000");
}

// The stones marked dead in the scoring phase (and, once it ended, those that were): faded,
// crossed out.
export function showDead() {
  const game = S.game;
  const dead = new Set((game && game.marks && game.marks.dead) || []);
  for (const g of document.querySelectorAll(".pt")) {
    const is = dead.has(g.dataset.point) && g.dataset.stone !== "empty";
    if (is === (g.dataset.dead === "true")) continue;
    if (is) g.dataset.dead = "true";
    else delete g.dataset.dead;
    g.querySelector(".dead").setAttribute("display", is ? "inline" : "none");
    g.querySelector(".stone").setAttribute("opacity", is ? 0.45 : 1);
  }
}

function onBoardKey(event) {
  const game = S.game;
  if (!game) return;
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (!S.cursor) S.cursor = [Math.floor(game.size / 2), Math.floor(game.size / 2)];
  const [row, col] = S.cursor;
  if (moves[event.key]) {
    const [dr, dc] = moves[event.key];
    const limit = (n) => Math.min(game.size - 1, Math.max(0, n));
    S.cursor = [limit(row + dr), limit(col + dc)];
  } else if (event.key === "Enter" || event.key === " ") {
    const name = kata(game.size, row, col);
    if (game.status === "scoring") markChain(name);
    else play(name);
  } else {
    return;
  }
  event.preventDefault();
  const box = document.querySelector("#board .cursor");
  box.setAttribute("x", MARGIN + S.cursor[1] - 0.45);
  box.setAttribute("y", MARGIN + S.cursor[0] - 0.45);
  box.setAttribute("display", "inline");
  setStatus(`Cursor on ${shown(kata(game.size, ...S.cursor))}. ${statusLine()}`);
}
