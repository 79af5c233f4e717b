// The game page: live board (WebSocket), clicking plays, side panel, replay of finished games.
import { applyStyles } from "./styles.js";
import { api, ApiError, escapeHtml, loadSeats, saveSeats } from "./api.js";
import { askRematch, initRematch, loadRematch, show as showRematch } from "./rematch.js";
import { BoardView, nextPathCells, pathStartsWith, pickCell } from "./board.js";
import { markdown } from "./markdown.js";
import { actionLabel, colourName, colourWord, decorations, legendKey, loadGameClient, localized, panelRows, refusalText, resultText, safeGlyph, specWords, statusText, textOf, usesPalette, whenClientLoads } from "./decorate.js";
import { mountChat } from "./chat.js";
import { applyChange, ViewStream } from "./changes.js";
import { correspondenceHtml, isCorrespondence } from "./deadline.js";
import { currentLanguage, hasKey, initI18n, t } from "./i18n.js";
import { initPrefs, playSound, safePalette } from "./prefs.js";

const tr = t; // where a local "t" (a turn, a token, the AI's report) hides the translation function
const SIMULTANEOUS = -2;
const TERMINAL = -4;
const gameId = decodeURIComponent(location.pathname.split("/")[2] || "");
const $ = (id) => document.getElementById(id);

// -- seat tokens from the link (#seat=1&t=TOKEN or #t0=..&t1=..) and this browser's storage --
function tokensFromHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const tokens = {};
  if (params.get("t") && params.get("seat") !== null) tokens[params.get("seat")] = params.get("t");
  for (const [k, v] of params) {
    const m = /^t(\d+)$/.exec(k);
    if (m) tokens[m[1]] = v;
  }
  return tokens;
}
const stored = saveSeats(gameId, { tokens: tokensFromHash() });
const tokens = stored.tokens; // {seat: token}
const mySeats = Object.keys(tokens).map(Number).sort();

const ui = {
  view: null, // the last view from the server
  shown: null, // the render description on the board
  sel: [], // cells clicked so far
  choice: null, // actions waiting for a number/choice
  order: null, // order builder {moveNumber, tokens: {unit: token}, current}
  replay: null, // null: live; else the move number shown
  replayTarget: null, // the move number a replay click asked for, until its position arrives
  busy: false,
  clockAt: 0,
  resignArmed: false,
  revealed: null, // hot-seat: "moveNumber|seat" whose secret order builder is shown
  error: "",
  thinking: null, // the AI's last progress report {player, budget, elapsed, steps, stats} and when it came
  thinkingAt: 0,
  drawNote: null, // an AI's answer to a draw offer {text, at: the view version it answers}
  orderWhy: "", // why the last click in the order builder did nothing
  kbd: false, // the last press on the board came from the keyboard: the focus goes back to it after a move
};

const board = new BoardView($("board"), { onCell: (c, how) => onCell(c, how), onCancel: () => cancelSelection() });

// -- connection --------------------------------------------------------------------------
let ws = null;
let retry = 0;
// the socket's views: the whole view once, then changes (light moves, docs/render.md); a gap asks it again
const stream = new ViewStream(
  (view) => receive(view),
  () => {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "refresh" }));
  },
);
function wsToken() {
  return mySeats.length ? tokens[mySeats[0]] : null;
}
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const tok = wsToken();
  const url = `${proto}://${location.host}/api/games/${encodeURIComponent(gameId)}/ws?changes=1`;
  // the seat token travels as a subprotocol, never in the URL (which access logs write)
  ws = tok ? new WebSocket(url, ["tessera.seat", `seat.${tok}`]) : new WebSocket(url);
  setConn("connecting");
  stream.reset();
  ws.onopen = () => {
    retry = 0;
    setConn("online");
    if (ui.error === t("common:no_connection")) showError("");
    if (chat) chat.reload(); // messages posted while the socket was closed
  };
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "state") stream.state(msg.view);
    else if (msg.type === "change") stream.change(msg);
    else if (msg.type === "pong") stream.behind(msg.version);
    else if (msg.type === "presence") presence(msg.connected);
    else if (msg.type === "ai") onThinking(msg.thinking);
    else if (msg.type === "chat" && chat) chat.push(msg.message);
    else if (msg.type === "error") showError(msg.detail);
    else if (msg.type === "rematch") showRematch(msg.rematch); // this seat's own view of a rematch offer
  };
  ws.onclose = () => {
    setConn("offline");
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, 300 * 2 ** retry);
  };
}
// A seat's connection came or went: only the dots of the seats panel change.
function presence(connected) {
  const v = ui.view;
  if (!v || !ui.shown) return;
  for (const s of v.seats) s.connected = s.seat < connected.length && connected[s.seat];
  renderSeats(v, ui.shown);
}
function setConn(s) {
  const node = $("conn");
  node.textContent = s === "online" ? t("game:conn.live") : s === "connecting" ? t("game:conn.connecting") : t("game:conn.reconnecting");
  node.className = "conn conn-" + s;
  document.body.dataset.conn = s;
}
setInterval(() => {
  if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "ping" }));
}, 25000);

// Views come by the WebSocket: a "state" message when it opens (also after a reconnection, so
// nothing pushed meanwhile is missed) and after every change. readView() is the one fallback, a
// GET of the same view, used only where the socket cannot bring it: at page start (before it
// opens), after a move whose view it did not bring within 2 s, and for a hot-seat seat other than
// the one the socket follows.
function readView(token) {
  return api("GET", `/api/games/${gameId}`, undefined, token || undefined);
}

// In hot-seat this browser holds every seat: show the view of the seat that must act.
function wantedSeat(view) {
  if (mySeats.length < 2 || view.status !== "active") return view.you;
  if (view.to_move >= 0) return view.to_move;
  if (view.to_move === SIMULTANEOUS && view.sealed) {
    const p = mySeats.find((s) => !view.sealed[s]);
    return p === undefined ? view.you : p;
  }
  return view.you;
}

async function receive(view) {
  // views can arrive out of order (a POST answer after a push of the next move): keep the newest
  if (ui.view && view.version < ui.view.version) return;
  const want = wantedSeat(view);
  if (want !== view.you && want !== null && tokens[want] !== undefined) {
    try {
      view = await readView(tokens[want]);
      if (ui.view && view.version < ui.view.version) return;
    } catch (e) {
      showError(refusalText(e));
    }
  }
  const old = ui.view;
  if (!old || old.move_number !== view.move_number || old.you !== view.you || old.status !== view.status) {
    ui.sel = [];
    ui.choice = null;
    ui.orderWhy = "";
  }
  soundFor(old, view);
  ui.view = view;
  ui.clockAt = performance.now();
  // looking back during a game stays where the player is until he returns (▶| or the last move)
  if (ui.replay !== null && ui.replay >= view.moves.length) ui.replay = null;
  if (ui.replay === null) ui.shown = view.render;
  document.title = `${view.title} — tessera`;
  if (chat) chat.view(view);
  renderAll();
  announceView(old, view);
  viewArrived();
  window.dispatchEvent(new CustomEvent("tessera:view", { detail: { id: view.id, version: view.version } })); // notify.js
}

