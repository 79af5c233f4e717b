// The click-path protocol of the render description's actions (docs/render.md): which actions a
// selection of cells leads to, and which cells continue it. Used with the board (board.js) by the game
// page, the lessons, the analysis board and the puzzles; it draws nothing. `sel` is the cells clicked
// so far.
export function pathStartsWith(path, prefix) {
  if (path.length < prefix.length) return false;
  return prefix.every((c, i) => path[i] === c);
}

// One click on `cell`: the new selection (restarted at `cell` when the old one leads nowhere, empty
// when nothing matches), the actions it completes (`exact`) and those it is the start of (`longer`).
export function pickCell(actions, sel, cell) {
  const acts = actions.filter((a) => a.path && a.path.length);
  let next = [...sel, cell];
  let matching = acts.filter((a) => pathStartsWith(a.path, next));
  if (!matching.length) {
    next = [cell];
    matching = acts.filter((a) => pathStartsWith(a.path, next));
  }
  if (!matching.length) return { sel: [], exact: [], longer: [] };
  return {
    sel: next,
    exact: matching.filter((a) => a.path.length === next.length),
    longer: matching.filter((a) => a.path.length > next.length),
  };
}

// The cells that continue the selection `sel`.
export function nextPathCells(actions, sel) {
  const out = new Set();
  for (const a of actions) {
    if (a.path && a.path.length > sel.length && pathStartsWith(a.path, sel)) out.add(a.path[sel.length]);
  }
  return out;
}
