// What the board and the panel show beyond the render description's own drawing. A game that needs
// more than the description (Nume's group badges, Nibble's colour numbers and colour-blind-safe
// palette) says so in its own client module (Game.client_module, in the game's folder), which the
// catalogue names; this module loads it and asks it, never a game by its name. The game page and the
// analysis board both use it.
import { api } from "./api.js";
import { hasKey, t } from "./i18n.js";

// -- the games' client modules ---------------------------------------------------------------------
// Each exports what it has of: decorate(desc, out, {safePalette, t}) (adds to the board's extra
// drawing), glyph(color) (a colour's shape in the safe palette), legend(deco) (the key of the
// sentence under the board), palette (true: the colour-blind palette matters), choiceLabel(param,
// choice, t) (a parameter's value in words).
const clients = new Map(); // game name -> its module, or null once known to have none
let catalogue = null;

// `entry`: the game's catalogue entry where the page has it (else the catalogue is asked once).
export async function loadGameClient(name, entry) {
  if (clients.has(name)) return clients.get(name);
  let mod = null;
  try {
    if (!entry) catalogue = catalogue || api("GET", "/api/catalog");
    const g = entry || (await catalogue).games.find((x) => x.name === name);
    if (g && g.client_module) mod = await import(g.client_module);
  } catch (e) {
    console.warn(`${name}: its client module does not load`, e);
  }
  clients.set(name, mod);
  return mod;
}

// Draw again once the game's client module is here (the first drawing may come before it).
const loading = new Set();
export function whenClientLoads(desc, redraw) {
  if (!desc || clients.has(desc.game) || loading.has(desc.game)) return;
  loading.add(desc.game);
  loadGameClient(desc.game).then((mod) => {
    loading.delete(desc.game);
    if (mod) redraw();
  });
}

// A game's client module once loaded (null: none, or not yet).
export function gameClient(name) {
  return clients.get(name) || null;
}

function clientOf(desc) {
  return desc ? gameClient(desc.game) : null;
}

// The board's extra drawing for a description: {links, badges, labels, recolor, glyphs}.
export function decorations(desc, { safePalette = false } = {}) {
  const out = { links: [], badges: new Map(), labels: new Map(), recolor: new Map(), glyphs: new Map() };
  if (!desc) return out;
  const c = clientOf(desc);
  if (c && c.decorate) c.decorate(desc, out, { safePalette, t });
  return out;
}

// The key of the sentence under the board that explains its extra drawing, or null.
export function legendKey(desc, deco) {
  const c = clientOf(desc);
  return c && c.legend ? c.legend(deco) : null;
}

// Whether the colour-blind-safe palette matters in this game (its switch is shown then).
export function usesPalette(desc) {
  const c = clientOf(desc);
  return !!(c && c.palette);
}

// The glyph of a colour in the safe palette (for the panel's colour table), or "".
export function safeGlyph(desc, color) {
  const c = clientOf(desc);
  return c && c.glyph ? c.glyph(color) : "";
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

// -- an order's units (the render description's `order`), for every order builder ----------------------
// The cell a unit's token ends on (the last cell of its choice's path), or null (a button).
export function tokenCell(unit, token) {
  const c = unit.choices.find((ch) => ch.token === token);
  return c && c.path && c.path.length ? c.path[c.path.length - 1] : null;
}

export function unitName(u) {
  return u.label ? textOf(u, "label") : t("game:order.unit", { id: u.id });
}

// What a game's client module's `order` hook is given: {t, desc, you, unitName, tokenCell}.
export function orderContext(desc, you) {
  return { t, desc, you, unitName, tokenCell };
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
      else {
        const c = clients.get(game);
        const own = c && c.choiceLabel ? c.choiceLabel({ name: k }, v, t) : undefined;
        if (own !== undefined) value = own;
      }
      return `${label}: ${value}`;
    })
    .join(" · ");
}

// A game's spec as a player reads it: the game's title and a variant's parameters in words
// ("nume(variant=square,size=5)" → "Nume (Board: square · Board size: 5)"); needs the "params" namespace.
export function specText(spec) {
  const name = String(spec).split("(")[0];
  const title = hasKey(`params:${name}.title`) ? t(`params:${name}.title`) : name;
  const words = specWords(spec);
  return words ? `${title} (${words})` : title;
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
