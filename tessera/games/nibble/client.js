// Nibble in the web client, beyond its render description (Game.client_module; the pages load it because
// the catalogue says so): each block numbered by its colour's place in the colour table, and a
// colour-blind-safe palette with a shape per colour.

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

// The colour-blind palette matters here: colours carry the game.
export const palette = true;

// The board's extra drawing: the table number on each block; in the safe palette, safe colours and shapes.
export function decorate(desc, out, { safePalette }) {
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

// The glyph of a colour in the safe palette (for the panel's colour table).
export function glyph(color) {
  const s = SAFE[(color || "").toLowerCase()];
  return s ? s[1] : "";
}

// The sentence under the board that explains the numbers.
export function legend(deco) {
  return deco.labels.size ? "game:nibble.legend" : null;
}
