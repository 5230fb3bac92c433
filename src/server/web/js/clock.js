// Each player's clock as its system shows it, ticking; and, while a game is scored, the time
// left to agree.

import { S } from "./state.js";
import { $, countdown, plural, title } from "./util.js";

// How long the turn of the player of `color` has run: 0 for the player waiting, and while the
// game is scored (the clocks stand still).
export function elapsed(color) {
  const game = S.game;
  if (!game || color !== game.to_move || game.status === "scoring") return 0;
  if (game.status !== "playing") return S.stopped !== null ? S.stopped : game.reason === "timeout" ? game.move_time_ms : 0;
  if (S.deadline === null) return 0;
  return Math.min(game.move_time_ms, Math.max(0, game.move_time_ms - (S.deadline - performance.now())));
}

// Each player's clock as its system shows it: main time, then byo-yomi periods ("3 × 0:30")
// or a Canadian period ("12 stones / 4:10"); the player to move's running down from the
// clock its turn began with.
export function tick() {
  const game = S.game;
  for (const color of ["black", "white"]) {
    const shownClock = $(`${color}-clock`);
    const time = game && (game.time || { system: "per_move", move_ms: game.move_time_ms });
    const clock = game && ((game.clocks && game.clocks[color]) || { main_ms: game.move_time_ms });
    if (!game || !clock) {
      shownClock.replaceChildren();
      continue;
    }
    const view = clockView(time, clock, elapsed(color));
    const running = game.status === "playing" && game.to_move === color;
    const text = view.extra ? `${view.main} ${view.extra}` : view.main;
    if (shownClock.textContent !== text) {
      const extra = document.createElement("span");
      extra.className = "extra";
      extra.textContent = view.extra || "";
      shownClock.replaceChildren(view.main, ...(view.extra ? [" ", extra] : []));
    }
    shownClock.classList.toggle("running", running);
    shownClock.classList.toggle("low", Boolean(running && view.low));
    shownClock.setAttribute("aria-label", `${title(color)}'s clock: ${text.replace(" × ", " periods of ")}`);
  }
  const agreeing = game && game.status === "scoring" && S.deadline !== null;
  const left = agreeing ? `Time left to agree: ${countdown(S.deadline - performance.now())}.` : "";
  if ($("score-time").textContent !== left) $("score-time").textContent = left;
}

// `clock` (CLOCK of the protocol) after `spent` ms of the turn: {main, extra, low}.
function clockView(time, clock, spent) {
  const main = clock.main_ms - spent;
  if (time.system === "byoyomi") {
    const periods = (n, left) => `${n} × ${countdown(left)}`;
    if (main > 0) return { main: countdown(main), extra: `+ ${periods(clock.periods, clock.period_ms)}` };
    const used = Math.floor(-main / clock.period_ms);
    const left = clock.period_ms - (-main % clock.period_ms);
    if (used >= clock.periods) return { main: countdown(0), low: true };
    return { main: periods(clock.periods - used, left), low: left < 10000 };
  }
  if (time.system === "canadian") {
    const stones = (left) => `${plural(clock.stones, "stone")} / ${countdown(left)}`;
    if (clock.main_ms > 0 && main > 0) return { main: countdown(main), extra: `+ ${stones(clock.period_ms)}` };
    const left = clock.period_ms + Math.min(0, main);
    return { main: stones(Math.max(0, left)), low: left / clock.stones < 10000 };
  }
  return { main: countdown(main), low: main < 30000 };
}
