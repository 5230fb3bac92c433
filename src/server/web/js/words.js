// What the page says of the game shown and of the player: the status line, the line under the
// board, the result. Points are written letter first ("C3").

import { S } from "./state.js";
import { change, other, plural, record, shown, sizesText, termsText, title } from "./util.js";
import { colorOf, gone, lastPasser, myColor, who } from "./game.js";

const OPPONENTS = { human: "an opponent", computer: "the computer", any: "an opponent, a person or the computer" };

export function statusLine() {
  const { game, me, wanted, seeking } = S;
  if (game && game.status === "playing") return presenceText() + passText() + turnText();
  if (game && game.status === "scoring") return presenceText() + scoringText();
  if (!me && wanted) return `Signing in as ${wanted}…`;
  if (!me) return game ? "The game is over. Sign in to play." : "Sign in to play.";
  if (seeking) {
    const colour = seeking.color === "any" ? "any colour" : seeking.color;
    return `Waiting for ${OPPONENTS[seeking.opponent]}: ${sizesText(seeking.size)}, ${colour}, ${termsText(seeking)}…`;
  }
  if (game && game.status === "over") return "The game is over. Seek another one?";
  return `Signed in as ${me.name}. Choose a board and seek a game.`;
}

function turnText() {
  const game = S.game;
  const mine = myColor();
  const mover = who(game.to_move);
  if (!mine) return `You are watching: ${who("black")} (black) against ${who("white")} (white); ${game.to_move} to move.`;
  if (S.pending) return "Your turn is on its way to the server…";
  return mine === game.to_move ? `Your move (${mine}).` : `Waiting for ${mover} (${game.to_move}) to move.`;
}

function scoringText() {
  if (!myColor()) return `Both passed: ${who("black")} and ${who("white")} are marking the dead stones.`;
  return "Both passed: mark the dead stones, then accept the score.";
}

// A player who left has a clock that runs on: the opponent may wait, or play on.
function presenceText() {
  const left = ["black", "white"].filter(gone).map((color) => `${who(color)} left the game; the clock runs on. `);
  return left.join("") + S.back.map((color) => `${who(color)} is back. `).join("");
}

// Two passes end the game: a player must know that the last turn was one.
function passText() {
  const passer = lastPasser();
  if (!passer) return "";
  const mine = myColor();
  if (passer === mine) return "You passed. ";
  const ends = S.game.scoring === "agreement" ? "the dead stones are marked next" : "the game ends";
  const warning = mine ? `: if you pass too, ${ends}` : "";
  return `${title(passer)} (${who(passer)}) passed${warning}. `;
}

// The line under the board, always there (it never moves the board): the stone a first tap
// shows, news of the game (an undo), or the last turn.
export function noticeText() {
  const game = S.game;
  if (!game) return "";
  if (S.ghost) return `Play ${shown(S.ghost)}? Tap it again to play.`;
  if (S.news && S.news.game === game.id) return S.news.text;
  const mine = myColor();
  if (S.undo && S.undo.game === game.id && S.undo.by === mine) {
    return `You asked to take back your last move: waiting for ${who(other(mine))}.`;
  }
  if (!game.moves.length) return game.status === "playing" ? `${title(colorOf(0))} to play first.` : "";
  const ply = game.moves.length - 1;
  const point = game.moves[ply];
  const color = title(colorOf(ply));
  if (!point) return `${color} passes.`;
  const taken = game.lastCaptured ? `, capturing ${plural(game.lastCaptured, "stone")}` : "";
  return `${color} plays ${shown(point)}${taken}.`;
}

// The score of the scoring phase, in words: "Black 41, white 36 + 6.5 komi = 42.5: white leads
// by 1.5."
export function scoreText(score) {
  const white = score.white + score.komi;
  const margin = Math.abs(score.black - white);
  const lead = margin === 0 ? "even" : `${score.black > white ? "black" : "white"} leads by ${margin}`;
  return `Black ${score.black}, white ${score.white} + ${score.komi} komi = ${white}: ${lead}.`;
}

export function acceptedText(accepted) {
  const mine = myColor();
  const said = (color) => {
    if (accepted[color]) return color === mine ? "You accepted." : `${who(color)} accepted.`;
    return color === mine ? "You have not accepted yet." : `${who(color)} has not accepted yet.`;
  };
  return `${said("black")} ${said("white")}`;
}

export function resultText() {
  const game = S.game;
  if (!game || game.status !== "over") return "";
  let text = { passes: "A draw after two passes.", score: "A draw on the score agreed." }[game.reason] || "A draw.";
  if (game.winner) {
    const winner = `${title(game.winner)} (${who(game.winner)})`;
    text = {
      resign: `${winner} wins by resignation.`,
      timeout: `${winner} wins on time: ${other(game.winner)} took too long.`,
      passes: `${winner} wins after two passes.`,
      score: `${winner} wins on the score agreed.`,
    }[game.reason] || `${winner} wins.`;
  }
  if (game.score) {
    const s = game.score;
    const margin = Math.abs(s.black - (s.white + s.komi));
    text += ` Area score: black ${s.black}, white ${s.white} + ${s.komi} komi = ${s.white + s.komi}`;
    text += margin ? `; by ${margin} points.` : ".";
  }
  if (game.records) text += ` Records: ${record(game.records.black)}; ${record(game.records.white)}.`;
  return text;
}

export function ratingsText() {
  const game = S.game;
  if (!game || game.status !== "over" || !game.ratings) return "";
  const r = game.ratings;
  return `Ratings: ${who("black")} ${change(r.black)}; ${who("white")} ${change(r.white)}.`;
}
