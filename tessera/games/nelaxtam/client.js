// Nelaxtam in the web client, beyond its render description (Game.client_module; the game page loads it
// because the catalogue says so): the rules between the troops of one secret order, so that the generic
// order builder (web/js/game-order.js, the render description's `order`) offers only orders the rules
// allow and says why not. The server checks the whole order again on submit.
//
// The builder asks `order.blocked`, `order.conflict`, `order.whyNot` and `order.head`; each gets the
// order (`o`, docs/render.md), the tokens chosen so far (unit id -> token) and a context
// {t, desc, you, unitName, tokenCell}: the translator, the render description shown, the viewer's seat,
// a unit's name in words and the cell a token ends on.

// A token that moves a troop ("2>c4") or lands it ("1@a3"); holding ("1=") and destroying ("3xd6") leave
// it on its square.
const MOVES = /[@>]/;
const LANDS = /@/;

// The invasion: the troops are still at sea, every choice a landing.
function invasion(o) {
  return o.units.some((u) => u.choices.some((c) => LANDS.test(c.token)));
}

// The game's `by_sea` parameter: at least this many troops land on the edge squares.
function bySea(desc) {
  const p = desc && desc.params;
  return p && typeof p.by_sea === "number" ? p.by_sea : 0;
}

// The outlined edge squares the viewer's troops may land on by sea (the render description's `setup`
// highlights of his seat).
function edgeCells(desc, you) {
  return new Set((desc.highlights || []).filter((h) => h.kind === "setup" && (h.owner === you || h.owner === undefined)).map((h) => h.cell));
}

// Where each troop but `exceptUnit` ends its turn as the order now stands: the square it moves or lands
// on, else (holding, destroying, no order yet) the square it stands on. cell -> unit.
function endCells(o, tokens, exceptUnit, ctx) {
  const out = new Map();
  for (const u of o.units) {
    if (u.id === exceptUnit) continue;
    const tok = o.single && tokens[u.id] === undefined ? null : tokens[u.id];
    const c = tok && MOVES.test(tok) ? ctx.tokenCell(u, tok) : u.cell;
    if (c) out.set(c, u);
  }
  return out;
}

export const order = {
  // The sentence above the builder during the invasion, or null (the builder's own).
  head(o, { t, desc }) {
    return !o.single && invasion(o) ? t("game:nelaxtam.order.head_invasion", { n: bySea(desc) }) : null;
  },

  // Why a choice of a troop is not allowed with the rest of the order ("two of your troops may not end on
  // the same square"; in the invasion "at least by_sea troops land on the edge squares"), or null.
  blocked(o, tokens, unit, c, ctx) {
    if (!c.path || !c.path.length || !MOVES.test(c.token)) return null;
    const { t, desc, you, unitName, tokenCell } = ctx;
    const target = c.path[0];
    const other = endCells(o, tokens, unit.id, ctx).get(target);
    if (other) return t("game:nelaxtam.order.why_taken", { troop: unitName(unit), other: unitName(other), cell: target });
    if (LANDS.test(c.token)) {
      const need = bySea(desc);
      const edge = edgeCells(desc, you);
      if (need > 0 && !edge.has(target)) {
        const others = o.units.filter((u) => u.id !== unit.id);
        const onEdge = others.filter((u) => tokens[u.id] && edge.has(tokenCell(u, tokens[u.id]))).length;
        const free = others.filter((u) => !tokens[u.id]).length;
        if (need - onEdge > free) return t("game:nelaxtam.order.why_by_sea", { count: need, cell: target });
      }
    }
    return null;
  },

  // A whole order that breaks a rule between troops: why, or null.
  conflict(o, tokens, { t, desc, you, unitName, tokenCell }) {
    const seen = new Map();
    for (const u of o.units) {
      const tok = tokens[u.id];
      const c = tok && MOVES.test(tok) ? tokenCell(u, tok) : u.cell;
      if (!c) continue;
      if (seen.has(c)) return t("game:nelaxtam.order.why_conflict", { a: unitName(seen.get(c)), b: unitName(u), cell: c });
      seen.set(c, u);
    }
    if (invasion(o) && o.units.every((u) => tokens[u.id])) {
      const edge = edgeCells(desc, you);
      const onEdge = o.units.filter((u) => edge.has(tokenCell(u, tokens[u.id]))).length;
      if (onEdge < bySea(desc)) return t("game:nelaxtam.order.why_by_sea_total", { count: bySea(desc) });
    }
    return null;
  },

  // Why clicking a square that is no target of the troop being ordered (`unit`) does nothing.
  whyNot(o, unit, cell, { t, desc, unitName }) {
    const c = (desc.board.cells || []).find((x) => x.id === cell);
    if (c && c.title_key === "cell.removed") return t("game:nelaxtam.order.why_removed", { cell });
    if (invasion(o)) return t("game:nelaxtam.order.why_not_own", { troop: unitName(unit), cell });
    return t("game:nelaxtam.order.why_battle", { troop: unitName(unit), cell });
  },
};
