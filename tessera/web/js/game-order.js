// The game page's order builder (render description's `order`: every unit of a seat given an order
// at once, sealed until all are in): which unit is being ordered, the board's hints, the panel's list
// of units and its submit button; what the rules allow with the rest of the order, and why not, comes
// from the game's own client module.
import { gameClient, orderContext, textOf, unitName } from "./decorate.js";
import { t } from "./i18n.js";
import { submit } from "./game-play.js";
import { button, mySeats, redraw, ui } from "./game-state.js";

export function orderUnits() {
  const o = ui.shown && ui.shown.order;
  if (!o || ui.replay !== null || !ui.view || ui.view.status !== "active" || o.submitted) return null;
  if (curtain()) return null;
  return o;
}

// Hot-seat with secret orders: the screen is handed over before each player builds his order.
export function curtain() {
  const v = ui.view;
  const o = ui.shown && ui.shown.order;
  return !!(v && o && !o.submitted && mySeats.length > 1 && ui.replay === null && v.status === "active" &&
    ui.revealed !== `${v.move_number}|${v.you}`);
}

// -- the order builder ---------------------------------------------------------------------
export function builder() {
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

// -- what the rules allow between the units of one order: the game's client module says it ----------
// (its export `order` with head, blocked, conflict, whyNot, each optional; Game.client_module), so that
// the builder offers only legal orders and says why not. Without one every choice is offered and the
// server's refusal on submit says what is wrong.
function rules() {
  const c = ui.shown ? gameClient(ui.shown.game) : null;
  return (c && c.order) || {};
}

function context() {
  return orderContext(ui.shown, ui.view ? ui.view.you : null);
}

// Why a choice of a unit is not allowed with the rest of the order, or null.
export function choiceBlocked(o, b, unit, c) {
  const r = rules();
  return r.blocked ? r.blocked(o, b.tokens, unit, c, context()) || null : null;
}

// A whole order that breaks a rule between units: why, or null.
export function orderConflict(o, b) {
  const r = rules();
  return r.conflict ? r.conflict(o, b.tokens, context()) || null : null;
}

// Why clicking a cell that is not a target of the unit being ordered does nothing.
export function whyNot(o, cur, cell) {
  if (!cur) return t("game:order.why_pick_troop");
  const r = rules();
  const why = r.whyNot ? r.whyNot(o, cur, cell, context()) : null;
  return why || t("game:order.why_no_target", { troop: unitName(cur), cell });
}

function headText(o) {
  const r = rules();
  const own = r.head ? r.head(o, context()) : null;
  return own || (o.single ? t("game:order.head_single") : t("game:order.head"));
}

export function showWhy(text) {
  ui.orderWhy = text;
  redraw();
}

export function chooseToken(unitId, token) {
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
  redraw();
}

export function onOrderCell(cell) {
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
    return redraw();
  }
  showWhy(why || whyNot(o, cur, cell));
}

// The kinds of a unit's choices (the first word of their labels: "move", "destroy", …), in order,
// so that the board's dots and the builder's buttons share a colour per kind.
export function choiceKinds(unit) {
  const kinds = [];
  for (const c of unit.choices) {
    if (!c.path || !c.path.length) continue;
    const k = String(c.label || "").split(/\s+/)[0];
    if (!kinds.includes(k)) kinds.push(k);
  }
  return kinds;
}

export function choiceKind(unit, c) {
  if (!c.path || !c.path.length) return 0;
  return Math.min(choiceKinds(unit).indexOf(String(c.label || "").split(/\s+/)[0]), 3);
}

export function orderHints(o, b) {
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
export function choiceLabel(c) {
  return c.label ? textOf(c, "label") : String(c.token);
}

export function tokenLabel(unit, token) {
  const c = unit.choices.find((ch) => ch.token === token);
  return c ? choiceLabel(c) : token;
}

export function orderClickable(o, b) {
  const out = new Set();
  const cur = o.units.find((u) => u.id === b.current);
  if (cur) {
    for (const c of cur.choices) if (c.path && c.path.length && !choiceBlocked(o, b, cur, c)) out.add(c.path[0]);
  }
  for (const u of o.units) if (u.cell) out.add(u.cell);
  return out;
}

export function orderText(o, b) {
  if (o.single) {
    const vals = Object.values(b.tokens);
    return vals.length === 1 ? vals[0] : null;
  }
  if (o.units.some((u) => !b.tokens[u.id])) return null;
  if (orderConflict(o, b)) return null;
  return o.units.map((u) => b.tokens[u.id]).join(o.separator || " ");
}

export function renderOrderBuilder(box, o, b) {
  const wrap = document.createElement("div");
  wrap.className = "order-builder";
  const head = document.createElement("div");
  head.className = "hint";
  head.textContent = headText(o);
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
      redraw();
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
    redraw();
  });
  wrap.append(go, clear);
  box.appendChild(wrap);
}