// Sounds: the end of the game, the player's turn coming back to him, any other move.
function mine(view) {
  if (view.status !== "active" || view.you === null) return false;
  if (view.to_move === view.you) return true;
  return view.to_move === SIMULTANEOUS && !!view.sealed && mySeats.some((s) => !view.sealed[s]);
}

function soundFor(old, view) {
  if (!old || view.version <= old.version) return;
  if (old.status === "active" && view.status !== "active") return playSound("end");
  if (view.move_number === old.move_number) return;
  const lastMove = view.moves[view.moves.length - 1];
  const byOther = lastMove && !mySeats.includes(lastMove.player);
  if (mine(view) && (byOther || !mine(old) || mySeats.length > 1)) return playSound("turn");
  playSound("move");
}

// A move is answered by its acknowledgement and the change of the seat's view (applied in submit());
// the socket brings the change too (rendered once
// for this browser). submit() waits for a view at least as new as the acknowledged version.
const awaited = [];
function viewArrived() {
  for (let i = awaited.length - 1; i >= 0; i--) {
    if (ui.view && ui.view.version >= awaited[i].version) awaited.splice(i, 1)[0].resolve(true);
  }
}
function viewAfter(version, ms) {
  if (ui.view && ui.view.version >= version) return Promise.resolve(true);
  return new Promise((resolve) => {
    const w = { version, resolve };
    awaited.push(w);
    setTimeout(() => {
      const i = awaited.indexOf(w);
      if (i >= 0) awaited.splice(i, 1)[0].resolve(false);
    }, ms);
  });
}

function myToken() {
  const v = ui.view;
  if (v && v.you !== null && tokens[v.you] !== undefined) return tokens[v.you];
  return wsToken();
}

// -- playing -----------------------------------------------------------------------------
async function submit(move) {
  const v = ui.view;
  if (!v || ui.busy) return;
  ui.busy = true;
  showError("");
  try {
    const ack = await postMove(move, v.move_number);
    ui.sel = [];
    ui.choice = null;
    // the answer carries the change of this seat's view: applied at once when it starts from the view shown
    const now = ui.view;
    if (ack.change && now && now.you === ack.you && now.version === ack.change.from) {
      try {
        const next = applyChange(now, ack.change.ops);
        next.version = ack.change.version;
        await receive(next);
      } catch {
        /* a change that does not fit: the socket's view (or the read below) brings it */
      }
    }
    // the new view comes by the socket; without one (or if it is slow) it is read here
    const live = ws && ws.readyState === 1;
    if (!(live && (await viewAfter(ack.version, 2000)))) {
      await receive(await readView(myToken()));
    }
  } catch (e) {
    showError(refusalText(e)); // a refused move in the player's language (its key and args)
    ui.sel = [];
    ui.choice = null;
    renderAll();
  } finally {
    ui.busy = false;
  }
}

// A move whose answer did not come (no connection, storage unavailable: 503, too many requests: 429,
// a proxy's 502/504) is sent again, the same move with the same expected move number, so a retry can
// never play it twice: if the first attempt was stored after all, the server refuses the retry as stale
// (409) and the view read then shows the move played.  Meanwhile the page says "reconnecting".
const RETRY_STATUSES = new Set([0, 429, 502, 503, 504]);
const MOVE_ATTEMPTS = 6;

async function postMove(move, expected) {
  const body = { token: myToken(), move, expected, view: false, change: true };
  let retried = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const ack = await api("POST", `/api/games/${gameId}/moves`, body);
      if (retried) showError("");
      return ack;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (retried && e.status === 409) {
        const now = await readView(myToken());
        if (now.move_number > expected) return { version: now.version }; // the first attempt was stored
      }
      if (!RETRY_STATUSES.has(e.status) || attempt >= MOVE_ATTEMPTS) throw e;
      retried = true;
      const wait = Math.min(10, e.retryAfter || Math.min(8, 0.5 * 2 ** (attempt - 1)));
      showError(`Reconnecting… (${e.detail}) — your move is sent again in ${Math.ceil(wait)} s.`);
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
  }
}

function actions() {
  if (ui.replay !== null || !ui.view || ui.view.status !== "active") return [];
  return ui.shown.actions || [];
}

const startsWith = pathStartsWith;

function orderUnits() {
  const o = ui.shown && ui.shown.order;
  if (!o || ui.replay !== null || !ui.view || ui.view.status !== "active" || o.submitted) return null;
  if (curtain()) return null;
  return o;
}

// Hot-seat with secret orders: the screen is handed over before each player builds his order.
function curtain() {
  const v = ui.view;
  const o = ui.shown && ui.shown.order;
  return !!(v && o && !o.submitted && mySeats.length > 1 && ui.replay === null && v.status === "active" &&
    ui.revealed !== `${v.move_number}|${v.you}`);
}

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
  if (ui.choice && !actions().some((a) => a.path.length > ui.sel.length && startsWith(a.path, ui.sel))) return new Set();
  return nextPathCells(actions(), ui.sel);
}

// -- Nelaxtam order builder --------------------------------------------------------------
function builder() {
  const o = orderUnits();
  if (!o) return null;
  const key = `${ui.view.move_number}|${ui.view.you}`;
  if (!ui.order || ui.order.key !== key) {
    const chosen = {};
    if (!o.single) for (const u of o.units) if (u.default) chosen[u.id] = u.default;
    const first = o.units.find((u) => !chosen[u.id]) || o.units[0];
    ui.order = { key, tokens: chosen, current: first ? first.id : null };
  }
  return ui.order;
}

function tokenCell(unit, token) {
  const c = unit.choices.find((ch) => ch.token === token);
  return c && c.path && c.path.length ? c.path[c.path.length - 1] : null;
}

// -- what the rules allow (so that the builder offers only legal orders and says why not) ----
// "Two of your troops may not end on the same square"; in the invasion "at least by_sea troops
// must land on edge squares" (the outlined ones). The server checks the order again on submit.
function invasion(o) {
  return o.units.some((u) => u.choices.some((c) => /@/.test(c.token)));
}

function bySea() {
  const p = ui.shown && ui.shown.params;
  return p && typeof p.by_sea === "number" ? p.by_sea : 0;
}

function edgeCells() {
  const me = ui.view ? ui.view.you : null;
  return new Set((ui.shown.highlights || []).filter((h) => h.kind === "setup" && (h.owner === me || h.owner === undefined)).map((h) => h.cell));
}

function unitName(u) {
  return u.label ? textOf(u, "label") : t("game:order.unit", { id: u.id });
}

