// The game page: live board (WebSocket), clicking plays, side panel, replay of finished games.
// This module draws the page (renderAll), takes the board's clicks and wires the static controls;
// its parts are game-state.js (shared state), game-live.js (socket, views), game-play.js (moves and
// requests), game-order.js (order builder), game-prompt.js, game-typed.js, game-panel.js (status,
// seats, thinking), game-clocks.js, game-announce.js, game-controls.js, game-end.js, game-replay.js.
import { api, saveSeats } from "./api.js";
import { initRematch } from "./rematch.js";
import { BoardView } from "./board.js";
import { nextPathCells, pathStartsWith, pickCell } from "./board-paths.js";
import { markdown } from "./markdown.js";
import { decorations, legendKey, loadGameClient, localized, refusalText, specWords, tokenCell, usesPalette, whenClientLoads } from "./decorate.js";
import { mountChat } from "./chat.js";
import { currentLanguage, initI18n, t } from "./i18n.js";
import { initPrefs, safePalette } from "./prefs.js";
import { announce } from "./game-announce.js";
import { renderControls, renderInvite } from "./game-controls.js";
import { renderBanner } from "./game-end.js";
import { connect, receive, setChat } from "./game-live.js";
import { builder, onOrderCell, orderClickable, orderHints, orderUnits } from "./game-order.js";
import { renderPanelTable, renderSeats, renderStatus, renderThinking } from "./game-panel.js";
import { submit } from "./game-play.js";
import { renderPrompt } from "./game-prompt.js";
import { renderMoves, renderReplay, replayAt, showPosition } from "./game-replay.js";
import { $, actions, gameId, mySeats, onRedraw, readView, showError, tokens, ui, wsToken } from "./game-state.js";
import { playTyped, renderMoveForm } from "./game-typed.js";

const board = new BoardView($("board"), { onCell: (c, how) => onCell(c, how), onCancel: () => cancelSelection() });

function onCell(cell, how) {
  ui.kbd = !!(how && how.keyboard);
  if (orderUnits()) return onOrderCell(cell);
  const acts = actions().filter((a) => a.path && a.path.length);
  if (!acts.length) return;
  if (cell === null) {
    ui.sel = [];
    ui.choice = null;
    return renderAll();
  }
  const { sel, exact, longer } = pickCell(acts, ui.sel, cell);
  if (!sel.length) {
    ui.sel = [];
    ui.choice = null;
    return renderAll();
  }
  ui.sel = sel;
  ui.choice = null;
  if (exact.length === 1 && !longer.length && exact[0].move !== undefined) {
    return submit(exact[0].move);
  }
  if (exact.length) ui.choice = exact;
  renderAll();
  // a phone shows the panel under the board: bring the number or choice question into sight
  if (ui.choice && matchMedia("(max-width: 820px)").matches) {
    const q = document.querySelector("#prompt .choice");
    if (q) q.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }
}

function nextCells() {
  if (ui.choice && !actions().some((a) => a.path.length > ui.sel.length && pathStartsWith(a.path, ui.sel))) return new Set();
  return nextPathCells(actions(), ui.sel);
}

// -- drawing -----------------------------------------------------------------------------
onRedraw(renderAll);
function renderAll() {
  const v = ui.view;
  if (!v) return;
  const desc = ui.shown;
  const o = orderUnits();
  const b = builder();
  let clickable = new Set();
  const marks = new Map();
  let hints = new Map();
  const selected = new Set(ui.sel);
  let disabled = new Map();
  if (o && b) {
    clickable = orderClickable(o, b);
    ({ hints, disabled } = orderHints(o, b));
    const cur = o.units.find((u) => u.id === b.current);
    if (cur && cur.cell) selected.add(cur.cell);
    for (const u of o.units) {
      const t = b.tokens[u.id];
      const c = t ? tokenCell(u, t) : null;
      if (c) marks.set(c, u.id);
    }
  } else if (ui.replay === null) {
    clickable = nextCells();
  }
  if (o && o.pending) {
    /* sealed: nothing to click */
  }
  whenClientLoads(desc, renderAll); // the game's own client module, if it has one, draws more once here
  const deco = decorations(desc, { safePalette: safePalette() });
  board.draw(localized(desc), { clickable, selected, marks, hints, disabled, keep: ui.kbd, ...deco });
  renderLegend(desc, deco);
  $("title").textContent = v.title;
  const words = specWords(v.spec);
  $("spec").textContent = `${words ? words + " · " : ""}${t(v.mode === "ai" ? "game:mode.ai" : v.mode === "hotseat" ? "game:mode.hotseat" : "game:mode.online")}`;
  $("spec").title = v.spec;
  renderStatus(v, desc);
  renderSeats(v, desc);
  renderPrompt(v, desc, o, b);
  renderControls(v);
  renderPanelTable(desc);
  renderMoves(v);
  renderReplay(v);
  renderInvite(v);
  renderBanner(v, desc);
  renderThinking();
  renderMoveForm(v, desc, o);
  keepKeyboardFocus();
}

