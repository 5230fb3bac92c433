// Scoring by agreement: after two passes the players mark the dead stones (a click flips a
// whole chain), see the score as it changes, and accept it, or resume play. Both accepting
// ends the game.

import { S } from "./state.js";
import { $ } from "./util.js";
import { send } from "./connection.js";
import { myColor } from "./game.js";
import { acceptedText, scoreText } from "./words.js";
import { render, showError } from "./render.js";

// A click on a stone while the game is scored: its chain marked dead, or alive again.
export function markChain(point) {
  const game = S.game;
  if (!game || game.status !== "scoring") return;
  if (!myColor()) return showError("Only the players mark the dead stones: you are watching.");
  const g = document.querySelector(`.pt[data-point="${point}"]`);
  if (!g || g.dataset.stone === "empty") return; // nothing to mark
  const dead = g.dataset.dead !== "true";
  showError("");
  send({ type: "mark", game: game.id, point, dead });
}

export function acceptScore() {
  const game = S.game;
  if (!game || game.status !== "scoring" || !game.marks || !myColor()) return;
  S.accepting = { game: game.id, dead: [...game.marks.dead], tries: 0 };
  S.news = null;
  send({ type: "accept", game: game.id, dead: game.marks.dead });
  render();
}

export function resumePlay() {
  const game = S.game;
  if (!game || game.status !== "scoring" || !myColor()) return;
  send({ type: "resume", game: game.id });
}

// The scoring panel and its buttons, while the game is scored.
export function renderScoring() {
  const game = S.game;
  const scoring = Boolean(game) && game.status === "scoring" && Boolean(game.marks);
  const mine = myColor();
  $("scoring").hidden = !scoring;
  $("score-accept").hidden = !scoring || !mine;
  $("score-resume").hidden = !scoring || !mine;
  if (!scoring) return;
  const { marks } = game;
  const accepted = Boolean(mine && marks.accepted[mine]);
  $("score-accept").disabled = accepted || Boolean(S.accepting);
  $("score-accept").textContent = accepted ? "Accepted" : "Accept";
  $("score-help").textContent = mine
    ? "Click a stone to mark its chain dead (or alive again); when the marks are right, accept the score. Any change asks both of you again."
    : "The players mark the dead stones and accept the score.";
  $("score-text").textContent = scoreText(marks.score);
  $("score-dead").textContent = marks.dead.length === 1 ? "1 stone marked dead." : `${marks.dead.length} stones marked dead.`;
  $("score-accepted").textContent = acceptedText(marks.accepted);
}