// Where each other troop ends its turn as the order now stands: the square it moves or lands on,
// else (holding, destroying, no order yet) the square it stands on. cell -> unit.
function endCells(o, b, exceptUnit) {
  const out = new Map();
  for (const u of o.units) {
    if (u.id === exceptUnit) continue;
    const tok = o.single && b.tokens[u.id] === undefined ? null : b.tokens[u.id];
    const c = tok && /[@>]/.test(tok) ? tokenCell(u, tok) : u.cell;
    if (c) out.set(c, u);
  }
  return out;
}

// Why a choice of a troop is not allowed with the rest of the order, or null.
function choiceBlocked(o, b, unit, c) {
  if (!c.path || !c.path.length || !/[@>]/.test(c.token)) return null;
  const target = c.path[0];
  const other = endCells(o, b, unit.id).get(target);
  if (other) return t("game:order.why_taken", { troop: unitName(unit), other: unitName(other), cell: target });
  if (/@/.test(c.token)) {
    const need = bySea();
    const edge = edgeCells();
    if (need > 0 && !edge.has(target)) {
      const others = o.units.filter((u) => u.id !== unit.id);
      const onEdge = others.filter((u) => b.tokens[u.id] && edge.has(tokenCell(u, b.tokens[u.id]))).length;
      const free = others.filter((u) => !b.tokens[u.id]).length;
      if (need - onEdge > free) return t("game:order.why_by_sea", { count: need, cell: target });
    }
  }
  return null;
}

// Why clicking a square that is not a target of the troop being ordered does nothing.
function whyNot(o, cur, cell) {
  if (!cur) return t("game:order.why_pick_troop");
  const c = (ui.shown.board.cells || []).find((x) => x.id === cell);
  const removed = c && c.title_key === "cell.removed";
  if (removed) return t("game:order.why_removed", { cell });
  if (invasion(o)) return t("game:order.why_not_own", { troop: unitName(cur), cell });
  return t("game:order.why_battle", { troop: unitName(cur), cell });
}

function showWhy(text) {
  ui.orderWhy = text;
  renderAll();
}

// A whole order that breaks a rule between troops: why, or null.
function orderConflict(o, b) {
  const seen = new Map();
  for (const u of o.units) {
    const tok = b.tokens[u.id];
    const c = tok && /[@>]/.test(tok) ? tokenCell(u, tok) : u.cell;
    if (!c) continue;
    if (seen.has(c)) return t("game:order.why_conflict", { a: unitName(seen.get(c)), b: unitName(u), cell: c });
    seen.set(c, u);
  }
  if (invasion(o) && o.units.every((u) => b.tokens[u.id])) {
    const edge = edgeCells();
    const onEdge = o.units.filter((u) => edge.has(tokenCell(u, b.tokens[u.id]))).length;
    if (onEdge < bySea()) return t("game:order.why_by_sea_total", { count: bySea() });
  }
  return null;
}

function chooseToken(unitId, token) {
  const o = orderUnits();
  const b = builder();
  if (!o || !b) return;
  if (o.single) b.tokens = {};
  b.tokens[unitId] = token;
  ui.orderWhy = "";
  b.touched = b.touched || new Set();
  b.touched.add(unitId);
  // then the next troop: one still without an order, else (defaults such as "hold") the next one
  // in the list not yet ordered by the player, so that he walks through every troop in turn
  const at = o.units.findIndex((u) => u.id === unitId);
  const after = o.units.slice(at + 1).concat(o.units.slice(0, at));
  const next = o.units.find((u) => !b.tokens[u.id]) || after.find((u) => !b.touched.has(u.id));
  b.current = o.single ? unitId : next ? next.id : null;
  renderAll();
}

function onOrderCell(cell) {
  const o = orderUnits();
  const b = builder();
  if (!o || !b || cell === null) return;
  const cur = o.units.find((u) => u.id === b.current);
  const unit = o.units.find((u) => u.cell === cell);
  let why = null;
  if (cur) {
    const ch = cur.choices.find((c) => c.path && c.path.length && c.path[0] === cell);
    if (ch) {
      why = choiceBlocked(o, b, cur, ch);
      if (!why) {
        ui.orderWhy = "";
        return chooseToken(cur.id, ch.token);
      }
    }
  }
  if (unit) {
    b.current = unit.id;
    ui.orderWhy = "";
    return renderAll();
  }
  showWhy(why || whyNot(o, cur, cell));
}

// The kinds of a unit's choices (the first word of their labels: "move", "destroy", …), in order,
// so that the board's dots and the builder's buttons share a colour per kind.
function choiceKinds(unit) {
  const kinds = [];
  for (const c of unit.choices) {
    if (!c.path || !c.path.length) continue;
    const k = String(c.label || "").split(/\s+/)[0];
    if (!kinds.includes(k)) kinds.push(k);
  }
  return kinds;
}

function choiceKind(unit, c) {
  if (!c.path || !c.path.length) return 0;
  return Math.min(choiceKinds(unit).indexOf(String(c.label || "").split(/\s+/)[0]), 3);
}

function orderHints(o, b) {
  const hints = new Map();
  const disabled = new Map();
  const cur = o.units.find((u) => u.id === b.current);
  if (!cur) return { hints, disabled };
  for (const u of o.units) if (u.cell && u.id !== cur.id) hints.set(u.cell, { kind: 0, title: t("game:order.give_order", { troop: unitName(u) }) });
  for (const c of cur.choices) {
    if (!c.path || !c.path.length) continue;
    const why = choiceBlocked(o, b, cur, c);
    if (why) disabled.set(c.path[0], why);
    else hints.set(c.path[0], { kind: choiceKind(cur, c), title: `${unitName(cur)}: ${choiceLabel(c)}` });
  }
  return { hints, disabled };
}

// A choice's label in the player's language ("move to d5", "destroy d6", "land on a3", "hold").
function choiceLabel(c) {
  return c.label ? textOf(c, "label") : String(c.token);
}

function tokenLabel(unit, token) {
  const c = unit.choices.find((ch) => ch.token === token);
  return c ? choiceLabel(c) : token;
}

function orderClickable(o, b) {
  const out = new Set();
  const cur = o.units.find((u) => u.id === b.current);
  if (cur) {
    for (const c of cur.choices) if (c.path && c.path.length && !choiceBlocked(o, b, cur, c)) out.add(c.path[0]);
  }
  for (const u of o.units) if (u.cell) out.add(u.cell);
  return out;
}

function orderText(o, b) {
  if (o.single) {
    const vals = Object.values(b.tokens);
    return vals.length === 1 ? vals[0] : null;
  }
  if (o.units.some((u) => !b.tokens[u.id])) return null;
  if (orderConflict(o, b)) return null;
  return o.units.map((u) => b.tokens[u.id]).join(o.separator || " ");
}

