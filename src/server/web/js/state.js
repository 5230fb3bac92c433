// What the page knows, shared by its modules (one object: a module cannot assign another's
// variables), and the names and tokens kept on this browser.

export const S = {
  socket: null,
  wanted: null, // the name to sign in as, while the page wants a connection
  wantedToken: null, // the token typed with it, if any (else the saved one is used)
  me: null, // {name, wins, losses, bot, rating, deviation, rank} after welcome
  game: null, // the STATE shown, kept current from played/over/state/scoring
  pending: null, // {game, ply, frame}: a turn sent and not yet acknowledged
  seeking: null, // the seek as the server echoed it (`seeking`), while it waits
  deadline: null, // performance.now() when the player to move (or the time to agree) runs out
  stopped: null, // how long the last turn of the game shown had run when the game ended
  retries: 0,
  retryTimer: null,
  parked: false, // the page was left (maybe kept to come back to): no connection meanwhile
  cursor: null, // [row, col] of the keyboard cursor
  resignArmed: null,
  watching: null, // the game this connection was asked to watch (its answer may be on the way)
  lobbyFollowed: false, // whether this connection was asked to watch the lobby
  watchError: false, // whether the error shown is the watcher's own
  myTurn: false, // whether it was the player's turn when the page was last drawn
  audio: null, // made when the player turns the sound on (browsers want a click first)
  pointer: "mouse", // how the last press on the board was made: "mouse", "touch" or "pen"
  ghost: null, // the point a tap chose, played by a second tap on it
  back: [], // the colours of the players who came back to the game shown, until the next turn
  undo: null, // {game, ply, by}: an undo asked for and not yet answered
  news: null, // {game, text}: what happened besides a turn (an undo), told until the next turn
  accepting: null, // {game, dead}: the marks this player accepted, until the server answers
  seeks: [], // the lobby's seeks, as last pushed
  opponentChosen: false, // whether the player chose the seek form's opponent on this page
};

// A game still under way: played, or being scored.
export const live = (g) => Boolean(g) && (g.status === "playing" || g.status === "scoring");

// Names and tokens of the players who signed in on this browser, by lower-case name.
export const saved = {
  all() {
    try {
      return JSON.parse(localStorage.getItem("gokata.players") || "{}");
    } catch {
      return {};
    }
  },
  token(name) {
    const entry = this.all()[name.toLowerCase()];
    return entry ? entry.token : null;
  },
  keep(name, token) {
    const all = this.all();
    all[name.toLowerCase()] = { name, token };
    localStorage.setItem("gokata.players", JSON.stringify(all));
    localStorage.setItem("gokata.current", name);
  },
  forget(name) {
    const all = this.all();
    delete all[name.toLowerCase()];
    localStorage.setItem("gokata.players", JSON.stringify(all));
    localStorage.removeItem("gokata.current");
  },
  current: () => localStorage.getItem("gokata.current"),
};
