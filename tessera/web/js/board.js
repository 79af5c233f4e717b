// One SVG renderer for every board, drawn from a render description (docs/render.md).
// It knows no game: hex (pointy-top, circumradius 1) and square (unit) cells at x/y,
// pieces, highlights, the last move, coordinates, clickable targets; pan/zoom for the
// unbounded plane.
// One file because BoardView is one class whose drawing, keyboard focus and pan/zoom share its SVG,
// its view box and its roving focus; the click-path protocol it serves is board-paths.js.
//
// A board for everyone (WCAG 2.2 AA): a board that plays is a labelled group whose cells are
// buttons, each named by what is on it (coordinates in the game's notation, piece, owner, what a
// press does); one cell at a time is in the Tab order (a roving tabindex), the arrow keys move
// between cells, Enter or Space presses the cell (as a click), Escape cancels the selection. A
// fixed board (a rule diagram) is one labelled picture. The drawing itself is hidden from
// screen readers: the cells' names say everything it shows.
import { textOf } from "./decorate.js";
import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const SQ3 = Math.sqrt(3);
// the smallest coordinate lettering drawn, in CSS pixels: smaller ones (a big board, a phone) are
// hidden until the player zooms in; each cell still names its coordinates to a screen reader
const MIN_COORD_PX = 10;

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(node);
  return node;
}

