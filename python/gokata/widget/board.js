// The front end of gokata.widget.Board: the board drawn as SVG, buttons, a status line and a
// message line. It shows the state Python syncs (rows, turn, last_move, last_color, captures,
// history_length, index, overlays, message, coordinates, width) and sends what the player does
// as messages ({type: "play", point: "C7"}, {type: "pass"}, {type: "undo"}, {type: "first" |
// "previous" | "next" | "last"}); Python applies them to the game and syncs the result back.

const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const STONE = 19;
const STONE_WORDS = { x: "black stone", o: "white stone", ".": "empty" };
const STONE_NAMES = { x: "black", o: "white", ".": "empty" };
const SYNCED = [
  "rows", "turn", "last_move", "last_color", "captures", "history_length", "index",
  "overlays", "message", "coordinates", "width",
];
const BUTTONS = [
  // [message type, aria-label, text, or the path of an icon drawn in a 16 x 16 box]
  ["first", "First", null, "M2 3h2.2v10H2z M14 3 5.5 8l8.5 5z"],
  ["previous", "Previous", null, "M12 3 3.5 8l8.5 5z"],
  ["next", "Next", null, "M4 3l8.5 5L4 13z"],
  ["last", "Last", null, "M2 3l8.5 5L2 13z M11.8 3H14v10h-2.2z"],
  ["pass", "Pass", "Pass", null],
  ["undo", "Undo", "Undo", null],
];
let instances = 0;

function svgElement(name, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (parent) parent.appendChild(element);
  return element;
}

// The star points as gokata.svg draws them: the corner points on sides of 7 lines and more,
// the centre on odd sides from 9, the side points on odd sides from 15 (9x9: 5, 13x13: 5,
// 19x19: 9).
function starLines(count) {
  if (count < 7) return [];
  const edge = count < 12 ? 2 : 3;
  const lines = [[edge, false], [count - 1 - edge, false]];
  if (count % 2 === 1 && count >= 9) lines.push([(count - 1) / 2, true]);
  return lines;
}

function starPoints(height, width) {
  const points = [];
  for (const [row, rowMiddle] of starLines(height)) {
    for (const [col, colMiddle] of starLines(width)) {
      const keep = rowMiddle === colMiddle || (rowMiddle ? height >= 15 : width >= 15);
      if (keep) points.push([row, col]);
    }
  }
  return points;
}

function pointName(row, col, height) {
  return `${LETTERS[col]}${height - row}`;
}

