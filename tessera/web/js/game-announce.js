// The game page's announcements (a board for everyone): a polite live region says the opponent's
// moves, the result and the clock warnings.
import { resultText } from "./decorate.js";
import { t } from "./i18n.js";
import { $, mySeats, playerName, SIMULTANEOUS } from "./game-state.js";

// A polite live region says the opponent's moves (in the game's notation) with the status that
// follows, and the clock warnings; the status line itself is redrawn too often to be one.
let lastSaid = "";
export function announce(text) {
  const node = $("announce");
  if (!node || !text) return;
  node.textContent = text === node.textContent ? `${text}\u00a0` : text; // the same words again are said again
}

export function announceView(old, view) {
  const fresh = old && view.moves.length > old.moves.length ? view.moves.slice(old.moves.length) : [];
  const turns = [];
  for (const m of fresh) {
    if (m.player !== SIMULTANEOUS && mySeats.includes(m.player) && mySeats.length === 1) continue; // his own
    const last = turns[turns.length - 1];
    if (last && last.player === m.player && m.player !== SIMULTANEOUS) last.moves.push(m.move);
    else turns.push({ player: m.player, moves: [m.move] });
  }
  const said = turns.map((x) => x.player === SIMULTANEOUS
    ? t("board:played_both", { move: x.moves.join(" ") })
    : t("board:played", { name: playerName(view.render, x.player), move: x.moves.join(" ") }));
  const status = $("status").textContent;
  const banner = view.status !== "active" && view.result ? resultText(view.result) : "";
  if (!said.length && status === lastSaid) return;
  lastSaid = status;
  announce([...said, banner || status].join(" "));
}

