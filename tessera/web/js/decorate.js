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

// Nibble: each colour's place in the colour table (the panel's rows "1. cyan", …), so that the
// number on a block says which colours are neighbours in the table.
function nibbleTable(desc) {
  const out = new Map();
  for (const r of desc.panel || []) {
    const m = /^(\d+)\.\s/.exec(r.label || "");
    if (m && r.color) out.set(r.color.toLowerCase(), m[1]);
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

// The panel's rows as the player reads them: Nymbat's "On board" as pieces and points (the row's
// `pieces` beside its points), yes/no, komi and invasion in the player's language.
export function panelRows(desc) {
  const rows = [];
  const word = (v) => (v === "yes" ? t("game:yes") : v === "no" ? t("game:no") : v);
  for (const r0 of desc.panel || []) {
    const r = { ...r0, values: (r0.values || []).map(word) };
    if (desc.game === "nymbat" && r.label === "On board" && Array.isArray(r.pieces)) {
      const values = r.values.map((points, p) => t("game:nymbat.on_board", { count: r.pieces[p], points }));
      rows.push({ ...r, label: t("game:nymbat.on_board_label"), values });
    } else if (r.label === "Komi") {
      // Nume's "0.5 to Black": the komi and who receives it
      const values = r.values.map((v) => {
        const m = /^(\d+(?:\.\d+)?) to ([A-Za-z]+)$/.exec(String(v));
        return m ? t("game:komi_to", { komi: m[1], name: colourName(m[2]) }) : v;
      });
      rows.push({ ...r, values });
    } else if (r.label === "Invasion") {
      // Nelaxtam's edge squares are drawn outlined: the sentence says so, in the player's language
      const values = r.values.map((v) => {
        const m = /^at least (\d+) troops? land/.exec(String(v));
        return m ? t("game:nelaxtam.invasion", { count: Number(m[1]) }) : v;
      });
      rows.push({ ...r, values });
    } else rows.push(r);
  }
  return rows;
}

// The games' seat names (Red, Black, Light, First, …) in the player's language; other names as they are.
export function colourName(name) {
  const key = `game:names.${String(name).toLowerCase()}`;
  return /^[A-Za-z]+$/.test(String(name)) && hasKey(key) ? t(key) : String(name);
}

// A colour's name (Nibble's notes and status) in the player's language.
export function colourWord(w) {
  const key = `game:colours.${String(w).toLowerCase()}`;
  return /^[a-z]+$/i.test(String(w)) && hasKey(key) ? t(key) : String(w);
}

// The game's status line in the player's language where it is one of the shared forms.
export function statusText(s) {
  let m;
  if ((m = /^(.+) to move, taking (\w+) blocks$/.exec(s))) return t("game:status.taking", { name: colourName(m[1]), colour: colourWord(m[2]) });
  if ((m = /^(.+) to move$/.exec(s))) return m[1] === "Both players" ? t("game:status.both") : t("game:status.to_move", { name: colourName(m[1]) });
  if ((m = /^(\S+) wins$/.exec(s))) return t("game:status.wins", { name: colourName(m[1]) });
  if (s === "Draw") return t("game:status.draw");
  return s;
}

// A panel label in the player's language when the catalogue has it (game:panel.<label in
// lower case, words joined by _>), else the game's words.
export function panelLabel(label) {
  const d = /^Delays \(every (\d+)\w* costs 1\)$/.exec(String(label)); // Nymbat's "Delays (every 7th costs 1)"
  if (d) return t("game:panel_delays", { n: d[1] });
  const m = /^(\d+)\. ([a-z]+)$/.exec(String(label)); // Nibble's colour table: "1. cyan"
  if (m && hasKey(`game:colours.${m[2]}`)) return `${m[1]}. ${t(`game:colours.${m[2]}`)}`;
  const key = `game:panel.${String(label).toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "")}`;
  return hasKey(key) ? t(key) : label;
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

// The label of a game's button in the player's language where it is a shared one ("End turn", "Pass").
export function actionLabel(label) {
  const key = { "end turn": "game:action.end_turn", end: "game:action.end_turn", pass: "game:action.pass" }[String(label).toLowerCase()];
  return key ? t(key) : label;
}

// The sentence that ends a game (the games' and the server's words) in the player's language:
// each known form has its key (game:result.*); another sentence stays as it is.
const N = "([A-Za-z]+)";
const RESULTS = [
  [new RegExp(`^${N} occupies the ${N} nest: ${N} wins$`), "nest", ["who", "nest", "winner"]],
  [/^Both players passed with (\d+) tokens each: a draw$/, "passes_draw", ["n"]],
  [new RegExp(`^Both players passed; ${N} has more tokens \\((\\d+) to (\\d+)\\) and wins$`), "passes_win", ["name", "a", "b"]],
  [/^Draw: the (\d+)-ply safeguard was reached$/, "safeguard_plies", ["n"]],
  [/^Draw: the (\d+)-turn safeguard was reached$/, "safeguard_turns", ["n"]],
  [/^Draw: (\d+) turns in a row without a destruction$/, "safeguard_idle", ["n"]],
  [new RegExp(`^Every other player resigned: ${N} wins$`), "others_resigned", ["name"]],
  [new RegExp(`^${N} has a piece on ${N}'s home row and ${N} has none there: ${N} wins$`), "home_row", ["name", "other", "other2", "winner"]],
  [new RegExp(`^The board and every reserve are empty: ${N} took the last turn and wins$`), "empty_board", ["name"]],
  [new RegExp(`^The board is full: ${N} has the lower score \\((.+)\\) and wins$`), "full_win", ["name", "scores"]],
  [/^The board is full and the scores are equal \((.+)\): a draw$/, "full_draw", ["scores"]],
  [new RegExp(`^${N} took all (\\d+) ([a-z]+) blocks$`), "colour", ["name", "n", "colour"]],
  [new RegExp(`^${N} took (\\d+) or more blocks of each of (.+) \\(neighbours on the colour table\\)$`), "neighbours", ["name", "n", "colours"]],
  [/^The board is empty: each player holds (\d+) colours: a draw$/, "majority_draw", ["n"]],
  [new RegExp(`^The board is empty: ${N} holds the majority in (\\d+) of (\\d+) colours \\(${N}: (\\d+)\\)$`), "majority", ["name", "k", "n", "other", "m"]],
  [/^No troop can destroy any more; both control (\d+) territory pieces: a draw$/, "territory_draw", ["n"]],
  [new RegExp(`^No troop can destroy any more: ${N} controls more territory \\((\\d+) pieces to (\\d+)\\) and wins$`), "territory", ["name", "a", "b"]],
  [new RegExp(`^${N} resigned: ${N} wins$`), "resigned", ["loser", "winner"]],
  [new RegExp(`^${N} ran out of time: ${N} wins$`), "flag", ["loser", "winner"]],
  [/^Draw by agreement between the players$/, "agreement", []],
  [new RegExp(`^Draw by agreement: ${N} offered a draw and ${N} accepted$`), "agreement_offer", ["a", "b"]],
  [new RegExp(`^Game aborted: ${N} made no first move in time \\(no result\\)$`), "aborted", ["name"]],
];
const NAME_ARGS = new Set(["who", "nest", "winner", "name", "other", "other2", "loser", "a", "b"]);

export function resultText(text) {
  const s = String(text || "");
  for (const [re, key, args] of RESULTS) {
    const m = re.exec(s);
    if (!m) continue;
    const values = {};
    args.forEach((a, i) => {
      const v = m[i + 1];
      if (a === "colour") values[a] = colourWord(v);
      else if (a === "colours") values[a] = v.split(", ").map(colourWord).join(", ");
      else values[a] = NAME_ARGS.has(a) && /^[A-Za-z]+$/.test(v) ? colourName(v) : v;
    });
    return t(`game:result.${key}`, values);
  }
  return statusText(s);
}
