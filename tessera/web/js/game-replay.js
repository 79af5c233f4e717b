// The game page's move list and replay: the turns played, the position after any of them (asked of
// the server, the latest request winning), and the analysis link where an engine is allowed.
import { api, escapeHtml } from "./api.js";
import { colourWord, refusalText } from "./decorate.js";
import { t } from "./i18n.js";
import { $, gameId, playerName, redraw, showError, SIMULTANEOUS, ui } from "./game-state.js";

const tr = t; // where a local "t" (a turn) hides the translation function

export function turnsOf(moves) {
  const turns = [];
  for (const m of moves) {
    const last = turns[turns.length - 1];
    if (m.player !== SIMULTANEOUS && last && last.player === m.player) {
      last.moves.push(m.move);
      last.end = m.index + 1;
    } else turns.push({ player: m.player, moves: [m.move], start: m.index, end: m.index + 1 });
  }
  return turns;
}

export function renderMoves(v) {
  const desc = v.render;
  const ol = $("moves");
  ol.innerHTML = turnsOf(v.moves)
    .map((t, i) => {
      const who = t.player === SIMULTANEOUS ? tr("game:both") : playerName(desc, t.player);
      const cur = ui.replay !== null && ui.replay >= t.start + 1 && ui.replay <= t.end ? " current" : "";
      // the game's notes on the steps (Nibble: the colour taken), e.g. "c1 i9 (red)"
      const notes = desc.move_notes ? [...new Set(desc.move_notes.slice(t.start, t.end).filter((x) => x && x !== "end"))] : [];
      const note = notes.length ? ` <span class="move-note">(${escapeHtml(notes.map(colourWord).join(", "))})</span>` : "";
      return `<li class="turn${cur}" data-end="${t.end}"><span class="who">${escapeHtml(who)}</span> <code>${escapeHtml(t.moves.join(" "))}</code>${note}</li>`;
    })
    .join("");
  if (ui.replay === null) ol.scrollTop = ol.scrollHeight;
  // a turn in the list shows the position after it (during the game too: looking back plays nothing)
  for (const li of ol.querySelectorAll("li")) {
    li.title = tr("game:show_position");
    li.addEventListener("click", () => showPosition(Number(li.dataset.end)));
  }
}

let positionTicket = 0; // the latest replay request: an older answer arriving late is dropped

// Where the replay is, or is going: a click made before the last click's position arrived
// counts from the position that click asked for, not from the one still on the board.
export function replayAt() {
  return ui.replayTarget ?? ui.replay ?? ui.view.moves.length;
}

export async function showPosition(n) {
  const v = ui.view;
  if (!v) return;
  n = Math.max(0, Math.min(v.moves.length, n));
  const ticket = ++positionTicket;
  ui.replayTarget = n;
  try {
    const desc = await api("GET", `/api/games/${gameId}/positions/${n}`);
    if (ticket !== positionTicket) return;
    ui.replay = n === v.moves.length ? null : n;
    ui.shown = ui.replay === null ? v.render : desc;
    redraw();
  } catch (e) {
    if (ticket === positionTicket) showError(refusalText(e));
  } finally {
    if (ticket === positionTicket) ui.replayTarget = null;
  }
}

export function renderReplay(v) {
  const box = $("replay");
  if (v.status !== "finished" && !v.moves.length) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.classList.toggle("replaying", ui.replay !== null);
  const at = ui.replay === null ? v.moves.length : ui.replay;
  $("replay-pos").textContent = `${at} / ${v.moves.length}`;
  renderAnalyse(v, at);
}

// No engine for a game in progress (docs/http-api.md, "Analysis board"): the analysis link is
// shown to nobody — players and spectators alike — while a game between people goes on; a
// hot-seat game and an unrated game against the AI alone have no human opponent to cheat.
let ratedGame = null; // whether this game is rated (GET /api/games/{id}/accounts; null: not asked yet)

export function analysisOpen(v) {
  if (!["open", "active"].includes(v.status) || v.mode === "hotseat") return true;
  if (v.seats.filter((s) => s.kind !== "ai").length > 1) return false;
  if (ratedGame === null) {
    ratedGame = api("GET", `/api/games/${gameId}/accounts`)
      .then((a) => Boolean(a.rated))
      .catch(() => true)
      .then((rated) => {
        ratedGame = rated;
        if (ui.view) renderAnalyse(ui.view, ui.replay === null ? ui.view.moves.length : ui.replay);
      });
  }
  return ratedGame === false;
}

export function renderAnalyse(v, at) {
  $("analyse-wrap").hidden = !analysisOpen(v);
  $("analyse").href = `/analysis?game=${encodeURIComponent(gameId)}&n=${at}`;
}
