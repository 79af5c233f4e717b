// The analysis board: any position of a game (a finished one, one watched live, an imported record),
// our AI's evaluation bar for the side to move, its best move on request, and free exploration:
// every move played here becomes a branch of a move tree (branches kept, click to go back).
// It knows no game: the server sends render descriptions with the legal moves of the player to move.
import { applyStyles } from "./styles.js";
import { api, ApiError, escapeHtml, saveSeats } from "./api.js";
import { BoardView } from "./board.js";
import { nextPathCells, pickCell } from "./board-paths.js";
import { actionLabel, colourName, decorations, localized, panelRows, refusalText, resultText, statusText, textOf, usesPalette, whenClientLoads } from "./decorate.js";
import { initI18n, t } from "./i18n.js";
import { initPrefs, safePalette } from "./prefs.js";

const SIMULTANEOUS = -2;
const TERMINAL = -4;
const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);

const tree = { nodes: [], current: 0 }; // node: {id, parent, player, move, children: [ids], pos, evaluation}
const ui = { spec: null, seed: 0, sel: [], choice: null, evalToken: 0, best: null, players: [] };
const board = new BoardView($("board"), { onCell: (c) => onCell(c) });

function node(id = tree.current) {
  return tree.nodes[id];
}

function addNode(parent, player, move) {
  const existing = node(parent).children.map((id) => node(id)).find((n) => n.move === move);
  if (existing) return existing.id;
  const id = tree.nodes.length;
  tree.nodes.push({ id, parent, player, move, children: [], pos: null, evaluation: null });
  node(parent).children.push(id);
  return id;
}

