// The game page: live board (WebSocket), clicking plays, side panel, replay of finished games.
import { api, ApiError, escapeHtml, loadSeats, saveSeats } from "./api.js";
import { BoardView, nextPathCells, pathStartsWith, pickCell } from "./board.js";
import { markdown } from "./markdown.js";

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
};

const board = new BoardView($("board"), { onCell: (c) => onCell(c) });

// -- connection --------------------------------------------------------------------------
let ws = null;
let retry = 0;
function wsToken() {
  return mySeats.length ? tokens[mySeats[0]] : null;
}
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const t = wsToken();
  const url = `${proto}://${location.host}/api/games/${encodeURIComponent(gameId)}/ws` + (t ? `?token=${encodeURIComponent(t)}` : "");
  ws = new WebSocket(url);
  setConn("connecting");
  ws.onopen = () => {
    retry = 0;
    setConn("online");
    if (ui.error.startsWith("No connection")) showError("");
  };
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "state") receive(msg.view);
    else if (msg.type === "presence") presence(msg.connected);
    else if (msg.type === "ai") onThinking(msg.thinking);
    else if (msg.type === "error") showError(msg.detail);
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
  node.textContent = s === "online" ? "live" : s === "connecting" ? "connecting…" : "reconnecting…";
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
      showError(e.detail || String(e));
    }
  }
  const old = ui.view;
  if (!old || old.move_number !== view.move_number || old.you !== view.you || old.status !== view.status) {
    ui.sel = [];
    ui.choice = null;
  }
  ui.view = view;
  ui.clockAt = performance.now();
  // looking back during a game stays where the player is until he returns (▶| or the last move)
  if (ui.replay !== null && ui.replay >= view.moves.length) ui.replay = null;
  if (ui.replay === null) ui.shown = view.render;
  document.title = `${view.title} — tessera`;
  renderAll();
  viewArrived();
}