function capitalized(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function render({ model, el }) {
  const id = `gokata-${++instances}-${Math.random().toString(36).slice(2, 8)}`;
  const root = document.createElement("div");
  root.className = "gokata-board";
  el.appendChild(root);

  const status = document.createElement("div");
  status.className = "gokata-status";
  const statusParts = {};
  for (const part of ["move", "turn", "captures", "last"]) {
    statusParts[part] = document.createElement("span");
    statusParts[part].className = `gokata-${part}`;
    status.appendChild(statusParts[part]);
  }
  root.appendChild(status);

  const holder = document.createElement("div");
  holder.className = "gokata-holder";
  root.appendChild(holder);

  const controls = document.createElement("div");
  controls.className = "gokata-controls";
  const buttons = {};
  for (const [kind, label, text, icon] of BUTTONS) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `gokata-button gokata-${kind}`;
    button.setAttribute("aria-label", label);
    button.title = label;
    if (icon) {
      const drawing = svgElement("svg", { viewBox: "0 0 16 16", class: "gokata-icon", "aria-hidden": "true", focusable: "false" }, button);
      svgElement("path", { d: icon }, drawing);
    } else {
      button.textContent = text;
    }
    button.addEventListener("click", () => model.send({ type: kind }));
    controls.appendChild(button);
    buttons[kind] = button;
  }
  root.appendChild(controls);

  const message = document.createElement("div");
  message.className = "gokata-message";
  message.setAttribute("role", "status");
  message.setAttribute("aria-live", "polite");
  root.appendChild(message);

  let board = null; // {svg, height, width, coordinates, points: [[g]], drawn: [[key]]}
  let cursor = null; // [row, col]: the point that has tabindex 0

  function play(point) {
    model.send({ type: "play", point });
  }

  function build(height, width, coordinates) {
    holder.textContent = "";
    const margin = coordinates ? 50 : 26;
    const w = 2 * margin + (width - 1) * CELL;
    const h = 2 * margin + (height - 1) * CELL;
    const x = (col) => margin + col * CELL;
    const y = (row) => margin + row * CELL;
    const svg = svgElement("svg", {
      viewBox: `0 0 ${w} ${h}`,
      role: "group",
      "aria-label": `${height} by ${width} Go board`,
      "data-lm-suppress-shortcuts": "true",
    });
    const defs = svgElement("defs", {}, svg);
    for (const [color, light, dark, r] of [["black", "#5a5a5a", "#0a0a0a", "70%"], ["white", "#ffffff", "#cfcfcf", "75%"]]) {
      const gradient = svgElement("radialGradient", { id: `${id}-${color}`, cx: "35%", cy: "30%", r }, defs);
      svgElement("stop", { offset: 0, "stop-color": light }, gradient);
      svgElement("stop", { offset: 1, "stop-color": dark }, gradient);
    }
    svgElement("rect", { class: "gokata-wood", width: w, height: h, rx: 6 }, svg);
    const lines = svgElement("g", { class: "gokata-lines" }, svg);
    for (let row = 0; row < height; row++) {
      svgElement("line", { x1: x(0), y1: y(row), x2: x(width - 1), y2: y(row) }, lines);
    }
    for (let col = 0; col < width; col++) {
      svgElement("line", { x1: x(col), y1: y(0), x2: x(col), y2: y(height - 1) }, lines);
    }
    for (const [row, col] of starPoints(height, width)) {
      svgElement("circle", { class: "gokata-star", cx: x(col), cy: y(row), r: 3.5 }, svg);
    }
    if (coordinates) {
      const labels = svgElement("g", { class: "gokata-coordinates", "aria-hidden": "true" }, svg);
      for (let col = 0; col < width; col++) {
        for (const at of [margin / 2, h - margin / 2]) {
          svgElement("text", { x: x(col), y: at }, labels).textContent = LETTERS[col];
        }
      }
      for (let row = 0; row < height; row++) {
        for (const at of [margin / 2, w - margin / 2]) {
          svgElement("text", { x: at, y: y(row) }, labels).textContent = String(height - row);
        }
      }
    }
    const points = [];
    for (let row = 0; row < height; row++) {
      const line = [];
      for (let col = 0; col < width; col++) {
        const name = pointName(row, col, height);
        const g = svgElement("g", {
          class: "gokata-point",
          "data-point": name,
          "data-row": row,
          "data-col": col,
          role: "button",
          tabindex: -1,
          transform: `translate(${x(col)} ${y(row)})`,
        }, svg);
        svgElement("rect", { class: "gokata-hit", x: -CELL / 2, y: -CELL / 2, width: CELL, height: CELL }, g);
        svgElement("g", { class: "gokata-content" }, g);
        svgElement("rect", { class: "gokata-cursor", x: -CELL / 2 + 2, y: -CELL / 2 + 2, width: CELL - 4, height: CELL - 4, rx: 4 }, g);
        line.push(g);
      }
      points.push(line);
    }
    svg.addEventListener("click", (event) => {
      const g = event.target.closest("[data-point]");
      if (g) play(g.dataset.point);
    });
    svg.addEventListener("focusin", (event) => {
      const g = event.target.closest("[data-point]");
      if (g) moveCursor(Number(g.dataset.row), Number(g.dataset.col), false);
    });
    svg.addEventListener("keydown", onKey);
    holder.appendChild(svg);
    board = { svg, height, width, coordinates, points, drawn: points.map((line) => line.map(() => null)) };
    const middle = [Math.floor(height / 2), Math.floor(width / 2)];
    cursor = null;
    moveCursor(middle[0], middle[1], false);
  }

  function moveCursor(row, col, focus) {
    if (!board) return;
    row = Math.max(0, Math.min(board.height - 1, row));
    col = Math.max(0, Math.min(board.width - 1, col));
    if (cursor) board.points[cursor[0]][cursor[1]].setAttribute("tabindex", "-1");
    cursor = [row, col];
    const g = board.points[row][col];
    g.setAttribute("tabindex", "0");
    if (focus) g.focus();
  }

  function onKey(event) {
    const g = event.target.closest ? event.target.closest("[data-point]") : null;
    if (!g || !cursor) return;
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (event.key in steps) {
      const [dr, dc] = steps[event.key];
      moveCursor(cursor[0] + dr, cursor[1] + dc, true);
    } else if (event.key === "Enter" || event.key === " " || event.key === "Spacebar") {
      play(g.dataset.point);
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  function drawPoint(g, content, stone, state) {
    content.textContent = "";
    const { last, heat, mark, label } = state;
    if (heat !== undefined) {
      svgElement("rect", {
        class: "gokata-heat", x: -17, y: -17, width: 34, height: 34, rx: 4,
        "fill-opacity": (0.75 * heat).toFixed(3),
      }, content);
    }
    if (stone === ".") {
      svgElement("circle", { class: "gokata-ghost", r: STONE }, content);
    } else {
      const color = STONE_NAMES[stone];
      svgElement("circle", { class: `gokata-stone gokata-${color}`, r: STONE, fill: `url(#${id}-${color})` }, content);
    }
    const ink = stone === "x" ? "gokata-on-black" : "gokata-on-light";
    if (last) svgElement("circle", { class: `gokata-last ${ink}`, r: 8 }, content);
    if (mark) {
      const shapes = {
        triangle: ["polygon", { points: "0,-12 10.4,6 -10.4,6" }],
        circle: ["circle", { r: 10 }],
        square: ["rect", { x: -8.5, y: -8.5, width: 17, height: 17 }],
        cross: ["path", { d: "M -8 -8 L 8 8 M 8 -8 L -8 8" }],
      };
      const [tag, attributes] = shapes[mark] || shapes.triangle;
      svgElement(tag, { ...attributes, class: `gokata-mark ${ink}`, "data-mark": mark }, content);
    }
    if (label !== undefined) {
      if (stone === "." && heat === undefined) svgElement("circle", { class: "gokata-label-back", r: 14 }, content);
      const size = label.length <= 2 ? 18 : label.length === 3 ? 13 : 10.5;
      const text = svgElement("text", { class: `gokata-label ${ink}`, "font-size": size, dy: "0.35em" }, content);
      text.textContent = label;
    }
    const name = g.dataset.point;
    const words = [name, STONE_WORDS[stone] || "empty"];
    if (last) words.push("last move");
    if (mark) words.push(mark);
    if (label !== undefined) words.push(`label ${label}`);
    if (heat !== undefined) words.push(`heat ${Math.round(heat * 100)}%`);
    g.setAttribute("aria-label", words.join(", "));
    g.dataset.stone = STONE_NAMES[stone] || "empty";
    for (const [key, value] of [["last", last ? "" : undefined], ["heat", heat], ["mark", mark], ["label", label]]) {
      if (value === undefined) g.removeAttribute(`data-${key}`);
      else g.setAttribute(`data-${key}`, String(value));
    }
  }

  function update() {
    const rows = model.get("rows") || [];
    const height = rows.length;
    const width = height ? rows[0].length : 0;
    const coordinates = Boolean(model.get("coordinates"));
    if (!board || board.height !== height || board.width !== width || board.coordinates !== coordinates) {
      build(height, width, coordinates);
    }
    const pixels = model.get("width");
    board.svg.style.width = pixels == null ? "" : `${pixels}px`;
    board.svg.style.maxWidth = pixels == null ? "" : "none";

    const overlays = model.get("overlays") || {};
    const heatmap = overlays.heatmap || {};
    const marks = overlays.marks || {};
    const labels = overlays.labels || {};
    const lastMove = model.get("last_move");
    for (let row = 0; row < height; row++) {
      for (let col = 0; col < width; col++) {
        const name = pointName(row, col, height);
        const stone = rows[row][col];
        const state = {
          last: lastMove === name,
          heat: heatmap[name],
          mark: marks[name],
          label: labels[name],
        };
        const key = JSON.stringify([stone, state.last, state.heat, state.mark, state.label]);
        if (board.drawn[row][col] === key) continue;
        board.drawn[row][col] = key;
        const g = board.points[row][col];
        drawPoint(g, g.querySelector(".gokata-content"), stone, state);
      }
    }

    const turn = model.get("turn") || "black";
    const length = model.get("history_length") || 0;
    const index = model.get("index") || 0;
    const live = index === length;
    const captures = model.get("captures") || {};
    root.dataset.turn = turn;
    root.dataset.live = String(live);
    statusParts.move.textContent = live ? `Move ${length}` : `Move ${index} of ${length}`;
    statusParts.turn.textContent = `${capitalized(turn)} to move`;
    statusParts.captures.textContent =
      `Captures: black ${captures.black || 0}, white ${captures.white || 0}`;
    const lastColor = model.get("last_color");
    statusParts.last.textContent =
      lastMove == null ? "" : lastMove === "pass" ? `Last: ${lastColor} passed` : `Last: ${lastColor} ${lastMove}`;
    buttons.first.disabled = index <= 0;
    buttons.previous.disabled = index <= 0;
    buttons.next.disabled = live;
    buttons.last.disabled = live;
    buttons.pass.disabled = !live;
    buttons.undo.disabled = !live || length === 0;
    message.textContent = model.get("message") || "";
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    Promise.resolve().then(() => {
      pending = false;
      update();
    });
  }
  for (const name of SYNCED) model.on(`change:${name}`, schedule);
  update();
  return () => {
    for (const name of SYNCED) model.off(`change:${name}`, schedule);
  };
}

export default { render };
