// What the board and the panel show beyond the render description's own drawing, read from the
// description itself (no extra request): Nume's groups with their size and price, Nibble's colour
// numbers and colour-blind-safe palette, Nymbat's pieces and points on the board. The game page
// and the analysis board both use it.
import { hasKey, t } from "./i18n.js";

// Cells whose centres are this close are neighbours (hex: circumradius 1, neighbours √3 apart;
// square: unit cells).
function neighbourDistance(desc) {
  return desc.board.kind === "square" ? 1.05 : 1.8;
}

// Nume: the groups of each player (connected stones of one owner), their size and price, as the
// game gives them on each piece (`group: {size, price}`, docs/render.md).
export function numeGroups(desc) {
  if (desc.game !== "nume") return [];
  const byCell = new Map(desc.board.cells.map((c) => [c.id, c]));
  const stones = (desc.pieces || []).filter((p) => byCell.has(p.cell) && p.owner !== null && p.owner !== undefined);
  const near = neighbourDistance(desc);
  const seen = new Set();
  const groups = [];
  for (const s of stones) {
    if (seen.has(s.cell)) continue;
    const members = [];
    const stack = [s];
    seen.add(s.cell);
    while (stack.length) {
      const a = stack.pop();
      members.push(a);
      const ca = byCell.get(a.cell);
      for (const b of stones) {
        if (seen.has(b.cell) || b.owner !== a.owner) continue;
        const cb = byCell.get(b.cell);
        if (Math.hypot(ca.x - cb.x, ca.y - cb.y) <= near) {
          seen.add(b.cell);
          stack.push(b);
        }
      }
    }
    const numbers = members.map((p) => parseInt(p.text, 10)).filter((n) => !Number.isNaN(n));
    const g = members[0].group;
    groups.push({ owner: s.owner, members, size: g ? g.size : members.length, price: g ? g.price : null, numbers });
  }
  return groups;
}

// The stone of a group nearest its middle: where its badge goes.
function middleStone(desc, members) {
  const byCell = new Map(desc.board.cells.map((c) => [c.id, c]));
  const pts = members.map((p) => byCell.get(p.cell));
  const cx = pts.reduce((s, c) => s + c.x, 0) / pts.length;
  const cy = pts.reduce((s, c) => s + c.y, 0) / pts.length;
  let best = members[0];
  let bestD = Infinity;
  members.forEach((p, i) => {
    const d = Math.hypot(pts[i].x - cx, pts[i].y - cy) + (p.text ? 0 : 0.01);
    if (d < bestD) {
      bestD = d;
      best = p;
    }
  });
  return best;
}

// Colour-blind-safe colours for Nibble's thirteen colours, by the game's colour (Okabe and Ito's
// eight, then Paul Tol's), and a shape per colour: the colour never has to be told apart alone.
const SAFE = {
  "#e6194b": ["#d55e00", "●"],
  "#3cb44b": ["#009e73", "▲"],
  "#ffe119": ["#f0e442", "■"],
  "#4363d8": ["#0072b2", "◆"],
  "#f58231": ["#e69f00", "★"],
  "#911eb4": ["#cc79a7", "✚"],
  "#42d4f4": ["#56b4e9", "▼"],
  "#f032e6": ["#000000", "♥"],
  "#9a6324": ["#999999", "♣"],
  "#bfef45": ["#ffffff", "♠"],
  "#fabed4": ["#882255", "✖"],
  "#469990": ["#44aa99", "⬢"],
  "#000075": ["#332288", "☾"],
};

// Nibble: each colour's place in the colour table (the panel's rows "1. cyan", … by their key), so that the
// number on a block says which colours are neighbours in the table.
function nibbleTable(desc) {
  const out = new Map();
  for (const r of desc.panel || []) {
    if (r.label_key === "panel.table_row" && r.color) out.set(r.color.toLowerCase(), String(r.label_args.n));
  }
  return out;
}

// The board's extra drawing for a description: {links, badges, labels, recolor, glyphs}.
export function decorations(desc, { safePalette = false } = {}) {
  const out = { links: [], badges: new Map(), labels: new Map(), recolor: new Map(), glyphs: new Map() };
  if (!desc) return out;
  if (desc.game === "nume") {
    const byCell = new Map(desc.board.cells.map((c) => [c.id, c]));
    const near = neighbourDistance(desc);
    for (const g of numeGroups(desc)) {
      for (let i = 0; i < g.members.length; i++) {
        for (let j = i + 1; j < g.members.length; j++) {
          const a = byCell.get(g.members[i].cell);
          const b = byCell.get(g.members[j].cell);
          if (Math.hypot(a.x - b.x, a.y - b.y) <= near) out.links.push([g.members[i].cell, g.members[j].cell, g.members[i].color]);
        }
      }
      if (g.price === null) continue;
      const at = middleStone(desc, g.members);
      out.badges.set(at.cell, {
        text: `${g.size}·${g.price}`,
        kind: g.price === 0 ? "good" : "price",
        title: t("game:nume.badge_title", { size: g.size, price: g.price }),
      });
    }
  }
  if (desc.game === "nibble") {
    const table = nibbleTable(desc);
    for (const p of desc.pieces || []) {
      const col = (p.color || "").toLowerCase();
      if (p.shape !== "block") continue;
      const n = table.get(col);
      if (n) out.labels.set(p.cell, n);
      if (safePalette && SAFE[col]) {
        out.recolor.set(col, SAFE[col][0]);
        out.glyphs.set(p.cell, SAFE[col][1]);
      }
    }
    if (safePalette) for (const [col, [safe]] of Object.entries(SAFE)) out.recolor.set(col, safe);
  }
  return out;
}