// A move is answered by its acknowledgement; its new view comes by the socket (rendered once
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
    const ack = await api("POST", `/api/games/${gameId}/moves`, { token: myToken(), move, expected: v.move_number, view: false });
    ui.sel = [];
    ui.choice = null;
    // the new view comes by the socket; without one (or if it is slow) it is read here
    const live = ws && ws.readyState === 1;
    if (!(live && (await viewAfter(ack.version, 2000)))) {
      await receive(await readView(myToken()));
    }
  } catch (e) {
    showError(e instanceof ApiError ? e.detail : String(e));
    ui.sel = [];
    ui.choice = null;
    renderAll();
  } finally {
    ui.busy = false;
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

function onCell(cell) {
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

function takenCells(o, b, exceptUnit) {
  const taken = new Set();
  for (const u of o.units) {
    if (u.id === exceptUnit) continue;
    const t = b.tokens[u.id];
    if (t && /[@>]/.test(t)) taken.add(tokenCell(u, t));
  }
  return taken;
}

function chooseToken(unitId, token) {
  const o = orderUnits();
  const b = builder();
  if (!o || !b) return;
  if (o.single) b.tokens = {};
  b.tokens[unitId] = token;
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
  if (cur) {
    const taken = takenCells(o, b, cur.id);
    const ch = cur.choices.find((c) => c.path && c.path.length && c.path[0] === cell && !taken.has(cell));
    if (ch) return chooseToken(cur.id, ch.token);
  }
  const unit = o.units.find((u) => u.cell === cell);
  if (unit) {
    b.current = unit.id;
    renderAll();
  }
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
  const cur = o.units.find((u) => u.id === b.current);
  if (!cur) return hints;
  for (const u of o.units) if (u.cell && u.id !== cur.id) hints.set(u.cell, { kind: 0, title: `give ${u.label || u.id} its order` });
  const taken = takenCells(o, b, cur.id);
  for (const c of cur.choices) {
    if (c.path && c.path.length && !taken.has(c.path[0])) {
      hints.set(c.path[0], { kind: choiceKind(cur, c), title: `${cur.label || cur.id}: ${c.label || c.token}` });
    }
  }
  return hints;
}

function tokenLabel(unit, token) {
  const c = unit.choices.find((ch) => ch.token === token);
  return c && c.label ? c.label : token;
}

function orderClickable(o, b) {
  const out = new Set();
  const cur = o.units.find((u) => u.id === b.current);
  if (cur) {
    const taken = takenCells(o, b, cur.id);
    for (const c of cur.choices) if (c.path && c.path.length && !taken.has(c.path[0])) out.add(c.path[0]);
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
  if (o && b) {
    clickable = orderClickable(o, b);
    hints = orderHints(o, b);
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
  board.draw(desc, { clickable, selected, marks, hints });
  $("title").textContent = v.title;
  $("spec").textContent = v.spec + (v.mode === "ai" ? " · against the AI" : v.mode === "hotseat" ? " · hot-seat" : " · online");
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
}

function playerName(desc, p) {
  return (desc.players && desc.players[p] && desc.players[p].name) || `Player ${p}`;
}

function renderStatus(v, desc) {
  let text = desc.status || "";
  if (ui.replay !== null) {
    text = `Replay: move ${ui.replay} of ${v.moves.length}`;
    if (v.status === "active") text += " — ▶| returns to the game";
  }
  else if (v.status === "active" && v.you !== null) {
    if (v.to_move === v.you) text = `${desc.status} — your turn`;
    else if (v.to_move === SIMULTANEOUS) {
      const o = desc.order;
      text = o && o.submitted ? "Your order is sealed; waiting for the other order" : "Give your orders";
    } else if (v.to_move >= 0) {
      const s = v.seats[v.to_move];
      text = `${desc.status}` + (s && s.kind === "ai" ? "" : " — waiting for your opponent");
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

function renderSeats(v, desc) {
  const rows = v.seats.map((s) => {
    const p = s.seat;
    const color = (desc.players[p] && desc.players[p].color) || "#888";
    // the AI's default name already says its level: do not say it twice
    const who = s.kind === "ai" ? (s.name.includes(`AI level ${s.level}`) ? "" : `AI level ${s.level}`) : s.claimed ? "" : "seat free";
    const you = (mySeats.includes(p) ? (mySeats.length > 1 ? " (here)" : " (you)") : "") +
      (desc.players[p] && desc.players[p].resigned ? " (resigned)" : ""); // four-player games go on without him
    const here = mySeats.includes(p) && document.body.dataset.conn === "online"; // hot-seat: every seat is here
    const conn = s.kind === "ai" ? "ai" : s.connected || here ? "on" : "off";
    const score = desc.scores ? `<span class="score" title="score">${desc.scores[p]}</span>` : "";
    let clock = v.clock ? `<span class="clock${v.clock.running.includes(p) ? " running" : ""}" data-seat="${p}">${fmtClock(clockLeft(v, p))}</span>` : "";
    // lichess-style: a player's clock starts with his first move; until then a countdown, then the game is aborted
    if (v.clock && v.status === "active" && firstMoveLeft(v, p) !== null) {
      clock += `<span class="first-move" data-seat="${p}" title="without a first move in time the game is aborted">first move: ${fmtClock(firstMoveLeft(v, p))}</span>`;
    }
    const sealed = v.sealed ? `<span class="sealed">${v.sealed[p] ? "order sealed" : s.kind === "ai" ? "thinking" : "to give orders"}</span>` : "";
    const turn = v.status === "active" && (v.to_move === p || v.to_move === SIMULTANEOUS) ? " to-move" : "";
    return `<div class="seat${turn}" data-seat="${p}">
      <span class="swatch" style="background:${escapeHtml(color)}"></span>
      <span class="name">${escapeHtml(s.name === playerName(desc, p) ? s.name : playerName(desc, p) + ": " + s.name)}${you}</span>
      <span class="who">${escapeHtml(who)}</span>
      <span class="dot dot-${conn}" title="${conn === "on" ? "connected" : conn === "off" ? "not connected" : "computer"}"></span>
      ${sealed}${score}${clock}
    </div>`;
  });
  $("seats").innerHTML = rows.join("");
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
    p.innerHTML = `Your order is sealed: <code>${escapeHtml(desc.order.pending || "")}</code>`;
    box.appendChild(p);
    return;
  }
  if (o && b) return renderOrderBuilder(box, o, b);
  if (curtain()) {
    const p = document.createElement("p");
    p.className = "curtain";
    p.textContent = `Pass the device to ${playerName(desc, v.you)}: the orders are secret.`;
    const bt = button(`Show ${playerName(desc, v.you)}'s orders`, () => {
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
    head.textContent = `On ${ui.sel.join(" → ")}:`;
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
        input.setAttribute("aria-label", `number from ${lo} to ${hi}`);
        // a phone: − / + and a slider, no keyboard needed; the typed value is checked by the server
        const step = (d) => () => {
          const now = parseInt(input.value, 10);
          input.value = String(Math.min(hi, Math.max(lo, (Number.isNaN(now) ? lo : now) + d)));
          slider.value = input.value;
        };
        const minus = button("−", step(-1), "step-btn");
        minus.id = "number-minus";
        minus.setAttribute("aria-label", "one less");
        const plus = button("+", step(1), "step-btn");
        plus.id = "number-plus";
        plus.setAttribute("aria-label", "one more");
        const slider = document.createElement("input");
        slider.type = "range";
        slider.min = lo;
        slider.max = hi;
        slider.value = input.value;
        slider.id = "number-slider";
        slider.setAttribute("aria-label", `number from ${lo} to ${hi}`);
        slider.addEventListener("input", () => {
          input.value = slider.value;
        });
        input.addEventListener("input", () => {
          slider.value = input.value;
        });
        const ok = button("Place", () => {
          const n = input.value.trim();
          if (!/^-?\d+$/.test(n)) return showError(`Write a whole number from ${lo} to ${hi}.`);
          submit(a.template.replace("{n}", String(parseInt(n, 10))));
        }, "primary");
        ok.id = "number-ok";
        input.addEventListener("keydown", (e) => {
          if (e.key === "Enter") ok.click();
        });
        const lab = document.createElement("label");
        lab.className = "number-row";
        lab.textContent = `number (${lo}–${hi}) `;
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
        wrap.appendChild(button(a.label || a.move, () => submit(a.move), "primary"));
      }
    }
    wrap.appendChild(button("Cancel", () => {
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
      ? `Your turn goes on: make another step on the board, or press “${ends[0].label || ends[0].move}”.`
      : "Your turn goes on: make the next step on the board.";
    box.appendChild(p);
  }
  if (!ui.choice && desc.setups && desc.setups.length && v.to_move === v.you) {
    // ready-made first-turn set-ups (Nymbat): placed in one click, then adjusted with what is left
    const box2 = document.createElement("div");
    box2.className = "setups";
    box2.append("Ready-made set-ups — one click places them, then add or end the turn: ");
    for (const s of desc.setups) {
      const bt = button(s.label, () => placeSetup(s.moves), "setup-btn");
      bt.title = s.title || "";
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
    h.textContent = desc.hint;
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
          opt.textContent = a.label || a.move;
          sel.appendChild(opt);
        }
        gdiv.append(sel, button("Play", () => submit(sel.value), "primary"));
      } else {
        for (const a of list) {
          if (a.move !== undefined) {
            const bt = button(a.label || a.move, () => submit(a.move), "action-btn" + (/^end\b/i.test(a.label || a.move) ? " primary" : ""));
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
    p.textContent = "No move to make.";
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
  head.textContent = o.single
    ? "Choose one action for one troop, then submit."
    : "For each troop: click it (or its line), then a target square or a button. Then submit your order.";
  wrap.appendChild(head);
  for (const u of o.units) {
    const row = document.createElement("div");
    row.className = "unit" + (u.id === b.current ? " current" : "");
    row.dataset.unit = u.id;
    const name = document.createElement("button");
    name.className = "unit-name";
    name.textContent = `${u.label || "Unit " + u.id}${u.cell ? " (" + u.cell + ")" : ""}`;
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
      const taken = takenCells(o, b, u.id);
      const free = u.choices.filter((c) => !(c.path && c.path.length && taken.has(c.path[0])));
      // a few choices (battle orders) are buttons too; many (a landing square each) are only on the board
      const few = free.filter((c) => c.path && c.path.length).length <= 12;
      for (const c of free) {
        const onBoard = c.path && c.path.length;
        if (onBoard && !few) continue;
        const bt = button(c.label || c.token, () => chooseToken(u.id, c.token),
          (onBoard ? `choice-kind choice-kind-${choiceKind(u, c)}` : "action-btn") + (b.tokens[u.id] === c.token ? " chosen" : ""));
        bt.dataset.token = c.token;
        list.appendChild(bt);
      }
      row.appendChild(list);
    }
    wrap.appendChild(row);
  }
  const text = orderText(o, b);
  const go = button(text ? `Submit order: ${text}` : "Submit order", () => text && submit(text), "primary");
  go.id = "submit-order";
  go.disabled = !text;
  const clear = button("Clear", () => {
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
      p.textContent = `${v.seats[v.draw_offer].name} offers a draw.`;
      box.appendChild(p);
    }
    return;
  }
  renderDrawOffer(v, box);
  renderUndoRequest(v, box);
  const undo = button(v.mode === "online" ? "Ask to undo" : "Undo", () => act("undo"));
  undo.id = "undo";
  undo.disabled = !v.moves.length;
  const resign = button(ui.resignArmed ? "Really resign?" : "Resign", () => {
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
  if (v.draws && (v.draw_offer === null || v.draw_offer === undefined)) {
    const offer = button("Offer a draw", () => act("draw"));
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
  const names = waiting.map((s) => v.seats[s].name).join(", ");
  const many = v.seats.length > 2;
  if (answerer !== undefined) {
    const as = mySeats.length > 1 ? ` (you answer as ${v.seats[answerer].name})` : "";
    p.textContent = many ? `${v.seats[asker].name} asks to take back a move${as}. ` : "Your opponent asks to take back a move. ";
    const yes = button("Accept", () => act("undo/accept", tokens[answerer]), "primary");
    yes.id = "undo-accept";
    const no = button("Decline", () => act("undo/decline", tokens[answerer]));
    no.id = "undo-decline";
    p.append(yes, no);
  } else if (mySeats.includes(asker)) {
    p.textContent = many
      ? `You asked to take back a move; waiting for ${names || "the others"}.`
      : "You asked to take back a move; waiting for the answer.";
  } else {
    p.textContent = `${v.seats[asker].name} asks to take back a move; waiting for ${names || "the others"}.`;
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
      p.textContent = `${v.seats[offer].name} offers a draw${mySeats.length > 1 ? ` to ${v.seats[answerer].name}` : ""}. `;
      const yes = button("Accept draw", () => act("draw/accept", tokens[answerer]), "primary");
      yes.id = "draw-accept";
      const no = button("Decline", () => act("draw/decline", tokens[answerer]));
      no.id = "draw-decline";
      p.append(yes, no);
      p.append(document.createTextNode(" (a move declines it)"));
    } else {
      p.textContent = "You offered a draw; waiting for the answer (it lapses if your opponent moves).";
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
    showError(e instanceof ApiError ? e.detail : String(e));
  }
}

function renderPanelTable(desc) {
  // one value per player: a column per player, headed by his name and colour; a single value spans them
  const n = (desc.players || []).length;
  const perPlayer = (desc.panel || []).some((r) => r.values.length === n && n > 1);
  const head = perPlayer
    ? `<tr class="players"><th></th>${desc.players
        .map((p) => `<th scope="col"><span class="swatch small" style="background:${escapeHtml(p.color || "#888")}"></span>${escapeHtml(p.name)}</th>`)
        .join("")}</tr>`
    : "";
  const rows = (desc.panel || []).map((r) => {
    const sw = r.color ? `<span class="swatch small" style="background:${escapeHtml(r.color)}"></span>` : "";
    const span = perPlayer && r.values.length === 1 ? ` colspan="${n}"` : "";
    return `<tr><th>${sw}${escapeHtml(r.label)}</th>${r.values.map((x) => `<td${span}>${escapeHtml(x)}</td>`).join("")}</tr>`;
  });
  $("panel-table").innerHTML = head + rows.join("");
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
      const who = t.player === SIMULTANEOUS ? "both" : playerName(desc, t.player);
      const cur = ui.replay !== null && ui.replay >= t.start + 1 && ui.replay <= t.end ? " current" : "";
      // the game's notes on the steps (Nibble: the colour taken), e.g. "c1 i9 (red)"
      const notes = desc.move_notes ? [...new Set(desc.move_notes.slice(t.start, t.end).filter((x) => x && x !== "end"))] : [];
      const note = notes.length ? ` <span class="move-note">(${escapeHtml(notes.join(", "))})</span>` : "";
      return `<li class="turn${cur}" data-end="${t.end}"><span class="who">${escapeHtml(who)}</span> <code>${escapeHtml(t.moves.join(" "))}</code>${note}</li>`;
    })
    .join("");
  if (ui.replay === null) ol.scrollTop = ol.scrollHeight;
  // a turn in the list shows the position after it (during the game too: looking back plays nothing)
  for (const li of ol.querySelectorAll("li")) {
    li.title = "show the position after this turn";
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
    if (ticket === positionTicket) showError(e.detail || String(e));
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

// The analysis board opens for spectators and finished games, never for a player of a game in
// progress (no help during a live game; a hot-seat screen has no opponent to hide it from).
function renderAnalyse(v, at) {
  const allowed = v.status !== "active" || !mySeats.length || v.mode === "hotseat";
  $("analyse-wrap").hidden = !allowed;
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
      div.innerHTML = `Invite a friend to play ${escapeHtml(playerName(v.render, s.seat))}: <input readonly value="${escapeHtml(url)}" id="invite-${s.seat}">`;
      div.appendChild(button("Copy", () => navigator.clipboard && navigator.clipboard.writeText(url)));
      box.appendChild(div);
    }
  }
  if (!mySeats.length && v.public) {
    box.appendChild(button("Join this game", async () => {
      try {
        const r = await api("POST", `/api/games/${gameId}/join`);
        location.replace(r.link);
        location.reload();
      } catch (e) {
        showError(e.detail || String(e));
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
  why.textContent = result.text;
  why.dataset.reason = result.reason || "";
  bn.appendChild(why);
  if (mySeats.length === 1 && w !== null && w !== undefined) {
    const mine = document.createElement("span");
    mine.className = "result-why";
    mine.textContent = w === mySeats[0] ? "— you win!" : "— you lose";
    bn.appendChild(mine);
  }
  if (mySeats.length) {
    const again = button("Rematch", () => rematch(v), "primary");
    again.id = "rematch";
    again.title = v.mode === "hotseat" ? "the same game again" : "the same game again, seats swapped";
    bn.appendChild(again);
  }
  const fresh = document.createElement("a");
  fresh.href = `/?game=${encodeURIComponent(v.game)}`;
  fresh.id = "new-game";
  fresh.className = "button-link";
  fresh.textContent = "New game";
  bn.appendChild(fresh);
  bn.dataset.winner = w ?? "draw";
}

// The same game again with the seats swapped (against the AI: the human takes the other side).
async function rematch(v) {
  const body = { game: v.game, params: v.params, mode: v.mode, public: !!v.public };
  const ai = v.seats.find((s) => s.kind === "ai");
  if (ai) body.ai_level = ai.level;
  if (v.mode !== "hotseat" && mySeats.length === 1) body.seat = (mySeats[0] + 1) % v.seats.length;
  if (v.clock) body.clock = { initial: v.clock.initial, increment: v.clock.increment };
  try {
    const r = await api("POST", "/api/games", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (e) {
    showError(e instanceof ApiError ? e.detail : String(e));
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
  const parts = [`${playerName(v.render, p)} (AI) is thinking… ${elapsed.toFixed(1)} s`];
  if (t && t.budget) parts[0] += ` of about ${t.budget < 1 ? t.budget.toFixed(2) : t.budget.toFixed(1)} s for the turn`;
  const detail = [];
  if (t && t.steps && t.steps.length) detail.push(`${t.steps.length} step${t.steps.length > 1 ? "s" : ""} chosen: ${t.steps.join(" ")}`);
  const st = t && t.stats ? t.stats : {};
  if (st.depth) detail.push(`searched ${st.depth} steps deep`);
  if (st.iterations) detail.push(`${st.iterations.toLocaleString("en")} simulations`);
  if (st.nodes) detail.push(`${st.nodes.toLocaleString("en")} positions`);
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
    node.textContent = fmtClock(clockLeft(v, Number(node.dataset.seat)));
  }
  for (const node of document.querySelectorAll(".first-move[data-seat]")) {
    node.textContent = `first move: ${fmtClock(firstMoveLeft(v, Number(node.dataset.seat)) ?? 0)}`;
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
$("rp-first").addEventListener("click", () => showPosition(0));
$("rp-prev").addEventListener("click", () => showPosition(replayAt() - 1));
$("rp-next").addEventListener("click", () => showPosition(replayAt() + 1));
$("rp-last").addEventListener("click", () => showPosition(ui.view.moves.length));
document.addEventListener("keydown", (e) => {
  if (!ui.view || !ui.view.moves.length || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") $("rp-prev").click();
  if (e.key === "ArrowRight") $("rp-next").click();
});
$("export-json").href = `/api/games/${gameId}/record`;
$("export-txt").href = `/api/games/${gameId}/record.txt`;

async function loadRules(name) {
  try {
    const r = await api("GET", `/api/rules/${name}`);
    $("rules").innerHTML = markdown(r.markdown);
    $("rules-link").href = `/rules/${name}`;
  } catch (e) {
    $("rules").textContent = e.detail || String(e);
  }
}

async function start() {
  try {
    const view = await readView(wsToken());
    await receive(view);
    loadRules(view.game);
  } catch (e) {
    showError(e instanceof ApiError ? e.detail : String(e));
  }
  connect();
}
start();
