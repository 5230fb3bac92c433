// The seek form's terms: rated or not, a handicap and komi, a time control (OGS's presets, or a
// custom one of any system), scoring by agreement; checked before anything is sent, and kept
// for the next visit.

import { S } from "./state.js";
import { $, element, timeText } from "./util.js";

// The time controls offered as OGS offers them; "server": none named, the server's per-move
// time (what programs and `gokata connect` seek unless told otherwise).
const PRESETS = {
  server: null,
  live: { system: "per_move", move_ms: 300000 },
  byoyomi: { system: "byoyomi", main_ms: 600000, period_ms: 30000, periods: 5 },
  fischer: { system: "fischer", initial_ms: 300000, increment_ms: 5000, max_ms: 600000 },
  day: { system: "per_move", move_ms: 86400000 },
};
// The custom form's fields of each system: [input, the protocol's name, the label if another].
const CUSTOM = {
  per_move: [["t-main", "move_ms", "Time a move"]],
  absolute: [["t-main", "total_ms", "Time for the game"]],
  fischer: [["t-main", "initial_ms", "Starting time"], ["t-increment", "increment_ms"], ["t-max", "max_ms"]],
  byoyomi: [["t-main", "main_ms", "Main time"], ["t-period", "period_ms"], ["t-periods", "periods"]],
  canadian: [["t-main", "main_ms", "Main time"], ["t-period", "period_ms"], ["t-stones", "stones"]],
};
const COUNTS = { periods: [1, 30], stones: [1, 100] };
// The fields kept for the next visit (the opponent follows the lobby unless chosen on the page).
const SEEK_FIELDS = ["size", "color", "rated", "handicap", "komi", "time", "time-system",
  "t-main", "t-increment", "t-max", "t-period", "t-periods", "t-stones"];

// "30s", "10m", "1h 30m", "2d", "1:30", "1:00:00", "90" (seconds): milliseconds, or NaN.
export function parseDuration(text) {
  const t = text.trim().toLowerCase();
  if (/^\d+(:[0-5]?\d){1,2}$/.test(t)) return t.split(":").reduce((sum, part) => sum * 60 + Number(part), 0) * 1000;
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const unit = { d: 86400, h: 3600, m: 60, s: 1 };
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)\s*(d|days?|h|hours?|m|mins?|minutes?|s|secs?|seconds?)(?=\s|\d|$)\s*/g)];
  if (!parts.length || parts.map((m) => m[0]).join("") !== t) return NaN;
  return Math.round(parts.reduce((sum, m) => sum + Number(m[1]) * unit[m[2][0]], 0) * 1000);
}

// The handicaps a seek may ask: rated, none or from the ranks; unrated, none or 2 to 9 stones
// (5 on 9x9). The choice is kept where it still may be.
function fillHandicaps() {
  const rated = $("rated").value === "rated";
  const choices = rated ? [["0", "None (even)"], ["auto", "From the ranks"]] : [["0", "None"]];
  if (!rated) for (let n = 2; n <= ($("size").value === "9" ? 5 : 9); n++) choices.push([String(n), `${n} stones`]);
  const before = $("handicap").value;
  $("handicap").replaceChildren(...choices.map(([value, text]) => element("option", { value }, text)));
  if (choices.some(([value]) => value === before)) $("handicap").value = before;
  $("komi-field").hidden = rated;
}

function showCustomTime() {
  $("custom-time").hidden = $("time").value !== "custom";
  const fields = CUSTOM[$("time-system").value];
  for (const span of document.querySelectorAll("#custom-time .field")) {
    span.hidden = !fields.some(([id]) => id === span.dataset.for);
  }
  $("t-main-label").textContent = fields[0][2];
}

// The seek frame the form asks for; an Error naming the field if one is wrong.
export function seekFrame() {
  const frame = { type: "seek", size: Number($("size").value), color: $("color").value, opponent: $("opponent").value };
  frame.rated = $("rated").value === "rated";
  const handicap = $("handicap").value;
  frame.handicap = handicap === "auto" ? "auto" : Number(handicap);
  if (!frame.rated) {
    const komi = Number($("komi").value);
    if ($("komi").value.trim() === "" || !Number.isFinite(komi) || Math.abs(komi) > 150 || (komi * 2) % 1 !== 0) {
      throw new Error(`Komi must be a multiple of 0.5 from -150 to 150, not "${$("komi").value}".`);
    }
    frame.komi = komi;
  }
  if ($("agreement").checked) {
    if (frame.opponent === "computer") throw new Error("Scoring by agreement is for games between people: the computer counts every stone as alive.");
    frame.scoring = "agreement";
  }
  const chosen = $("time").value;
  if (chosen !== "custom") {
    if (PRESETS[chosen]) frame.time = PRESETS[chosen];
    return frame;
  }
  const system = $("time-system").value;
  frame.time = { system };
  for (const [id, name, label] of CUSTOM[system]) {
    const words = label || document.querySelector(`label[for="${id}"]`).textContent;
    const text = $(id).value;
    if (COUNTS[name]) {
      const [low, high] = COUNTS[name];
      const n = Number(text);
      if (!Number.isInteger(n) || n < low || n > high) throw new Error(`${words}: a whole number from ${low} to ${high}, not "${text}".`);
      frame.time[name] = n;
    } else {
      const ms = parseDuration(text);
      if (!(ms >= 1000 && ms <= 604800000)) {
        throw new Error(`${words}: "${text}" is not a time from 1 second to 7 days (write 30s, 10m, 1h 30m, 1d or 1:30).`);
      }
      frame.time[name] = ms;
    }
  }
  if (system === "fischer" && frame.time.max_ms < frame.time.initial_ms) {
    throw new Error("At most: the most a Fischer clock may hold is at least its starting time.");
  }
  return frame;
}

// The form's choices are kept for the next visit.
export function keepSeekChoices() {
  const kept = {};
  for (const id of SEEK_FIELDS) kept[id] = $(id).value;
  kept.agreement = $("agreement").checked ? "on" : "off";
  localStorage.setItem("gokata.seek", JSON.stringify(kept));
}

function restoreSeekChoices() {
  let kept = {};
  try {
    kept = JSON.parse(localStorage.getItem("gokata.seek") || "{}") || {};
  } catch {
    // none kept
  }
  for (const id of SEEK_FIELDS) {
    if (id === "handicap") fillHandicaps();
    const value = kept[id];
    if (typeof value !== "string") continue;
    const field = $(id);
    if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === value)) field.value = value;
  }
  $("agreement").checked = kept.agreement === "on";
  fillHandicaps();
  showCustomTime();
}

export function initSeekForm() {
  for (const [key, time] of Object.entries(PRESETS)) if (time) $("time").querySelector(`[value="${key}"]`).textContent = timeText(time);
  for (const id of ["rated", "size"]) $(id).addEventListener("change", fillHandicaps);
  for (const id of ["time", "time-system"]) $(id).addEventListener("change", showCustomTime);
  $("opponent").addEventListener("change", () => {
    S.opponentChosen = true;
  });
  restoreSeekChoices();
}