// The glyph of a Nibble colour in the safe palette (for the panel's colour table).
export function safeGlyph(color) {
  const s = SAFE[(color || "").toLowerCase()];
  return s ? s[1] : "";
}

// Texts the games and the server write carry their catalogue key and arguments beside the English
// (docs/render.md): a render description's `status_key`/`status_args`, `<field>_key`/`<field>_args`
// beside a label, title or hint, a panel row's `value_keys`, a result's and a refusal's `key`/`args`.
// keyed() says such a text in the player's language from the engine catalogue (the games' texts)
// or the refusals catalogue (the server's account, seek, chat and bot refusals); an argument that is
// itself a text ({key, args, text}: a player's name, a colour, a nested sentence) is said first, a
// list of them joined; `count` picks the plural form. An unknown key keeps the English.
export function keyed(key, args, english) {
  const fallback = english === undefined || english === null ? "" : String(english);
  if (!key) return fallback;
  const ns = hasKey(`refusals:${key}`) ? "refusals" : "engine";
  // a key that exists only in plural forms (piece.group_one/_other) is found with its count
  return t(`${ns}:${key}`, { ...argValues(args), defaultValue: fallback });
}

function argValues(args) {
  const out = {};
  for (const [k, v] of Object.entries(args || {})) out[k] = argValue(v);
  return out;
}

function argValue(v) {
  if (Array.isArray(v)) return v.map(argValue).join(", ");
  if (v && typeof v === "object") return keyed(v.key, v.args, v.text);
  return v;
}

// The text of `obj[field]` (a label, title, hint or status) in the player's language.
export function textOf(obj, field) {
  if (!obj) return "";
  return keyed(obj[`${field}_key`], obj[`${field}_args`], obj[field]);
}

// The panel's rows as the player reads them: labels and values from their keys, Nymbat's "On
// board" as pieces and points (the row's `pieces` beside its points).
export function panelRows(desc) {
  const rows = [];
  for (const r0 of desc.panel || []) {
    const keys = r0.value_keys || [];
    const values = (r0.values || []).map((v, i) => (keys[i] ? keyed(keys[i].key, keys[i].args, v) : v));
    const r = { ...r0, label: textOf(r0, "label"), values };
    if (r0.label_key === "panel.on_board" && Array.isArray(r0.pieces)) {
      r.values = r0.values.map((points, p) => t("game:nymbat.on_board", { count: r0.pieces[p], points }));
    }
    rows.push(r);
  }
  return rows;
}

// The games' seat names (Red, Black, Light, First, …) in the player's language; other names as they are.
export function colourName(name) {
  const key = `engine:names.${String(name).toLowerCase()}`;
  return /^[A-Za-z]+$/.test(String(name)) && hasKey(key) ? t(key) : String(name);
}

// A colour's name (Nibble's notes and status) in the player's language.
export function colourWord(w) {
  const key = `engine:colours.${String(w).toLowerCase()}`;
  return /^[a-z]+$/i.test(String(w)) && hasKey(key) ? t(key) : String(w);
}

// The game's status line (a render description's `status`) in the player's language.
export function statusText(desc) {
  if (typeof desc === "string") return desc;
  return textOf(desc, "status");
}

// A board's drawing in the player's language: a copy of the description whose cells', pieces' and
// highlights' titles are translated (the board shows them on hover).
export function localized(desc) {
  if (!desc) return desc;
  const tr = (list) => (list || []).map((x) => (x && x.title_key ? { ...x, title: textOf(x, "title") } : x));
  return { ...desc, board: { ...desc.board, cells: tr(desc.board.cells) }, pieces: tr(desc.pieces), highlights: tr(desc.highlights) };
}

// A game's spec in words for a header: "nume(size=3)" → "Board size: 3" (params catalogue),
// "" for the standard game. Unknown parameters keep their code names.
export function specWords(spec) {
  const m = /^([a-z_]+)\((.*)\)$/.exec(String(spec));
  if (!m) return "";
  const [, game, body] = m;
  return body
    .split(",")
    .map((part) => {
      const [k, v] = part.split("=").map((x) => (x || "").trim());
      const label = hasKey(`params:${game}.${k}.label`) ? t(`params:${game}.${k}.label`) : k;
      let value = v;
      if (v === "true" || v === "false") value = t(v === "true" ? "game:yes" : "game:no");
      else if (hasKey(`params:${game}.${k}.choices.${v}`)) value = t(`params:${game}.${k}.choices.${v}`);
      else if (game === "ikabegama" && k === "board") {
        const h = /^hexhex:(\d+)$/.exec(v);
        value = h ? t("params:ikabegama.board.hexagon", { n: h[1] }) : t("params:ikabegama.board.plane");
      }
      return `${label}: ${value}`;
    })
    .join(" · ");
}

// The label of a game's button (an action of the render description) in the player's language.
export function actionLabel(a) {
  if (a && typeof a === "object") return a.label ? textOf(a, "label") : a.move;
  return String(a);
}

// The sentence that ends a game (the games' and the server's words: the result's key and args) in
// the player's language; a result stored without a key keeps its English.
export function resultText(result) {
  if (!result) return "";
  if (typeof result === "string") return result;
  return keyed(result.key, result.args, result.text);
}

// A refused request (an ApiError, or a message of the game socket) in the player's language: the
// refusal's key and args where the server gave them, else its English detail.
export function refusalText(e) {
  if (!e) return "";
  if (typeof e === "string") return e;
  return keyed(e.key, e.args, e.detail !== undefined ? e.detail : e.message || String(e));
}