function hexPoints(x, y, r) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 90);
    pts.push(`${(x + r * Math.cos(a)).toFixed(3)},${(y + r * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

// Perceived lightness of a #rrggbb colour, 0..1.
export function lightness(color) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color || "");
  if (!m) return 0.5;
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => parseInt(h, 16) / 255);
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

const HIGHLIGHT_COLORS = {
  last: "#ff8c00",
  nest: "#7a5c00",
  home: "#2d5fc8",
  setup: "#3c8f3c",
  target: "#1e90ff",
  warning: "#d11a2a",
};

// The words of the board, from the "board" catalogue (English until the page's catalogues are in).
function say(key, english, args = {}) {
  const text = t(`board:${key}`, { ...args, defaultValue: english });
  return text.replace(/\{\{(\w+)\}\}/g, (m, k) => (k in args ? String(args[k]) : m)); // before the catalogues
}

let boards = 0; // ids of the boards' help texts

export class BoardView {
  // container: element to hold the SVG; onCell(cellId) is called on clicks and onCell(cellId,
  // {keyboard: true}) on Enter/Space on a cell; onCancel() on Escape (default: onCell(null), as a
  // click beside the cells); fixed: never pans or zooms and takes no key (a picture in a page: the
  // wheel keeps scrolling the page); label: what screen readers call the board (default: "<game
  // title> board").
  constructor(container, { onCell, onCancel, fixed = false, label = null } = {}) {
    this.container = container;
    this.onCell = onCell || (() => {});
    this.onCancel = onCancel || (() => this.onCell(null));
    this.fixed = fixed;
    this.label = label;
    this.focusId = null; // the cell in the Tab order (roving tabindex)
    this.svg = el("svg", { class: "board", role: fixed ? "img" : "group" });
    this.svg.setAttribute("xmlns", SVG);
    container.appendChild(this.svg);
    if (!fixed) {
      // how to play it, read after the board's name (and shown while a cell has the keyboard focus)
      this.help = document.createElement("p");
      this.help.className = "board-help";
      this.help.id = `board-help-${++boards}`;
      this.svg.setAttribute("aria-describedby", this.help.id);
      container.appendChild(this.help);
      this.svg.addEventListener("keydown", (e) => this._onKey(e));
      this.svg.addEventListener("focusin", (e) => this._onFocus(e));
      this.svg.addEventListener("focusout", () => this.svg.classList.remove("cell-focus"));
    }
    this.view = null; // current viewBox [x, y, w, h]
    this.showCoords = true;
    this._drag = null;
    this._installPanZoom();
    window.addEventListener("resize", () => this._applyView());
  }

  // desc: render description; ui: {clickable: Set, selected: Set, marks: Map cell->text,
  // keep: the player's last press on the board came from the keyboard, so the cell he was on keeps
  // the Tab stop even while the focus is in a question it asked (a move's answer may arrive then)}
  draw(desc, ui = {}) {
    this.desc = desc;
    const board = desc.board;
    const hex = board.kind !== "square";
    const clickable = ui.clickable || new Set();
    const selected = ui.selected || new Set();
    const marks = ui.marks || new Map();
    const hints = ui.hints || new Map(); // cell -> {kind: 0.., title}: what a click there does
    // decorations (decorate.js): links between a group's stones, a badge per group, a label or a
    // glyph on a piece, colours swapped for another palette, targets offered but not allowed now
    const links = ui.links || [];
    const badges = ui.badges || new Map();
    const labels = ui.labels || new Map();
    const glyphs = ui.glyphs || new Map();
    const recolor = ui.recolor || new Map();
    const disabled = ui.disabled || new Map(); // cell -> why a click there does nothing now
    const svg = this.svg;
    const hadFocus = !this.fixed && svg.contains(document.activeElement);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.dataset.kind = board.kind;
    svg.dataset.game = desc.game;
    const cells = board.cells;
    const name = this.label || say("board", "{{title}} board", { title: desc.title || desc.game });
    svg.setAttribute("aria-label", name);
    if (this.help) this.help.textContent = say("help", "Arrow keys move between the cells, Enter or Space plays the cell, Escape cancels.");
    // bounds
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const c of cells) {
      minX = Math.min(minX, c.x); maxX = Math.max(maxX, c.x);
      minY = Math.min(minY, c.y); maxY = Math.max(maxY, c.y);
    }
    const pad = hex ? 1.3 : 0.9;
    const fit = [minX - pad, minY - pad, maxX - minX + 2 * pad, maxY - minY + 2 * pad];
    // Keep the player's zoom/pan across redraws; a bounded board refits only when its shape changes
    // (another game, another size); the unbounded plane follows the play unless the player moved it.
    const sameShape = this.fitBox && this._shapeKey === `${desc.game}|${board.kind}|${cells.length}`;
    if (this.view === null || !this._userMoved || (!board.unbounded && !sameShape)) {
      this.view = fit.slice();
      this._userMoved = false;
    }
    this._shapeKey = `${desc.game}|${board.kind}|${cells.length}`;
    this.fitBox = fit;
    this._followLastMove(desc);
    this._applyView();

    const byCell = new Map(cells.map((c) => [c.id, c]));
    this.byCell = byCell;
    this.focusId = this._rovingCell(cells, clickable, desc, hadFocus || !!ui.keep);
    const names = this.fixed ? null : this._cellNames(desc, { clickable, selected, marks, hints, disabled, labels });
    // the drawing is for the eyes; a screen reader hears the cells' names (a fixed board: its label)
    const hidden = { "aria-hidden": "true" };
    const gCells = el("g", { class: "cells", ...(this.fixed ? hidden : {}) }, svg);
    const gHigh = el("g", { class: "highlights", ...hidden }, svg);
    const gPieces = el("g", { class: "pieces", ...hidden }, svg);
    const gCoords = el("g", { class: "coords", ...hidden }, svg);
    const gTargets = el("g", { class: "targets", ...hidden }, svg);
    const r = hex ? 0.97 : 0.5;
    const defaultFill = hex ? "#e9e2cf" : "#efe8d6";

    for (const c of cells) {
      const attrs = {
        class: "cell" + (clickable.has(c.id) ? " clickable" : "") + (selected.has(c.id) ? " selected" : ""),
        fill: c.fill || defaultFill,
        "data-cell": c.id,
      };
      if (names) {
        attrs.role = "button";
        attrs.tabindex = c.id === this.focusId ? 0 : -1;
        attrs["aria-label"] = names.get(c.id);
        if (!clickable.has(c.id)) attrs["aria-disabled"] = "true";
        if (selected.has(c.id)) attrs["aria-pressed"] = "true";
      }
      const shape = hex
        ? el("polygon", { ...attrs, points: hexPoints(c.x, c.y, r) }, gCells)
        : el("rect", { ...attrs, x: c.x - 0.5, y: c.y - 0.5, width: 1, height: 1 }, gCells);
      if (c.title) el("title", {}, shape).textContent = `${c.id}: ${c.title}`;
      else el("title", {}, shape).textContent = c.id;
    }

    for (const h of desc.highlights || []) {
      const c = byCell.get(h.cell);
      if (!c) continue;
      const color = h.color || HIGHLIGHT_COLORS[h.kind] || "#888";
      if (h.kind === "last") continue; // drawn with the last move below
      const w = h.kind === "nest" || h.kind === "warning" ? 0.16 : 0.1;
      const attrs = { class: `hl hl-${h.kind}`, fill: "none", stroke: color, "stroke-width": w, "data-cell": h.cell };
      const rr = hex ? 0.8 : 0.4;
      const node = hex
        ? el("polygon", { ...attrs, points: hexPoints(c.x, c.y, rr) }, gHigh)
        : el("rect", { ...attrs, x: c.x - rr, y: c.y - rr, width: 2 * rr, height: 2 * rr }, gHigh);
      if (h.title) el("title", {}, node).textContent = h.title;
    }

    if (this.showCoords) {
      const fs = hex ? 0.26 : 0.19;
      for (const c of cells) {
        // a dark square gets light lettering (Nelaxtam's dark squares: no dark on dark)
        const dark = lightness(c.fill || defaultFill) < 0.45;
        el("text", {
          class: dark ? "coord coord-on-dark" : "coord",
          x: hex ? c.x : c.x - 0.46,
          y: hex ? c.y - 0.6 : c.y - 0.31,
          "font-size": fs,
          "text-anchor": hex ? "middle" : "start",
        }, gCoords).textContent = c.id;
      }
    }

    const gLinks = el("g", { class: "links" }, gHigh);
    for (const [a, b, color] of links) {
      const ca = byCell.get(a);
      const cb = byCell.get(b);
      if (!ca || !cb) continue;
      const w = hex ? 0.5 : 0.3;
      el("line", { class: "link-edge", x1: ca.x, y1: ca.y, x2: cb.x, y2: cb.y, "stroke-width": w + 0.1, "data-link": `${a}-${b}` }, gLinks);
      el("line", { class: "link", x1: ca.x, y1: ca.y, x2: cb.x, y2: cb.y, stroke: recolor.get((color || "").toLowerCase()) || color || "#888", "stroke-width": w }, gLinks);
    }

    const last = new Set(desc.last_move || []);
    for (const p of desc.pieces || []) {
      const c = byCell.get(p.cell);
      if (!c) continue;
      const own = p.color || (p.owner === 0 ? "#1d1d1f" : p.owner === 1 ? "#f4f1ea" : "#999");
      const color = recolor.get(own.toLowerCase()) || own;
      const dark = lightness(color) < 0.55;
      const g = el("g", { class: "piece", "data-cell": p.cell, "data-owner": p.owner ?? "" }, gPieces);
      const shapeName = p.shape || "disc";
      const stroke = dark ? "#000" : "#555";
      if (shapeName === "block") {
        const s = hex ? 1.3 : 0.92;
        if (hex) el("polygon", { points: hexPoints(c.x, c.y, 0.88), fill: color, stroke, "stroke-width": 0.04 }, g);
        else el("rect", { x: c.x - s / 2, y: c.y - s / 2, width: s, height: s, rx: 0.08, fill: color, stroke, "stroke-width": 0.03 }, g);
      } else if (shapeName === "square") {
        const s = hex ? 1.0 : 0.66;
        el("rect", { x: c.x - s / 2, y: c.y - s / 2, width: s, height: s, rx: 0.06, fill: color, stroke, "stroke-width": 0.05 }, g);
      } else {
        el("circle", { cx: c.x, cy: c.y, r: hex ? 0.56 : 0.36, fill: color, stroke, "stroke-width": 0.05 }, g);
      }
      const text = p.text || labels.get(p.cell) || "";
      if (text) {
        const fs = String(text).length > 2 ? 0.42 : 0.55;
        el("text", {
          class: "piece-text" + (p.text ? "" : " piece-label"),
          x: c.x, y: c.y + fs * 0.36,
          "font-size": hex ? fs : fs * 0.75,
          "text-anchor": "middle",
          fill: dark ? "#fff" : "#111",
        }, g).textContent = text;
      }
      if (glyphs.has(p.cell)) {
        el("text", {
          class: "piece-glyph",
          x: c.x + (hex ? 0.5 : 0.3), y: c.y - (hex ? 0.3 : 0.2),
          "font-size": hex ? 0.36 : 0.26,
          "text-anchor": "middle",
          fill: dark ? "#fff" : "#111",
        }, g).textContent = glyphs.get(p.cell);
      }
      el("title", {}, g).textContent = `${p.cell}${p.title ? ": " + p.title : ""}`;
    }

    const gBadges = el("g", { class: "badges" }, svg);
    for (const [id, b] of badges) {
      const c = byCell.get(id);
      if (!c) continue;
      const fs = hex ? 0.34 : 0.24;
      const w = Math.max(0.5, String(b.text).length * fs * 0.62 + 0.16);
      const y = c.y + (hex ? 0.52 : 0.3);
      const g = el("g", { class: `badge badge-${b.kind || "info"}`, "data-cell": id }, gBadges);
      el("rect", { x: c.x - w / 2, y: y - fs * 0.62, width: w, height: fs * 1.25, rx: fs * 0.6 }, g);
      el("text", { x: c.x, y: y + fs * 0.33, "font-size": fs, "text-anchor": "middle" }, g).textContent = b.text;
      if (b.title) el("title", {}, g).textContent = b.title;
    }

    for (const id of last) {
      const c = byCell.get(id);
      if (!c) continue;
      el("circle", { class: "last-move", cx: c.x, cy: c.y, r: hex ? 0.78 : 0.44, fill: "none",
        stroke: HIGHLIGHT_COLORS.last, "stroke-width": 0.09, "stroke-dasharray": "0.25 0.12", "data-cell": id }, gHigh);
    }

    // a target on an empty cell is a dot; on a piece it is a ring, so the piece's number stays readable
    const occupied = new Set((desc.pieces || []).map((p) => p.cell));
    for (const id of clickable) {
      const c = byCell.get(id);
      if (!c) continue;
      const hint = hints.get(id);
      const kind = hint && hint.kind ? ` target-kind-${hint.kind}` : "";
      const node = occupied.has(id)
        ? el("circle", { class: "target-dot target-ring" + kind, cx: c.x, cy: c.y, r: hex ? 0.74 : 0.44, "data-cell": id }, gTargets)
        : el("circle", { class: "target-dot" + kind, cx: c.x, cy: c.y, r: hex ? 0.2 : 0.14, "data-cell": id }, gTargets);
      if (hint && hint.title) el("title", {}, node).textContent = `${id}: ${hint.title}`;
    }
    for (const [id, why] of disabled) {
      const c = byCell.get(id);
      if (!c || clickable.has(id)) continue;
      const node = el("circle", { class: "target-disabled", cx: c.x, cy: c.y, r: hex ? 0.24 : 0.16, "data-cell": id }, gTargets);
      if (why) el("title", {}, node).textContent = `${id}: ${why}`;
    }
    for (const id of selected) {
      const c = byCell.get(id);
      if (!c) continue;
      el("circle", { class: "selected-ring", cx: c.x, cy: c.y, r: hex ? 0.7 : 0.42, fill: "none", "data-cell": id }, gTargets);
    }
    for (const [id, text] of marks) {
      const c = byCell.get(id);
      if (!c) continue;
      const g = el("g", { class: "order-mark", "data-cell": id }, gTargets);
      el("circle", { cx: c.x + (hex ? 0.45 : 0.28), cy: c.y + (hex ? 0.45 : 0.28), r: hex ? 0.3 : 0.2 }, g);
      el("text", { x: c.x + (hex ? 0.45 : 0.28), y: c.y + (hex ? 0.56 : 0.35), "font-size": hex ? 0.34 : 0.24,
        "text-anchor": "middle" }, g).textContent = text;
    }
    if (!this.fixed) {
      // the keyboard focus: a black and a white outline, seen on any cell colour in either theme
      const ring = el("g", { class: "focus-ring", "aria-hidden": "true" }, svg);
      // on the cell's edge (its coordinates stay readable inside), above every drawing
      const rr = hex ? 1.0 : 0.55;
      const shape = (cls, w) => hex
        ? el("polygon", { class: cls, points: hexPoints(0, 0, rr), "stroke-width": w }, ring)
        : el("rect", { class: cls, x: -rr, y: -rr, width: 2 * rr, height: 2 * rr, rx: 0.05, "stroke-width": w }, ring);
      shape("focus-outer", hex ? 0.17 : 0.14);
      shape("focus-inner", hex ? 0.06 : 0.05);
      this.ring = ring;
      this._placeRing();
      if (hadFocus) this.focus();
    }
  }

  // -- keyboard ----------------------------------------------------------------------------------
  // The cell that takes the Tab stop: the one the player was on, while it is still on the board and
  // he is on the board or it still plays; else the first cell that plays (reading order: top row
  // first, left to right), else the last move, else the first cell.
  _rovingCell(cells, clickable, desc, hadFocus) {
    const here = this.focusId !== null && cells.some((c) => c.id === this.focusId);
    if (here && (hadFocus || clickable.has(this.focusId))) return this.focusId;
    const order = cells.slice().sort((a, b) => (Math.abs(a.y - b.y) > 0.3 ? a.y - b.y : a.x - b.x));
    const first = order.find((c) => clickable.has(c.id));
    if (first) return first.id;
    if (here) return this.focusId;
    const last = (desc.last_move || []).find((id) => cells.some((c) => c.id === id));
    return last || (order[0] ? order[0].id : null);
  }

  // What a screen reader says of each cell: its coordinates (the game's own notation, as moves are
  // written), what it is (a cell's title), the piece on it (owner, number, title), the marks on it
  // (last move, selected, an order), and what pressing it does (plays, or why not). cell -> text.
  _cellNames(desc, { clickable, selected, marks, hints, disabled, labels }) {
    const players = desc.players || [];
    const owner = (p) => (p.owner === null || p.owner === undefined || !players[p.owner] ? "" : textOf(players[p.owner], "name"));
    const parts = new Map(desc.board.cells.map((c) => [c.id, []]));
    const add = (id, text) => {
      if (text && parts.has(id) && !parts.get(id).includes(text)) parts.get(id).push(text);
    };
    for (const c of desc.board.cells) add(c.id, c.title);
    for (const p of desc.pieces || []) {
      const who = owner(p);
      const title = p.title || "";
      const text = p.text || labels.get(p.cell) || "";
      const bits = [];
      if (who && !title.includes(who)) bits.push(who);
      if (text && !title.includes(String(text))) bits.push(String(text));
      if (title) bits.push(title);
      add(p.cell, bits.length ? bits.join(" ") : say("piece", "a piece"));
    }
    for (const h of desc.highlights || []) if (h.kind !== "last" && h.title) add(h.cell, h.title);
    for (const id of desc.last_move || []) add(id, say("last_move", "last move"));
    for (const id of selected) add(id, say("selected", "selected"));
    for (const [id, text] of marks) add(id, say("order_mark", "order of {{unit}}", { unit: text }));
    for (const id of clickable) {
      const hint = hints.get(id);
      add(id, hint && hint.title ? hint.title.replace(new RegExp(`^${id}: `), "") : say("playable", "playable"));
    }
    for (const [id, why] of disabled) if (!clickable.has(id)) add(id, why || say("not_now", "not now"));
    const out = new Map();
    for (const [id, list] of parts) out.set(id, [id, ...(list.length ? list : [say("empty", "empty")])].join(", "));
    return out;
  }

  // The cell with the Tab stop takes the keyboard focus (a redraw keeps it where the player was).
  focus() {
    const node = this.focusId === null ? null : this.svg.querySelector(`.cell[data-cell="${CSS.escape(this.focusId)}"]`);
    if (node) node.focus({ preventScroll: true });
  }

  _cellNode(id) {
    return this.svg.querySelector(`.cell[data-cell="${CSS.escape(id)}"]`);
  }

  _onFocus(e) {
    const id = e.target.getAttribute ? e.target.getAttribute("data-cell") : null;
    if (id === null || !e.target.classList.contains("cell")) return;
    if (id !== this.focusId) {
      const old = this.focusId === null ? null : this._cellNode(this.focusId);
      if (old) old.setAttribute("tabindex", "-1");
      e.target.setAttribute("tabindex", "0");
      this.focusId = id;
    }
    // the ring for the keyboard; a click leaves none (the focus a pointer gives is not "visible"),
    // nor moves the view
    const keyboard = e.target.matches(":focus-visible");
    this.svg.classList.toggle("cell-focus", keyboard);
    this._placeRing();
    if (keyboard) this._bringIntoView(id);
  }

  _placeRing() {
    const c = this.ring && this.byCell && this.focusId !== null ? this.byCell.get(this.focusId) : null;
    if (!c) return;
    this.ring.setAttribute("transform", `translate(${c.x} ${c.y})`);
  }

  // A cell reached by the keyboard outside the shown part of a panned or zoomed board: the view
  // moves to it (same zoom).
  _bringIntoView(id) {
    const c = this.byCell ? this.byCell.get(id) : null;
    if (!c || !this.view || !this._canPan()) return;
    const [x, y, w, h] = this.view;
    if (c.x > x + 0.8 && c.x < x + w - 0.8 && c.y > y + 0.8 && c.y < y + h - 0.8) return;
    this.view = [c.x - w / 2, c.y - h / 2, w, h];
    this._applyView();
  }

  // The cell an arrow key leads to from `from`: along its row (left, right), or in the nearest row
  // above or below, the cell nearest across (a hex row is offset by half a cell: up prefers the
  // left one, down the right one, so that up then down comes back). Home/End: the row's ends.
  neighbour(from, key) {
    const cur = this.byCell && this.byCell.get(from);
    if (!cur) return null;
    const cells = [...this.byCell.values()];
    const sameRow = (c) => Math.abs(c.y - cur.y) < 0.3;
    let best = null;
    let bestScore = Infinity;
    for (const c of cells) {
      if (c.id === from) continue;
      const dx = c.x - cur.x, dy = c.y - cur.y;
      let score = null;
      if (key === "ArrowRight" && sameRow(c) && dx > 0.1) score = dx;
      else if (key === "ArrowLeft" && sameRow(c) && dx < -0.1) score = -dx;
      else if (key === "Home" && sameRow(c) && dx < -0.1) score = dx;
      else if (key === "End" && sameRow(c) && dx > 0.1) score = -dx;
      else if (key === "ArrowUp" && dy < -0.3) score = -dy * 1000 + Math.abs(dx) + (dx > 0 ? 0.01 : 0);
      else if (key === "ArrowDown" && dy > 0.3) score = dy * 1000 + Math.abs(dx) + (dx < 0 ? 0.01 : 0);
      if (score !== null && score < bestScore) {
        bestScore = score;
        best = c.id;
      }
    }
    return best;
  }

  _onKey(e) {
    const id = e.target.getAttribute ? e.target.getAttribute("data-cell") : null;
    if (id === null || e.altKey || e.ctrlKey || e.metaKey) return;
    if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) {
      e.preventDefault(); // neither scrolls the page nor steps the game's replay
      const next = this.neighbour(id, e.key);
      if (next !== null) {
        const node = this._cellNode(next);
        if (node) node.focus({ preventScroll: true });
      }
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      this.onCell(id, { keyboard: true });
    } else if (e.key === "Escape") {
      e.preventDefault();
      this.onCancel();
    }
  }

  // A new move out of sight (the player panned or zoomed away) brings the view to it, same zoom.
  _followLastMove(desc) {
    const key = `${desc.move_number}|${(desc.last_move || []).join(",")}`;
    const changed = key !== this._lastMoveKey;
    this._lastMoveKey = key;
    if (!changed || !this._userMoved || !this.view || !(desc.last_move || []).length) return;
    const byId = new Map(desc.board.cells.map((c) => [c.id, c]));
    const pts = desc.last_move.map((id) => byId.get(id)).filter(Boolean);
    if (!pts.length) return;
    const [x, y, w, h] = this.view;
    const inside = (c) => c.x > x + 0.5 && c.x < x + w - 0.5 && c.y > y + 0.5 && c.y < y + h - 0.5;
    if (pts.every(inside)) return;
    const cx = pts.reduce((s, c) => s + c.x, 0) / pts.length;
    const cy = pts.reduce((s, c) => s + c.y, 0) / pts.length;
    this.view = [cx - w / 2, cy - h / 2, w, h];
  }

  // Show only the area around `cellIds` (a detail of a big board), until the next draw.
  frame(cellIds, pad = 2) {
    const want = new Set(cellIds);
    const cs = this.desc ? this.desc.board.cells.filter((c) => want.has(c.id)) : [];
    if (!cs.length) return;
    const xs = cs.map((c) => c.x), ys = cs.map((c) => c.y);
    const [x0, y0] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
    this.view = [x0, y0, Math.max(...xs) + pad - x0, Math.max(...ys) + pad - y0];
    this._applyView();
  }

  fitAll() {
    if (this.fitBox) {
      this.view = this.fitBox.slice();
      this._userMoved = false;
      this._applyView();
    }
  }

  zoom(factor, cx = null, cy = null) {
    if (!this.view) return;
    const [x, y, w, h] = this.view;
    const px = cx === null ? x + w / 2 : cx;
    const py = cy === null ? y + h / 2 : cy;
    const nw = Math.min(Math.max(w * factor, 3), 400);
    const nh = (h * nw) / w;
    this.view = [px - ((px - x) * nw) / w, py - ((py - y) * nh) / h, nw, nh];
    this._userMoved = true;
    this._applyView();
  }

  // The unbounded plane always pans and zooms; a bounded board once zoomed in with the buttons
  // (so that a phone can reach its edges), and back to the page scrolling when fitted again.
  _canPan() {
    return !!(this.desc && !this.fixed && (this.desc.board.unbounded || this._userMoved));
  }

  _applyView() {
    if (this.view) this.svg.setAttribute("viewBox", this.view.map((v) => v.toFixed(3)).join(" "));
    this.svg.classList.toggle("zoomed", !!this._userMoved);
    // coordinates too small to read (a big board on a phone) are hidden until the player zooms in
    const rect = this.svg.getBoundingClientRect();
    if (this.view && rect.width > 0 && this.desc) {
      const scale = Math.min(rect.width / this.view[2], rect.height / this.view[3]);
      const font = (this.desc.board.kind === "square" ? 0.19 : 0.26) * scale;
      this.svg.classList.toggle("tiny-coords", font < MIN_COORD_PX);
    }
  }

  _toBoard(evt) {
    const pt = this.svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const m = this.svg.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = pt.matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  _installPanZoom() {
    const svg = this.svg;
    svg.addEventListener("wheel", (e) => {
      if (!this.desc || !this._canPan()) return;
      e.preventDefault();
      const p = this._toBoard(e);
      this.zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    // two fingers: pinch to zoom (the unbounded plane)
    const touches = new Map();
    let pinch = null;
    const spread = () => {
      const [a, b] = [...touches.values()];
      return { dist: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    };
    svg.addEventListener("pointerdown", (e) => {
      touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (touches.size === 2 && this.desc && this._canPan()) {
        pinch = spread();
        this._drag = null;
        return;
      }
      this._drag = { x: e.clientX, y: e.clientY, moved: false, view: this.view ? this.view.slice() : null };
    });
    const lift = (e) => {
      touches.delete(e.pointerId);
      if (touches.size < 2) pinch = null;
    };
    svg.addEventListener("pointercancel", lift);
    svg.addEventListener("pointermove", (e) => {
      if (touches.has(e.pointerId)) touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (pinch && touches.size === 2) {
        const now = spread();
        if (now.dist > 0 && pinch.dist > 0) {
          const p = this._toBoard({ clientX: now.x, clientY: now.y });
          this.zoom(pinch.dist / now.dist, p.x, p.y);
        }
        pinch = now;
        return;
      }
      const d = this._drag;
      if (!d || !d.view || !this.desc || !this._canPan()) return;
      const dx = e.clientX - d.x, dy = e.clientY - d.y;
      if (!d.moved && Math.hypot(dx, dy) < 6) return;
      d.moved = true;
      const rect = svg.getBoundingClientRect();
      const scale = Math.max(d.view[2] / rect.width, d.view[3] / rect.height);
      this.view = [d.view[0] - dx * scale, d.view[1] - dy * scale, d.view[2], d.view[3]];
      this._userMoved = true;
      this._applyView();
    });
    svg.addEventListener("pointerup", (e) => {
      const wasPinch = pinch !== null || touches.size > 1;
      lift(e);
      if (wasPinch) {
        this._drag = null;
        return;
      }
      const d = this._drag;
      this._drag = null;
      if (d && d.moved) return;
      const target = e.target.closest ? e.target.closest("[data-cell]") : null;
      if (target) this.onCell(target.getAttribute("data-cell"));
      else this.onCell(null);
    });
  }
}