function movesTo(id) {
  const out = [];
  for (let n = node(id); n.parent !== null; n = node(n.parent)) out.push([n.player, n.move]);
  return out.reverse();
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

// -- positions and the AI's view -----------------------------------------------------------
async function goTo(id) {
  tree.current = id;
  ui.sel = [];
  ui.choice = null;
  ui.best = null;
  const n = node(id);
  if (!n.pos) {
    try {
      n.pos = await api("POST", "/api/analysis/position", { game: ui.spec, seed: ui.seed, moves: movesTo(id) });
    } catch (e) {
      showError(refusalText(e));
      return;
    }
  }
  if (tree.current !== id) return;
  showError("");
  render();
  evaluate(0.4);
}

async function evaluate(seconds) {
  const id = tree.current;
  const n = node(id);
  if (n.pos.to_move === TERMINAL) {
    n.evaluation = null;
    return renderEval();
  }
  // an exact verdict is final: more time would only prove it again
  if (n.evaluation && (n.evaluation.exact || n.evaluation.seconds >= seconds * 0.8)) return renderEval();
  const token = ++ui.evalToken;
  $("eval").textContent = t("analysis:looking");
  try {
    const r = await api("POST", "/api/analysis/evaluate", { game: ui.spec, seed: ui.seed, moves: movesTo(id), seconds });
    if (!n.evaluation || seconds >= (n.evaluation.asked || 0)) n.evaluation = { ...r, asked: seconds };
  } catch (e) {
    if (token === ui.evalToken) showError(refusalText(e));
    return;
  }
  if (token === ui.evalToken && tree.current === id) renderEval();
}

function name(p) {
  const seat = ui.players[p];
  if (seat && seat.name_key) return textOf(seat, "name"); // the seat's name by its key
  return seat && seat.name ? colourName(seat.name) : t("game:player_n", { n: p });
}

// The exact solver's proof, when the server sends one (an endgame within its reach): "Forced win in N …".
function exactText(x) {
  const steps = x.plies === null || x.plies === undefined ? null : x.plies;
  let text;
  if (x.winner === null || x.winner === undefined) text = t("exact:draw");
  else if (x.winner === x.to_move) text = steps === null ? t("exact:forced_win_unknown", { name: name(x.winner) }) : t("exact:forced_win", { count: steps, name: name(x.winner) });
  else {
    const args = { name: name(x.to_move), winner: name(x.winner) };
    text = steps === null ? t("exact:lost_unknown", args) : t("exact:lost", { ...args, count: steps });
  }
  return `${text} · ${t("exact:best_step", { move: x.best_move })}`;
}

function renderExact(e) {
  const box = $("exact");
  const x = e && e.exact;
  box.hidden = !x;
  box.textContent = x ? exactText(x) : "";
  if (x) box.dataset.winner = x.winner === null ? "draw" : String(x.winner);
  else delete box.dataset.winner;
}

function renderEval() {
  const n = node();
  const e = n.evaluation;
  const fill = $("eval-fill");
  renderExact(n.pos.to_move === TERMINAL ? null : e);
  if (n.pos.to_move === TERMINAL) {
    const res = n.pos.render.result || {};
    $("eval").textContent = t("analysis:game_over", { result: resultText(res) });
    const w = res.winner;
    fill.style.height = w === 0 ? "100%" : w === null || w === undefined ? "50%" : "0%";
    labelBar(0, w === 0 ? 100 : w === null || w === undefined ? 50 : 0);
    return;
  }
  if (!e) return;
  // the bar is the side to move's share: full when our AI thinks he wins, empty when he loses
  const pct = Math.round(((e.value + 1) / 2) * 100);
  fill.style.height = `${pct}%`;
  fill.style.background = (ui.players[e.side] && ui.players[e.side].color) || "#444";
  $("eval-bar").title = t("analysis:bar_title", { name: name(e.side), pct });
  labelBar(e.side, pct);
  const sign = e.value > 0 ? "+" : "";
  const how = e.stats && e.stats.depth ? t("analysis:how_depth", { count: e.stats.depth }) : e.stats && e.stats.iterations ? t("analysis:how_sims", { n: e.stats.iterations }) : "";
  const who = e.to_move === SIMULTANEOUS ? name(e.side) : t("analysis:to_move", { name: name(e.side) });
  $("eval").textContent = t("analysis:evaluation", { who, value: `${sign}${e.value.toFixed(2)}`, seconds: e.seconds.toFixed(1) }) + (how ? ` · ${how}` : "");
  $("eval").dataset.value = String(e.value);
}

// The bar's labels: whose chances it shows, its two ends, and the share in numbers.
function labelBar(side, pct) {
  $("eval-top").textContent = t("analysis:bar_wins", { name: name(side) });
  $("eval-bottom").textContent = t("analysis:bar_loses", { name: name(side) });
  $("eval-pct").textContent = `${pct} %`;
  $("eval-pct").style.bottom = `${Math.min(88, Math.max(2, pct - 6))}%`;
}

async function bestMove() {
  const id = tree.current;
  if (!node(id) || !node(id).pos) return; // no position on the board (a refused game): nothing to think about
  $("best-text").textContent = t("analysis:thinking");
  await evaluate(2.0);
  if (tree.current !== id) return;
  const e = node(id).evaluation;
  ui.best = e && e.best ? e.best : null;
  $("best-text").textContent = ui.best ? t("analysis:best", { move: ui.best }) : t("analysis:no_best");
  $("best-text").dataset.best = ui.best || "";
  $("play-best").hidden = !ui.best;
}

function play(move) {
  const n = node();
  const player = n.pos.to_move;
  goTo(addNode(n.id, player === SIMULTANEOUS ? SIMULTANEOUS : player, move));
}

// -- clicking on the board (board-paths.js: the click-path rules of every board page) -------------
function actions() {
  return (node().pos && node().pos.render.actions) || [];
}

function onCell(cell) {
  const acts = actions().filter((a) => a.path && a.path.length);
  if (cell === null || !acts.length) {
    ui.sel = [];
    ui.choice = null;
    return render();
  }
  const { sel, exact, longer } = pickCell(acts, ui.sel, cell);
  if (!sel.length) {
    ui.sel = [];
    ui.choice = null;
    return render();
  }
  ui.sel = sel;
  ui.choice = null;
  if (exact.length === 1 && !longer.length && exact[0].move !== undefined) return play(exact[0].move);
  if (exact.length) ui.choice = exact;
  render();
}

function nextCells() {
  return nextPathCells(actions(), ui.sel);
}

function button(label, onclick, cls = "") {
  const b = document.createElement("button");
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener("click", onclick);
  return b;
}

function renderPrompt() {
  const box = $("prompt");
  box.innerHTML = "";
  const fill = (a, x) => a.template.replace("{n}", String(x));
  if (ui.choice) {
    const wrap = document.createElement("div");
    wrap.className = "choice";
    wrap.append(`${t("game:on_cells", { cells: ui.sel.join(" → ") })} `);
    for (const a of ui.choice) {
      if (a.number) {
        const [lo, hi] = a.number;
        const input = document.createElement("input");
        input.type = "number";
        input.min = lo;
        input.max = hi;
        input.value = Math.min(hi, Math.max(lo, 1));
        input.id = "number-input";
        wrap.append(input, button(t("game:play"), () => play(fill(a, parseInt(input.value, 10))), "primary"));
      } else if (a.choices) {
        for (const c of a.choices) wrap.appendChild(button(String(c), () => play(fill(a, c)), "choice-btn"));
      } else if (a.move !== undefined) {
        wrap.appendChild(button(actionLabel(a), () => play(a.move), "primary"));
      }
    }
    box.appendChild(wrap);
  }
  const buttons = actions().filter((a) => (!a.path || !a.path.length) && a.move !== undefined);
  if (buttons.length && buttons.length <= 30) {
    const row = document.createElement("div");
    row.className = "action-buttons";
    for (const a of buttons) row.appendChild(button(actionLabel(a), () => play(a.move), "action-btn"));
    box.appendChild(row);
  }
  if (node().pos.to_move === SIMULTANEOUS) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = t("analysis:simultaneous");
    box.appendChild(p);
  }
}