// -- drawing -----------------------------------------------------------------------------
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
  board.draw(localized(desc), { clickable, selected, marks, hints, disabled, ...deco });
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

// -- a board for everyone: what is announced, where the keyboard focus goes, the typed move ------
// A polite live region says the opponent's moves (in the game's notation) with the status that
// follows, and the clock warnings; the status line itself is redrawn too often to be one.
let lastSaid = "";
function announce(text) {
  const node = $("announce");
  if (!node || !text) return;
  node.textContent = text === node.textContent ? `${text}\u00a0` : text; // the same words again are said again
}

function announceView(old, view) {
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

// The clock warnings: the player's own clock passing 30 and 10 seconds is said once each.
const warned = new Map(); // seat -> the thresholds already said
function clockWarnings(v) {
  if (!v || !v.clock || isCorrespondence(v.clock) || v.status !== "active") return;
  for (const s of mySeats) {
    const left = clockLeft(v, s);
    if (left === null || left === undefined) continue;
    const said = warned.get(s) || new Set();
    warned.set(s, said);
    for (const th of [30, 10]) {
      if (left > th + 1) said.delete(th); // the increment gave time back: say it again when it runs low again
      else if (th < v.clock.initial && left <= th && left > 0 && v.clock.running.includes(s) && !said.has(th)) {
        said.add(th);
        announce(t("board:clock_warning", { seconds: th }));
      }
    }
  }
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

// An example of the game's notation for the typed move: one of the moves open now.
function moveExample(desc, o) {
  if (o) return o.units.map((u) => u.default || (u.choices[0] && u.choices[0].token) || "").filter(Boolean).join(o.separator || " ");
  const a = (desc.actions || []).find((x) => x.move !== undefined || x.template);
  if (!a) return "";
  if (a.move !== undefined) return a.move;
  const n = a.number ? a.number[0] : a.choices ? a.choices[0] : 1;
  return a.template.replace("{n}", String(n));
}

function renderMoveForm(v, desc, o) {
  const form = $("move-form");
  form.hidden = !(v.status === "active" && mySeats.length && ui.replay === null && !curtain() && !(desc.order && desc.order.submitted));
  if (form.hidden) return;
  const example = mine(v) ? moveExample(desc, o) : "";
  $("move-help").textContent = example ? t("board:move_help", { example }) : t("board:move_help_plain");
}

async function playTyped(e) {
  e.preventDefault();
  const input = $("move-input");
  const move = input.value.trim().replace(/\s+/g, " ");
  if (!move) return showError(t("board:move_empty"));
  if (!mine(ui.view)) return showError(t("board:not_your_turn"));
  ui.kbd = false;
  await submit(move);
  if (!ui.error) input.value = ""; // a refused move stays, to be mended
  input.focus();
}

function playerName(desc, p) {
  const seat = desc.players && desc.players[p];
  if (seat && seat.name_key) return textOf(seat, "name"); // the seat's name by its key
  return seat && seat.name ? colourName(seat.name) : t("game:player_n", { n: p });
}

function currentLocale() {
  return currentLanguage();
}

function renderStatus(v, desc) {
  const status = statusText(desc);
  let text = status;
  if (ui.replay !== null) {
    text = t("game:replay_status", { n: ui.replay, total: v.moves.length });
    if (v.status === "active") text += ` — ${t("game:replay_back")}`;
  }
  else if (v.status === "active" && v.you !== null) {
    if (v.to_move === v.you) text = `${status} — ${t("game:your_turn")}`;
    else if (v.to_move === SIMULTANEOUS) {
      const o = desc.order;
      text = o && o.submitted ? t("game:order_sealed_waiting") : t("game:give_orders");
    } else if (v.to_move >= 0) {
      const s = v.seats[v.to_move];
      text = status + (s && s.kind === "ai" ? "" : ` — ${t("game:waiting_opponent")}`);
    }
  }
  $("status").textContent = text;
  $("status").dataset.turn = v.status === "active" && (v.to_move === v.you || (v.to_move === SIMULTANEOUS && desc.order && !desc.order.submitted)) ? "yours" : "";
}

function fmtClock(s) {
  s = Math.max(0, s);
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return `${m}:${String(sec).padStart(2, "0")}` + (s < 10 ? `.${Math.floor((s * 10) % 10)}` : "");
}

function firstMoveLeft(v, p) {
  const f = v.clock && v.clock.first_move ? v.clock.first_move[p] : null;
  if (f === null || f === undefined) return null;
  return f - (v.status === "active" ? (performance.now() - ui.clockAt) / 1000 : 0);
}

function clockLeft(v, p) {
  if (!v.clock) return null;
  let left = v.clock.remaining[p];
  if (v.status === "active" && v.clock.running.includes(p)) left -= (performance.now() - ui.clockAt) / 1000;
  return left;
}

// A seat's name: the game's colour name, with the player's own name when he gave one
// ("AI level 2" in the player's language).
function seatName(s) {
  return String(s.name).replace(/AI level (\d+)/, (_, l) => t("game:ai_level", { level: l }));
}

function seatLabel(desc, s) {
  const raw = desc.players && desc.players[s.seat] && desc.players[s.seat].name;
  return s.name === raw ? playerName(desc, s.seat) : `${playerName(desc, s.seat)}: ${seatName(s)}`;
}

function renderSeats(v, desc) {
  const rows = v.seats.map((s) => {
    const p = s.seat;
    const color = (desc.players[p] && desc.players[p].color) || "#888";
    // the AI's default name already says its level: do not say it twice
    const who = s.kind === "ai" ? (s.name.includes(`AI level ${s.level}`) ? "" : t("game:ai_level", { level: s.level })) : s.claimed ? "" : t("game:seat_free");
    const you = (mySeats.includes(p) ? ` (${mySeats.length > 1 ? t("game:here") : t("game:you")})` : "") +
      (desc.players[p] && desc.players[p].resigned ? ` (${t("game:resigned")})` : ""); // four-player games go on without him
    const here = mySeats.includes(p) && document.body.dataset.conn === "online"; // hot-seat: every seat is here
    const conn = s.kind === "ai" ? "ai" : s.connected || here ? "on" : "off";
    const score = desc.scores ? `<span class="score" title="${escapeHtml(t("game:score"))}">${desc.scores[p]}</span>` : "";
    let clock = isCorrespondence(v.clock) ? correspondenceHtml(v, p) : v.clock ? `<span class="clock${v.clock.running.includes(p) ? " running" : ""}" data-seat="${p}">${fmtClock(clockLeft(v, p))}</span>` : "";
    // lichess-style: a player's clock starts with his first move; until then a countdown, then the game is aborted
    if (v.clock && !isCorrespondence(v.clock) && v.status === "active" && firstMoveLeft(v, p) !== null) {
      clock += `<span class="first-move" data-seat="${p}" title="${escapeHtml(t("game:first_move_title"))}">${escapeHtml(t("game:first_move", { time: fmtClock(firstMoveLeft(v, p)) }))}</span>`;
    }
    const sealed = v.sealed ? `<span class="sealed">${escapeHtml(t(v.sealed[p] ? "game:seat_sealed" : s.kind === "ai" ? "game:seat_thinking" : "game:seat_to_order"))}</span>` : "";
    const turn = v.status === "active" && (v.to_move === p || v.to_move === SIMULTANEOUS) ? " to-move" : "";
    return `<div class="seat${turn}" data-seat="${p}">
      <span class="swatch" data-bg="${escapeHtml(color)}"></span>
      <span class="name">${escapeHtml(seatLabel(desc, s))}${you}</span>
      <span class="who">${escapeHtml(who)}</span>
      <span class="dot dot-${conn}" title="${escapeHtml(t(conn === "on" ? "game:dot.on" : conn === "off" ? "game:dot.off" : "game:dot.ai"))}"></span>
      ${sealed}${score}${clock}
    </div>`;
  });
  $("seats").innerHTML = rows.join("");
  applyStyles($("seats"));
}

function button(label, onclick, cls = "") {
  const b = document.createElement("button");
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener("click", onclick);
  return b;
}

function renderPrompt(v, desc, o, b) {
  const box = $("prompt");
  box.innerHTML = "";
  if (ui.replay !== null || v.status !== "active") return;
  if (desc.order && desc.order.submitted) {
    const p = document.createElement("p");
    p.className = "sealed-order";
    p.innerHTML = `${escapeHtml(t("game:order_sealed"))} <code>${escapeHtml(desc.order.pending || "")}</code>`;
    box.appendChild(p);
    return;
  }
  if (o && b) return renderOrderBuilder(box, o, b);
  if (curtain()) {
    const p = document.createElement("p");
    p.className = "curtain";
    p.textContent = t("game:pass_device", { name: playerName(desc, v.you) });
    const bt = button(t("game:show_orders", { name: playerName(desc, v.you) }), () => {
      ui.revealed = `${v.move_number}|${v.you}`;
      renderAll();
    }, "primary");
    bt.id = "reveal";
    p.appendChild(bt);
    box.appendChild(p);
    return;
  }
  // number / choice for the clicked path
  if (ui.choice) {
    const wrap = document.createElement("div");
    wrap.className = "choice";
    const head = document.createElement("div");
    head.textContent = t("game:on_cells", { cells: ui.sel.join(" → ") });
    wrap.appendChild(head);
    for (const a of ui.choice) {
      if (a.number) {
        const [lo, hi] = a.number;
        const input = document.createElement("input");
        input.type = "number";
        input.inputMode = "numeric";
        input.min = lo;
        input.max = hi;
        input.value = Math.min(hi, Math.max(lo, 1));
        input.id = "number-input";
        input.setAttribute("aria-label", t("game:number_range", { lo, hi }));
        // a phone: − / + and a slider, no keyboard needed; the typed value is checked by the server
        const step = (d) => () => {
          const now = parseInt(input.value, 10);
          input.value = String(Math.min(hi, Math.max(lo, (Number.isNaN(now) ? lo : now) + d)));
          slider.value = input.value;
        };
        const minus = button("−", step(-1), "step-btn");
        minus.id = "number-minus";
        minus.setAttribute("aria-label", t("game:one_less"));
        const plus = button("+", step(1), "step-btn");
        plus.id = "number-plus";
        plus.setAttribute("aria-label", t("game:one_more"));
        const slider = document.createElement("input");
        slider.type = "range";
        slider.min = lo;
        slider.max = hi;
        slider.value = input.value;
        slider.id = "number-slider";
        slider.setAttribute("aria-label", t("game:number_range", { lo, hi }));
        slider.addEventListener("input", () => {
          input.value = slider.value;
        });
        input.addEventListener("input", () => {
          slider.value = input.value;
        });
        const ok = button(t("game:place"), () => {
          const n = input.value.trim();
          if (!/^-?\d+$/.test(n)) return showError(t("game:whole_number", { lo, hi }));
          submit(a.template.replace("{n}", String(parseInt(n, 10))));
        }, "primary");
        ok.id = "number-ok";
        input.addEventListener("keydown", (e) => {
          if (e.key === "Enter") ok.click();
        });
        const lab = document.createElement("label");
        lab.className = "number-row";
        lab.textContent = `${t("game:number_label", { lo, hi })} `;
        const row = document.createElement("div");
        row.className = "number-entry";
        row.append(minus, input, plus, ok);
        wrap.append(lab, row, slider);
        if (!matchMedia("(pointer: coarse)").matches) setTimeout(() => input.select(), 0);
      } else if (a.choices) {
        const row = document.createElement("div");
        row.className = "choices";
        for (const c of a.choices) {
          const bt = button(String(c), () => submit(a.template.replace("{n}", String(c))), "choice-btn");
          bt.dataset.value = String(c);
          row.appendChild(bt);
        }
        wrap.appendChild(row);
      } else if (a.move !== undefined) {
        wrap.appendChild(button(actionLabel(a), () => submit(a.move), "primary"));
      }
    }
    wrap.appendChild(button(t("game:cancel"), () => {
      ui.sel = [];
      ui.choice = null;
      renderAll();
    }));
    box.appendChild(wrap);
  }
  const buttons = actions().filter((a) => !a.path || !a.path.length);
  const lastMove = v.moves[v.moves.length - 1];
  if (!ui.choice && v.to_move === v.you && v.to_move >= 0 && lastMove && lastMove.player === v.you && actions().length) {
    // a multi-step turn (Nymbat, Nibble): the turn goes on until the player ends it
    const p = document.createElement("p");
    p.className = "continue-hint";
    const ends = buttons.filter((a) => /^end\b/i.test(a.label || a.move || ""));
    p.textContent = ends.length
      ? t("game:turn_goes_on_end", { button: actionLabel(ends[0]) })
      : t("game:turn_goes_on");
    box.appendChild(p);
  }
  if (!ui.choice && desc.setups && desc.setups.length && v.to_move === v.you) {
    // ready-made first-turn set-ups (Nymbat): placed in one click, then adjusted with what is left
    const box2 = document.createElement("div");
    box2.className = "setups";
    box2.append(`${t("game:setups")} `);
    for (const s of desc.setups) {
      const bt = button(textOf(s, "label"), () => placeSetup(s.moves), "setup-btn");
      bt.title = textOf(s, "title");
      bt.dataset.setup = s.label;
      box2.appendChild(bt);
    }
    box.appendChild(box2);
  }
  if (!ui.choice && desc.hint && v.to_move === v.you) {
    // the game's own word on what may be done now (Nymbat's breakthrough), where the player looks
    const h = document.createElement("p");
    h.className = "continue-hint game-hint";
    h.id = "game-hint";
    h.textContent = textOf(desc, "hint");
    box.appendChild(h);
  }
  if (buttons.length) {
    const row = document.createElement("div");
    row.className = "action-buttons";
    const groups = new Map();
    for (const a of buttons) {
      const g = a.group || "";
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(a);
    }
    for (const [g, list] of groups) {
      const gdiv = document.createElement("div");
      gdiv.className = "group";
      if (g) gdiv.dataset.group = g;
      if (list.length > 12 && list.every((a) => a.move !== undefined)) {
        const sel = document.createElement("select");
        for (const a of list) {
          const opt = document.createElement("option");
          opt.value = a.move;
          opt.textContent = actionLabel(a);
          sel.appendChild(opt);
        }
        gdiv.append(sel, button(t("game:play"), () => submit(sel.value), "primary"));
      } else {
        for (const a of list) {
          if (a.move !== undefined) {
            const bt = button(actionLabel(a), () => submit(a.move), "action-btn" + (/^end\b/i.test(a.label || a.move) ? " primary" : ""));
            bt.dataset.move = a.move;
            gdiv.appendChild(bt);
          }
        }
      }
      row.appendChild(gdiv);
    }
    box.appendChild(row);
  }
  if (v.to_move === v.you && !actions().length) {
    const p = document.createElement("p");
    p.textContent = t("game:no_move");
    box.appendChild(p);
  }
}

// Play the steps of a ready-made set-up one after the other (each is checked by the server).
async function placeSetup(moves) {
  for (const m of moves) {
    await submit(m);
    if (ui.error) break;
  }
}

function renderOrderBuilder(box, o, b) {
  const wrap = document.createElement("div");
  wrap.className = "order-builder";
  const head = document.createElement("div");
  head.className = "hint";
  head.textContent = o.single ? t("game:order.head_single") : invasion(o) ? t("game:order.head_invasion", { n: bySea() }) : t("game:order.head");
  wrap.appendChild(head);
  for (const u of o.units) {
    const row = document.createElement("div");
    row.className = "unit" + (u.id === b.current ? " current" : "");
    row.dataset.unit = u.id;
    const name = document.createElement("button");
    name.className = "unit-name";
    name.textContent = `${unitName(u)}${u.cell ? " (" + u.cell + ")" : ""}`;
    name.addEventListener("click", () => {
      b.current = u.id;
      renderAll();
    });
    const tok = document.createElement("span");
    tok.className = "unit-token";
    tok.textContent = b.tokens[u.id] ? tokenLabel(u, b.tokens[u.id]) : "—";
    if (b.tokens[u.id]) tok.title = b.tokens[u.id];
    tok.dataset.token = b.tokens[u.id] || "";
    row.append(name, tok);
    if (u.id === b.current) {
      // every choice of the troop being ordered, as a button too (the board's dots, same colours)
      const list = document.createElement("div");
      list.className = "unit-choices";
      // a few choices (battle orders) are buttons too; many (a landing square each) are only on the board.
      // A choice the rest of the order rules out stays in the list, marked, and says why when pressed.
      const few = u.choices.filter((c) => c.path && c.path.length).length <= 12;
      for (const c of u.choices) {
        const onBoard = c.path && c.path.length;
        if (onBoard && !few) continue;
        const why = choiceBlocked(o, b, u, c);
        const bt = button(choiceLabel(c), () => (why ? showWhy(why) : chooseToken(u.id, c.token)),
          (onBoard ? `choice-kind choice-kind-${choiceKind(u, c)}` : "action-btn") + (b.tokens[u.id] === c.token ? " chosen" : "") + (why ? " blocked" : ""));
        bt.dataset.token = c.token;
        if (why) {
          bt.setAttribute("aria-disabled", "true");
          bt.title = why;
        }
        list.appendChild(bt);
      }
      row.appendChild(list);
    }
    wrap.appendChild(row);
  }
  const conflict = o.units.every((u) => b.tokens[u.id]) ? orderConflict(o, b) : null;
  const why = ui.orderWhy || conflict;
  if (why) {
    const note = document.createElement("p");
    note.className = "order-why";
    note.id = "order-why";
    note.setAttribute("role", "status");
    note.textContent = why;
    wrap.appendChild(note);
  }
  const text = orderText(o, b);
  const go = button(text ? t("game:order.submit_text", { order: text }) : t("game:order.submit"), () => text && submit(text), "primary");
  go.id = "submit-order";
  go.disabled = !text;
  const clear = button(t("game:order.clear"), () => {
    ui.order = null;
    renderAll();
  });
  wrap.append(go, clear);
  box.appendChild(wrap);
}

function renderControls(v) {
  const box = $("controls");
  box.innerHTML = "";
  if (v.status !== "active" || ui.replay !== null) return;
  if (!mySeats.length) {
    // spectators see a pending draw offer too (it is pushed to every viewer)
    if (v.draw_offer !== null && v.draw_offer !== undefined) {
      const p = document.createElement("div");
      p.className = "undo-request";
      p.id = "draw-offer";
      p.textContent = t("game:draw.offers", { name: seatName(v.seats[v.draw_offer]) });
      box.appendChild(p);
    }
    return;
  }
  renderDrawOffer(v, box);
  renderUndoRequest(v, box);
  const undo = button(v.mode === "online" ? t("game:ask_undo") : t("game:undo_button"), () => act("undo"));
  undo.id = "undo";
  undo.disabled = !v.moves.length;
  const resign = button(ui.resignArmed ? t("game:really_resign") : t("game:resign"), () => {
    if (!ui.resignArmed) {
      ui.resignArmed = true;
      renderAll();
      setTimeout(() => {
        ui.resignArmed = false;
        renderAll();
      }, 4000);
    } else {
      ui.resignArmed = false;
      act("resign");
    }
  }, ui.resignArmed ? "danger" : "");
  resign.id = "resign";
  box.append(undo, resign);
  if (v.abortable) {
    // until every seat has moved (the server's rule, any game): the game ends with no result
    const abort = button(t("game:abort"), () => act("abort"));
    abort.id = "abort";
    abort.title = t("game:abort_title");
    box.append(abort);
  }
  if (v.draws && (v.draw_offer === null || v.draw_offer === undefined)) {
    const offer = button(t("game:draw.offer"), () => act("draw"));
    offer.id = "offer-draw";
    box.append(offer);
  }
}

// Undo requests (online): every other human seat still in the game answers (v.undo_waiting);
// AI seats agree by themselves.  This screen answers for the first of its seats still asked.
function renderUndoRequest(v, box) {
  const asker = v.undo_request;
  if (asker === null || asker === undefined) return;
  const waiting = v.undo_waiting || [];
  const p = document.createElement("div");
  p.className = "undo-request";
  p.id = "undo-request";
  const answerer = mySeats.find((s) => s !== asker && waiting.includes(s));
  const names = waiting.map((s) => seatName(v.seats[s])).join(", ");
  const many = v.seats.length > 2;
  if (answerer !== undefined) {
    const as = mySeats.length > 1 ? ` ${t("game:undo.answer_as", { name: seatName(v.seats[answerer]) })}` : "";
    p.textContent = `${many ? t("game:undo.asks", { name: seatName(v.seats[asker]) }) : t("game:undo.opponent_asks")}${as} `;
    const yes = button(t("game:accept"), () => act("undo/accept", tokens[answerer]), "primary");
    yes.id = "undo-accept";
    const no = button(t("game:decline"), () => act("undo/decline", tokens[answerer]));
    no.id = "undo-decline";
    p.append(yes, no);
  } else if (mySeats.includes(asker)) {
    p.textContent = many
      ? t("game:undo.you_asked_all", { names: names || t("game:the_others") })
      : t("game:undo.you_asked");
  } else {
    p.textContent = t("game:undo.other_asked", { name: seatName(v.seats[asker]), names: names || t("game:the_others") });
  }
  box.appendChild(p);
}

// Draw offers (games whose rules allow a draw): the opponent answers, or lets it lapse by moving.
function renderDrawOffer(v, box) {
  const offer = v.draw_offer;
  if (offer !== null && offer !== undefined) {
    const p = document.createElement("div");
    p.className = "undo-request";
    p.id = "draw-offer";
    const answerer = mySeats.find((s) => s !== offer); // online: my seat; hot-seat: the other player
    if (answerer !== undefined) {
      p.textContent = `${mySeats.length > 1 ? t("game:draw.offers_to", { name: seatName(v.seats[offer]), to: seatName(v.seats[answerer]) }) : t("game:draw.offers", { name: seatName(v.seats[offer]) })} `;
      const yes = button(t("game:draw.accept"), () => act("draw/accept", tokens[answerer]), "primary");
      yes.id = "draw-accept";
      const no = button(t("game:decline"), () => act("draw/decline", tokens[answerer]));
      no.id = "draw-decline";
      p.append(yes, no);
      p.append(document.createTextNode(` ${t("game:draw.move_declines")}`));
    } else {
      p.textContent = t("game:draw.you_offered");
    }
    box.appendChild(p);
  } else if (ui.drawNote && ui.drawNote.at === v.version) {
    const p = document.createElement("div");
    p.className = "undo-request";
    p.id = "draw-offer";
    p.textContent = ui.drawNote.text;
    box.appendChild(p);
  }
}

async function act(what, token) {
  showError("");
  try {
    const view = await api("POST", `/api/games/${gameId}/${what}`, { token: token || myToken() });
    ui.order = null;
    if (view.draw_answer && view.draw_answer !== "accepted") ui.drawNote = { text: `${view.draw_answer}.`, at: view.version };
    await receive(view);
  } catch (e) {
    showError(refusalText(e));
  }
}

function renderPanelTable(desc) {
  // one value per player: a column per player, headed by his name and colour; a single value spans them
  const n = (desc.players || []).length;
  const rowsIn = panelRows(desc);
  const deco = decorations(desc, { safePalette: safePalette() });
  const colour = (c) => deco.recolor.get(String(c || "").toLowerCase()) || c;
  const perPlayer = rowsIn.some((r) => r.values.length === n && n > 1);
  const head = perPlayer
    ? `<tr class="players"><th></th>${desc.players
        .map((p, i) => `<th scope="col"><span class="swatch small" data-bg="${escapeHtml(p.color || "#888")}"></span>${escapeHtml(playerName(desc, i))}</th>`)
        .join("")}</tr>`
    : "";
  const rows = rowsIn.map((r) => {
    const glyph = r.color && safePalette() ? safeGlyph(desc, r.color) : "";
    const sw = r.color ? `<span class="swatch small" data-bg="${escapeHtml(colour(r.color))}"></span>${glyph ? `<span class="glyph">${glyph}</span> ` : ""}` : "";
    const span = perPlayer && r.values.length === 1 ? ` colspan="${n}"` : "";
    return `<tr><th>${sw}${escapeHtml(r.label)}</th>${r.values.map((x) => `<td${span}>${escapeHtml(x)}</td>`).join("")}</tr>`;
  });
  $("panel-table").innerHTML = head + rows.join("");
  applyStyles($("panel-table"));
}

function turnsOf(moves) {
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

function renderMoves(v) {
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
function replayAt() {
  return ui.replayTarget ?? ui.replay ?? ui.view.moves.length;
}

async function showPosition(n) {
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
    renderAll();
  } catch (e) {
    if (ticket === positionTicket) showError(refusalText(e));
  } finally {
    if (ticket === positionTicket) ui.replayTarget = null;
  }
}

function renderReplay(v) {
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

function analysisOpen(v) {
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

function renderAnalyse(v, at) {
  $("analyse-wrap").hidden = !analysisOpen(v);
  $("analyse").href = `/analysis?game=${encodeURIComponent(gameId)}&n=${at}`;
}

function renderInvite(v) {
  const box = $("invite");
  box.innerHTML = "";
  const free = v.seats.filter((s) => s.kind === "human" && !s.claimed);
  if (v.status !== "active" || !free.length) return;
  const invites = loadSeats(gameId).invites || {};
  for (const s of free) {
    if (invites[s.seat]) {
      const url = new URL(invites[s.seat], location.origin).href;
      const div = document.createElement("div");
      div.className = "invite";
      div.innerHTML = `${escapeHtml(t("game:invite", { name: playerName(v.render, s.seat) }))} <input readonly value="${escapeHtml(url)}" id="invite-${s.seat}">`;
      div.appendChild(button(t("game:copy"), () => navigator.clipboard && navigator.clipboard.writeText(url)));
      box.appendChild(div);
    }
  }
  if (!mySeats.length && v.public) {
    box.appendChild(button(t("game:join"), async () => {
      try {
        const r = await api("POST", `/api/games/${gameId}/join`);
        location.replace(r.link);
        location.reload();
      } catch (e) {
        showError(refusalText(e));
      }
    }, "primary"));
  }
}

function renderBanner(v, desc) {
  const bn = $("banner");
  const result = v.result && ui.replay === null ? v.result : null;
  if (!result) {
    bn.hidden = true;
    return;
  }
  bn.hidden = false;
  bn.innerHTML = "";
  const w = result.winner;
  // the sentence names the deciding rule (and so the winner); a seated player also reads what it means for him
  const why = document.createElement("span");
  why.className = "result-head";
  why.id = "result-why";
  why.textContent = resultText(result);
  why.dataset.reason = result.reason || "";
  bn.appendChild(why);
  if (mySeats.length === 1 && w !== null && w !== undefined) {
    const mine = document.createElement("span");
    mine.className = "result-why";
    mine.textContent = `— ${w === mySeats[0] ? t("game:you_win") : t("game:you_lose")}`;
    bn.appendChild(mine);
  }
  showAccounts(v, bn);
  if (mySeats.length && v.mode !== "hotseat") loadRematch();
  if (mySeats.length) {
    const again = button(t("game:rematch"), () => rematch(v), "primary");
    again.id = "rematch";
    again.title = v.mode === "hotseat" ? t("game:rematch_title_hotseat") : t("game:rematch_title");
    bn.appendChild(again);
  }
  const fresh = document.createElement("a");
  fresh.href = `/?game=${encodeURIComponent(v.game)}`;
  fresh.id = "new-game";
  fresh.className = "button-link";
  fresh.textContent = t("game:new_game");
  bn.appendChild(fresh);
  bn.dataset.winner = w ?? "draw";
}

// Accounts at a game's end: each seat's account name and rating change (a rated game), and the
// live challenges of the logged-in player (a rematch offered by the opponent appears there, with
// Accept and Decline; a rematch I offered takes me to the new game once accepted).
let gameAccounts = null; // GET /api/games/{id}/accounts once the game is over (null: not asked yet)

async function showAccounts(v, bn) {
  if (gameAccounts === null) {
    gameAccounts = api("GET", `/api/games/${gameId}/accounts`).catch(() => ({ seats: {} }));
  }
  const acc = await gameAccounts;
  const seats = Object.entries(acc.seats || {});
  if (seats.length && !bn.querySelector("#rating-change")) {
    const box = document.createElement("div");
    box.id = "rating-change";
    box.className = "result-why";
    box.textContent = seats
      .map(([s, a]) => {
        const name = a.username || "(deleted account)";
        if (!a.rating) return name;
        const sign = a.rating.change >= 0 ? "+" : "−";
        const prov = a.rating.provisional ? "?" : "";
        return `${name} ${a.rating.before} → ${a.rating.after}${prov} (${sign}${Math.abs(a.rating.change)})`;
      })
      .join(" · ");
    box.dataset.seats = seats.length;
    bn.appendChild(box);
  }
  if (seats.length && mySeats.length && !$("live-challenges")) {
    const live = document.createElement("section");
    live.id = "live-challenges";
    live.hidden = true;
    live.className = "card live-challenges";
    live.style.margin = "0.6em";
    live.innerHTML = '<ul id="live-challenges-list"></ul>';
    document.querySelector("header.top").after(live); // above the board: the banner is drawn again on every view
    const { liveChallenges } = await import("./challenges.js");
    liveChallenges();
  }
}

// The same game again with the seats swapped (against the AI: the human takes the other side).
// With other people at the table it is asked of them (rematch.js): they accept or decline live,
// and everyone is taken to the new game.
async function rematch(v) {
  const others = v.seats.filter((s) => s.kind === "human" && !mySeats.includes(s.seat));
  if (v.mode !== "hotseat" && others.length && (await askRematch())) return;
  // never listed in the lobby: a stranger must not take the seat meant for the same opponent
  const body = { game: v.game, params: v.params, mode: v.mode, public: false };
  const ai = v.seats.find((s) => s.kind === "ai");
  if (ai) body.ai_level = ai.level;
  if (v.mode !== "hotseat" && mySeats.length === 1) body.seat = (mySeats[0] + 1) % v.seats.length;
  if (v.clock) body.clock = isCorrespondence(v.clock) ? { days: v.clock.days } : { initial: v.clock.initial, increment: v.clock.increment };
  try {
    const r = await api("POST", "/api/games", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (e) {
    showError(refusalText(e));
  }
}

function showError(text) {
  ui.error = text;
  const e = $("error");
  e.textContent = text;
  e.hidden = !text;
}

// -- the AI's thinking indicator: elapsed time against its budget for the turn, steps chosen, search depth --
function onThinking(info) {
  ui.thinking = info;
  ui.thinkingAt = performance.now();
  renderThinking();
}

function aiToMove(v) {
  if (!v || v.status !== "active") return null;
  if (v.to_move >= 0) return v.seats[v.to_move] && v.seats[v.to_move].kind === "ai" ? v.to_move : null;
  if (v.to_move === SIMULTANEOUS && v.sealed) {
    const s = v.seats.find((x) => x.kind === "ai" && !v.sealed[x.seat]);
    return s ? s.seat : null;
  }
  return null;
}

function renderThinking() {
  const box = $("thinking");
  const v = ui.view;
  const p = aiToMove(v);
  if (p === null || ui.replay !== null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const t = ui.thinking && ui.thinking.player === p ? ui.thinking : null;
  const since = t ? ui.thinkingAt : ui.clockAt;
  const elapsed = (t ? t.elapsed : 0) + (performance.now() - since) / 1000;
  const loc = currentLocale();
  const parts = [tr("game:thinking.text", { name: playerName(v.render, p), seconds: elapsed.toFixed(1) })];
  if (t && t.budget) parts[0] += ` ${tr("game:thinking.budget", { seconds: t.budget < 1 ? t.budget.toFixed(2) : t.budget.toFixed(1) })}`;
  const detail = [];
  if (t && t.steps && t.steps.length) detail.push(tr("game:thinking.steps", { count: t.steps.length, steps: t.steps.join(" ") }));
  const st = t && t.stats ? t.stats : {};
  if (st.depth) detail.push(tr("game:thinking.depth", { depth: st.depth }));
  if (st.iterations) detail.push(tr("game:thinking.simulations", { n: st.iterations.toLocaleString(loc) }));
  if (st.nodes) detail.push(tr("game:thinking.positions", { n: st.nodes.toLocaleString(loc) }));
  $("thinking-text").textContent = parts[0];
  $("thinking-detail").textContent = detail.join(" · ");
  const bar = $("thinking-bar");
  bar.max = 1;
  bar.value = t && t.budget ? Math.min(1, elapsed / t.budget) : 0;
  bar.hidden = !(t && t.budget);
}
setInterval(renderThinking, 200);

// -- clocks tick locally -----------------------------------------------------------------
setInterval(() => {
  const v = ui.view;
  if (!v || !v.clock || v.status !== "active") return;
  for (const node of document.querySelectorAll(".clock[data-seat]")) {
    const left = clockLeft(v, Number(node.dataset.seat));
    node.textContent = fmtClock(left);
    node.classList.toggle("low", left < 10 && v.clock.running.includes(Number(node.dataset.seat)));
  }
  clockWarnings(v);
  for (const node of document.querySelectorAll(".first-move[data-seat]")) {
    node.textContent = t("game:first_move", { time: fmtClock(firstMoveLeft(v, Number(node.dataset.seat)) ?? 0) });
  }
}, 200);

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

let chat = null; // the chat panel (chat.js)

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
  chat = mountChat($("chat"), { gameId, token: wsToken }); // the socket's seat: the chat's pushes follow it
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