// Escape on the board (or in the question a cell asked): the selection is dropped.
function cancelSelection() {
  const o = orderUnits();
  const b = o ? builder() : null;
  // the troop being ordered is let go (a troop still at sea stays: only its button would take it again)
  const cur = b ? o.units.find((u) => u.id === b.current) : null;
  if (cur && cur.cell) b.current = null;
  ui.sel = [];
  ui.choice = null;
  ui.orderWhy = "";
  renderAll();
  announce(t("board:cancelled"));
}

// A move made from the keyboard redraws the panel under the player's focus: it goes back to the
// board (the cell he was on) instead of being lost; a question (a number, a choice) takes it.
function keepKeyboardFocus() {
  if (!ui.kbd) return;
  const here = document.activeElement;
  if (ui.choice) {
    const prompt = $("prompt");
    if (prompt.contains(here)) return;
    const first = prompt.querySelector("#number-input") || prompt.querySelector(".choice-btn, .choice button");
    if (first) return void setTimeout(() => first.focus(), 0);
  }
  if (!here || here === document.body) board.focus();
}

// -- static wiring -----------------------------------------------------------------------
$("zoom-in").addEventListener("click", () => board.zoom(1 / 1.25));
$("zoom-out").addEventListener("click", () => board.zoom(1.25));
$("zoom-fit").addEventListener("click", () => board.fitAll());
$("coords").addEventListener("change", (e) => {
  board.showCoords = e.target.checked;
  renderAll();
});
$("move-form").addEventListener("submit", playTyped);
$("skip-board").addEventListener("click", (e) => {
  e.preventDefault();
  board.focus();
});
$("prompt").addEventListener("keydown", (e) => {
  if (e.key !== "Escape" || !ui.choice) return;
  e.preventDefault();
  ui.kbd = true;
  cancelSelection();
  board.focus();
});
$("rp-first").addEventListener("click", () => showPosition(0));
$("rp-prev").addEventListener("click", () => showPosition(replayAt() - 1));
$("rp-next").addEventListener("click", () => showPosition(replayAt() + 1));
$("rp-last").addEventListener("click", () => showPosition(ui.view.moves.length));
document.addEventListener("keydown", (e) => {
  // the board's arrow keys move between its cells (board.js), not along the moves
  if (e.defaultPrevented || !ui.view || !ui.view.moves.length || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") $("rp-prev").click();
  if (e.key === "ArrowRight") $("rp-next").click();
});
$("export-json").href = `/api/games/${gameId}/record`;
$("export-txt").href = `/api/games/${gameId}/record.txt`;

async function loadRules(name) {
  try {
    // The rules in the player's language (English where a page is not translated), as on the rules page.
    const r = await api("GET", `/api/learn/${encodeURIComponent(name)}/rules?lang=${encodeURIComponent(currentLanguage())}`);
    $("rules").innerHTML = markdown(r.markdown);
    $("rules-link").href = `/rules/${name}`;
    $("lessons-link").href = `/learn/${encodeURIComponent(name)}`;
  } catch (e) {
    $("rules").textContent = e.detail || String(e);
  }
}

function renderLegend(desc, deco) {
  const node = $("board-legend");
  if (!node) return;
  const key = legendKey(desc, deco); // the game's client module explains its extra drawing
  node.hidden = !key;
  node.textContent = key ? t(key) : "";
  // the colour-blind palette matters where colours carry the game (its client module says so)
  const palette = document.querySelector(".palette-switch");
  if (palette) palette.hidden = !usesPalette(desc);
}


// A seat the signed-in account holds (a plain link, a bookmark, another device: no token in this
// browser): the view read with the session names it (`you`); its seat token is asked once
// (GET /api/account/games/{id}/seat) and kept here, as an invite link's would be, so that every
// control of the seat is shown and the socket follows it.
async function adoptAccountSeat(view) {
  if (mySeats.length || view.you === null || view.you === undefined) return view;
  try {
    const r = await api("GET", `/api/account/games/${encodeURIComponent(gameId)}/seat`);
    tokens[r.seat] = r.token;
    mySeats.push(r.seat);
    saveSeats(gameId, { tokens: { [r.seat]: r.token } });
    return await readView(r.token);
  } catch {
    return view; // the session ended meanwhile: this page watches
  }
}

async function start() {
  await initI18n(["params", "game", "learn", "chat", "seeks", "engine", "account"]);
  let view = null;
  try {
    view = await adoptAccountSeat(await readView(wsToken()));
  } catch (e) {
    showError(refusalText(e));
  }
  setChat(mountChat($("chat"), { gameId, token: wsToken })); // the socket's seat: the chat's pushes follow it
  initRematch({ gameId, token: wsToken(), seats: () => (ui.view ? ui.view.seats : []), showError });
  initPrefs({ sound: true, palette: true });
  window.addEventListener("tessera:pref", (e) => {
    if (e.detail.name === "safePalette") renderAll();
  });
  if (view) {
    try {
      await loadGameClient(view.game); // before the first drawing
      await receive(view);
      loadRules(view.game);
    } catch (e) {
      showError(refusalText(e));
    }
  }
  connect();
}
start();