// -- the move tree: the main line inline, each branch in brackets under the move it leaves ----
function treeHtml(id, depth) {
  let html = "";
  let n = node(id);
  let first = true;
  while (n.children.length) {
    const [main, ...others] = n.children;
    const m = node(main);
    const who = m.player === SIMULTANEOUS ? t("game:both") : name(m.player);
    html += `<span class="tree-move${main === tree.current ? " current" : ""}" data-node="${main}" title="${escapeHtml(who)}">${first || m.player !== node(m.parent).player ? `<small>${escapeHtml(who)}</small> ` : ""}${escapeHtml(m.move)}</span> `;
    for (const o of others) {
      const v = node(o);
      html += `<div class="variation" data-indent="${Math.min(depth + 1, 6) * 0.8}">(<span class="tree-move${o === tree.current ? " current" : ""}" data-node="${o}"><small>${escapeHtml(v.player === SIMULTANEOUS ? t("game:both") : name(v.player))}</small> ${escapeHtml(v.move)}</span> ${treeHtml(o, depth + 1)})</div>`;
    }
    n = m;
    first = false;
  }
  return html;
}

function renderTree() {
  const box = $("tree");
  box.innerHTML = `<span class="tree-move${tree.current === 0 ? " current" : ""}" data-node="0">${escapeHtml(t("analysis:start"))}</span> ` + treeHtml(0, 0);
  applyStyles(box);
  for (const s of box.querySelectorAll(".tree-move")) s.addEventListener("click", () => goTo(Number(s.dataset.node)));
}

function render() {
  const n = node();
  const desc = n.pos.render;
  ui.players = desc.players || [];
  whenClientLoads(desc, render); // the game's own client module, if it has one, draws more once here
  const deco = decorations(desc, { safePalette: safePalette() });
  board.draw(localized(desc), { clickable: nextCells(), selected: new Set(ui.sel), marks: new Map(), hints: new Map(), ...deco });
  const cp = n.pos.to_move;
  $("status").textContent = cp === TERMINAL ? statusText(desc) : `${statusText(desc)} — ${t("analysis:move_n", { n: n.pos.move_number })}`;
  const palette = document.querySelector(".palette-switch");
  if (palette) palette.hidden = !usesPalette(desc);
  renderPrompt();
  renderTree();
  $("best-text").textContent = "";
  $("play-best").hidden = true;
  $("panel-table").innerHTML = panelRows(desc)
    .map((r) => `<tr><th>${escapeHtml(r.label)}</th>${r.values.map((x) => `<td>${escapeHtml(x)}</td>`).join("")}</tr>`)
    .join("");
  $("cont-seat").innerHTML = ui.players.map((p, i) => `<option value="${i}"${i === (cp >= 0 ? cp : 0) ? " selected" : ""}>${escapeHtml(name(i))}</option>`).join("");
  for (const id of ["cont-ai", "cont-hotseat"]) $(id).disabled = cp === TERMINAL;
  renderEval();
}

