// Nume in the web client, beyond its render description (Game.client_module; the pages load it because
// the catalogue says so): each group of stones linked, and a badge with its size and price.

// Cells whose centres are this close are neighbours (hex: circumradius 1, neighbours √3 apart;
// square: unit cells).
function neighbourDistance(desc) {
  return desc.board.kind === "square" ? 1.05 : 1.8;
}

// Nume: the groups of each player (connected stones of one owner), their size and price, as the
// game gives them on each piece (`group: {size, price}`, docs/render.md).
export function numeGroups(desc) {
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

// The board's extra drawing: links between the stones of a group, a badge "size·price" on its middle stone.
export function decorate(desc, out, { t }) {
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

// The sentence under the board that explains the badges.
export function legend(deco) {
  return deco.badges.size ? "game:nume.legend" : null;
}