async function continueFrom(mode) {
  const body = { game: ui.spec, seed: ui.seed, moves: movesTo(tree.current), mode };
  if (mode === "ai") {
    body.seat = parseInt($("cont-seat").value, 10);
    body.ai_level = parseInt($("cont-level").value, 10);
  }
  try {
    const r = await api("POST", "/api/analysis/continue", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (e) {
    showError(refusalText(e));
  }
}

// -- wiring ---------------------------------------------------------------------------------
$("zoom-in").addEventListener("click", () => board.zoom(1 / 1.25));
$("zoom-out").addEventListener("click", () => board.zoom(1.25));
$("zoom-fit").addEventListener("click", () => board.fitAll());
$("coords").addEventListener("change", (e) => {
  board.showCoords = e.target.checked;
  render();
});
$("nav-first").addEventListener("click", () => goTo(0));
$("nav-prev").addEventListener("click", () => node().parent !== null && goTo(node().parent));
$("nav-next").addEventListener("click", () => node().children.length && goTo(node().children[0]));
$("nav-last").addEventListener("click", () => {
  let n = node();
  while (n.children.length) n = node(n.children[0]);
  goTo(n.id);
});
$("best").addEventListener("click", bestMove);
$("play-best").addEventListener("click", () => ui.best && play(ui.best));
$("cont-ai").addEventListener("click", () => continueFrom("ai"));
$("cont-hotseat").addEventListener("click", () => continueFrom("hotseat"));
document.addEventListener("keydown", (e) => {
  // the board's arrow keys move between its cells (board.js), not along the moves
  if (e.defaultPrevented || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") $("nav-prev").click();
  if (e.key === "ArrowRight") $("nav-next").click();
});

// -- a record read straight into the board (docs/records.md: JSON or text), no game created --
export const RECORD_KEY = "tessera.analysis.record"; // the lobby hands a pasted record over in sessionStorage

async function readRecord(text) {
  const body = text.trim();
  const json = body.startsWith("{");
  const res = await fetch("/api/analysis/record", {
    method: "POST",
    headers: { "Content-Type": json ? "application/json" : "text/plain" },
    body,
  });
  const data = await res.json().catch(() => ({ detail: `HTTP ${res.status}` }));
  if (!res.ok) throw new ApiError(res.status, typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail));
  return data;
}

async function importRecord(text) {
  $("record-error").hidden = true;
  let src;
  try {
    src = await readRecord(text);
  } catch (e) {
    $("record-error").textContent = e instanceof ApiError ? e.detail : String(e);
    $("record-error").hidden = false;
    return;
  }
  ui.spec = src.spec;
  ui.seed = src.seed;
  $("title").textContent = t("analysis:title_imported", { title: src.title });
  $("back").hidden = true;
  history.replaceState(null, "", `/analysis?spec=${encodeURIComponent(src.spec)}&seed=${src.seed}`);
  await showLine(src.moves, null);
}

async function showLine(moves, at) {
  tree.nodes.length = 0;
  tree.nodes.push({ id: 0, parent: null, player: null, move: null, children: [], pos: null, evaluation: null });
  $("spec").textContent = `${ui.spec} · ${t("analysis:seed", { seed: ui.seed })}`;
  let id = 0;
  const line = [0];
  for (const [p, m] of moves) {
    id = addNode(id, p, m);
    line.push(id);
  }
  const startAt = at === null || Number.isNaN(at) ? line[line.length - 1] : line[Math.max(0, Math.min(at, line.length - 1))];
  await goTo(startAt);
}

$("record-form").addEventListener("submit", (e) => {
  e.preventDefault();
  importRecord($("record-text").value);
});

// The board shown without a game, a record or a spec: the catalogue's first game.
async function firstGame() {
  const c = await api("GET", "/api/catalog");
  return c.games[0].name;
}

async function start() {
  await initI18n(["game", "lobby", "params", "analysis", "engine", "exact"]);
  // the AI levels by name ("3 · club"), as in the lobby
  for (const o of $("cont-level").options) {
    o.value = o.value; // the number stays the value when the text becomes the level's name
    o.textContent = t(`params:levels.${o.value}.name`);
  }
  initPrefs({ palette: true });
  window.addEventListener("tessera:pref", (e) => {
    if (e.detail.name === "safePalette" && node() && node().pos) render();
  });
  tree.nodes.push({ id: 0, parent: null, player: null, move: null, children: [], pos: null, evaluation: null });
  let moves = [];
  let at = null;
  const gid = query.get("game");
  try {
    const handed = query.get("record") === "paste" ? sessionStorage.getItem(RECORD_KEY) : null;
    if (handed !== null) {
      sessionStorage.removeItem(RECORD_KEY);
      $("record-text").value = handed;
      $("record-box").open = true;
      await importRecord(handed);
      if (ui.spec) return;
      ui.spec = await firstGame(); // an unreadable record: its error is shown above an empty board
      $("title").textContent = t("analysis:title");
    } else if (gid) {
      const src = await api("GET", `/api/games/${encodeURIComponent(gid)}/analysis`);
      ui.spec = src.spec;
      ui.seed = src.seed;
      moves = src.moves;
      $("title").textContent = t("analysis:title_game", { title: src.title });
      $("back").href = `/g/${encodeURIComponent(gid)}`;
      $("back").hidden = false;
      at = query.has("n") ? parseInt(query.get("n"), 10) : null;
    } else {
      ui.spec = query.get("spec") || (await firstGame());
      ui.seed = parseInt(query.get("seed") || "0", 10);
      $("title").textContent = t("analysis:title");
    }
  } catch (e) {
    showError(refusalText(e));
    if (gid) refuseGame(gid);
    return;
  }
  await showLine(moves, at);
}

// A game the server will not analyse now (one in progress between people: docs/http-api.md): the
// refusal says why, the board and its engine are not offered, the link leads back to the game.
function refuseGame(gid) {
  document.body.classList.add("analysis-refused");
  for (const el of document.querySelectorAll(".board-wrap, .controls, #status, #prompt, #best-text, #eval, details:not(#record-box)")) el.hidden = true;
  $("back").href = `/g/${encodeURIComponent(gid)}`;
  $("back").hidden = false;
}
start();
