// The puzzles page: a position from a played game where exactly one step wins (docs/puzzles.md).
// It knows no game: the server sends each position's render description with the player's legal
// moves; a step is played by clicking its cells (as on the game page) or by typing it. The server
// judges each step; the opponent's replies come back and are shown on the board.
import { api, ApiError, escapeHtml, whoAmI } from "./api.js";
import { BoardView } from "./board.js";
import { nextPathCells, pickCell } from "./board-paths.js";
import { actionLabel, decorations, loadGameClient, localized, panelRows, refusalText, textOf, whenClientLoads } from "./decorate.js";
import { initI18n, t } from "./i18n.js";
import { initPrefs, safePalette } from "./prefs.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
// kbd: the last step was pressed on the board with the keyboard (the focus goes back there)
const ui = { puzzle: null, render: null, moves: [], over: false, sel: [], choice: null, hint: null, busy: false, kbd: false };
const board = new BoardView($("board"), { onCell: (c, how) => onCell(c, how) });

function themeKey(theme) {
  return `puzzles:themes.${theme.replace(/[^a-z]+/g, "_")}`;
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

function say(text) {
  $("status").textContent = text;
}

function playerName(p) {
  const players = (ui.puzzle && ui.puzzle.render.players) || [];
  const who = players[p];
  return who ? textOf(who, "name") : String(p);
}

// -- loading a puzzle ------------------------------------------------------------------------
async function load(path) {
  showError("");
  let view;
  try {
    view = await api("GET", path);
    // the game's client module before the first board, so that no redraw replaces a board being clicked
    if (view.render) await loadGameClient(view.render.game);
  } catch (e) {
    showError(refusalText(e));
    return;
  }
  ui.puzzle = view;
  ui.render = view.render;
  ui.moves = [];
  ui.over = false;
  ui.sel = [];
  ui.choice = null;
  ui.hint = null;
  history.replaceState(null, "", `/puzzles?id=${encodeURIComponent(view.id)}`);
  const themes = view.themes.map((x) => t(themeKey(x))).join(", ");
  const proof = t(view.proof === "solver" ? "puzzles:proof_solver" : "puzzles:proof_search");
  $("about").textContent = `${t("puzzles:rating", { rating: view.rating })} · ${proof} · ${themes}`;
  $("result").textContent = view.daily ? t("puzzles:daily_of", { day: view.daily }) : "";
  say(t("puzzles:find_win", { player: playerName(view.to_move), count: view.steps }));
  render();
  $("move-input").focus();
}

// -- the board -------------------------------------------------------------------------------
function actions() {
  return ui.over || !ui.render ? [] : ui.render.actions || [];
}

function nextCells() {
  return nextPathCells(actions(), ui.sel);
}

function onCell(cell, how) {
  ui.kbd = !!(how && how.keyboard);
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
  // a question asked from the keyboard takes the focus (the number or the first choice)
  const first = ui.choice && ui.kbd ? $("prompt").querySelector("input, button") : null;
  if (first) first.focus();
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
    for (const a of ui.choice) {
      if (a.number) {
        const [lo, hi] = a.number;
        const input = document.createElement("input");
        input.type = "number";
        input.min = lo;
        input.max = hi;
        input.value = Math.min(hi, Math.max(lo, 1));
        input.id = "number-input";
        input.setAttribute("aria-label", t("puzzles:number"));
        const go = button(t("puzzles:play"), () => play(fill(a, parseInt(input.value, 10))), "primary");
        input.addEventListener("keydown", (e) => {
          if (e.key === "Enter") go.click();
        });
        wrap.append(input, go);
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
}

function render() {
  const desc = ui.render;
  if (!desc) return;
  whenClientLoads(desc, render); // the game's own client module, if it has one, draws more once here
  const deco = decorations(desc, { safePalette: safePalette() });
  const marks = new Map();
  const selected = new Set(ui.sel);
  if (ui.hint) selected.add(ui.hint);
  board.draw(localized(desc), { clickable: nextCells(), selected, marks, hints: new Map(), keep: ui.kbd, ...deco });
  renderPrompt();
  $("panel-table").innerHTML = panelRows(desc)
    .map((r) => `<tr><th>${escapeHtml(r.label)}</th>${r.values.map((x) => `<td>${escapeHtml(x)}</td>`).join("")}</tr>`)
    .join("");
  $("hint").disabled = ui.over;
  $("solution").disabled = ui.over;
  $("move-play").disabled = ui.over;
}

// -- playing a step --------------------------------------------------------------------------
function ratingText(res) {
  if (!res.rated) {
    if (res.why_unrated === "guest") return t("puzzles:guest");
    return t("puzzles:unrated_again");
  }
  const r = res.rating;
  const sign = r.change >= 0 ? "+" : "";
  return t("puzzles:rated_change", { before: r.rating_before, after: r.rating, change: `${sign}${r.change}` });
}

async function play(move) {
  if (ui.over || ui.busy || !ui.puzzle) return;
  ui.sel = [];
  ui.choice = null;
  ui.hint = null;
  ui.busy = true;
  showError("");
  let res;
  try {
    res = await api("POST", `/api/puzzles/${encodeURIComponent(ui.puzzle.id)}/attempt`, { moves: [...ui.moves, move] });
  } catch (e) {
    ui.busy = false;
    showError(refusalText(e));
    render();
    return;
  }
  ui.busy = false;
  const step = res.steps[res.steps.length - 1];
  ui.moves.push(step.move);
  ui.render = res.render;
  if (res.status === "correct") {
    const replies = step.replies.length ? ` ${t("puzzles:replied", { moves: step.replies.join(" ") })}` : "";
    say(`${t("puzzles:correct")}${replies}`);
  } else if (res.status === "solved") {
    ui.over = true;
    say(t("puzzles:solved"));
    $("result").textContent = ratingText(res);
    loadMe();
  } else {
    ui.over = true;
    const refutation = step.refutation.length ? ` ${t("puzzles:refutation", { moves: step.refutation.join(" ") })}` : "";
    say(`${t("puzzles:wrong", { move: step.move })}${refutation}`);
    $("result").textContent = `${t("puzzles:solution_is", { moves: res.solution.join(" ") })} · ${ratingText(res)}`;
    loadMe();
  }
  render();
  if (ui.over) $("next").focus();
  else if (ui.kbd) board.focus(); // played on the board: the keyboard stays there
  else $("move-input").focus();
}

async function hint() {
  if (ui.over || !ui.puzzle) return;
  try {
    const res = await api("POST", `/api/puzzles/${encodeURIComponent(ui.puzzle.id)}/hint`, { moves: ui.moves });
    ui.hint = res.cell;
    say(res.cell ? t("puzzles:hint_cell", { cell: res.cell }) : t("puzzles:hint_button"));
    render();
  } catch (e) {
    showError(refusalText(e));
  }
}

async function viewSolution() {
  if (ui.over || !ui.puzzle) return;
  try {
    const res = await api("POST", `/api/puzzles/${encodeURIComponent(ui.puzzle.id)}/solution`, {});
    ui.over = true;
    say(t("puzzles:solution_is", { moves: res.solution.join(" ") }));
    $("result").textContent = `${t("puzzles:solution_loss")} · ${ratingText(res)}`;
    render();
    loadMe();
    $("next").focus();
  } catch (e) {
    showError(refusalText(e));
  }
}

// -- the account's rating and history --------------------------------------------------------
async function loadMe() {
  if (!(await whoAmI())) {
    $("me").textContent = t("puzzles:guest"); // a guest asks nothing (no 401 in the console)
    return;
  }
  try {
    const me = await api("GET", "/api/puzzles/me");
    const game = $("game").value;
    const r = me.ratings[game];
    $("me").textContent = r ? t("puzzles:your_rating", { rating: r.rating, streak: r.streak, best: r.best_streak }) : "";
    $("history").innerHTML = me.history
      .map((h) => `<li><a href="/puzzles?id=${encodeURIComponent(h.id)}">${escapeHtml(h.id)}</a> ${escapeHtml(t(h.won ? "puzzles:won" : "puzzles:lost"))} (${h.rating_before} → ${h.rating_after})</li>`)
      .join("");
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      $("me").textContent = t("puzzles:guest");
      return;
    }
    showError(refusalText(e));
  }
}

function nextPath() {
  const theme = $("theme").value;
  return `/api/puzzles/next?game=${encodeURIComponent($("game").value)}${theme ? `&theme=${encodeURIComponent(theme)}` : ""}`;
}

function fillThemes(games) {
  const g = games.find((x) => x.game === $("game").value);
  const sel = $("theme");
  sel.length = 1;
  for (const th of g ? g.themes : []) {
    const o = document.createElement("option");
    o.value = th;
    o.textContent = t(themeKey(th));
    sel.appendChild(o);
  }
}

async function start() {
  await initI18n(["game", "params", "engine", "refusals", "puzzles"]);
  initPrefs({ palette: true });
  window.addEventListener("tessera:pref", (e) => {
    if (e.detail.name === "safePalette") render();
  });
  $("hint").addEventListener("click", hint);
  $("solution").addEventListener("click", viewSolution);
  $("next").addEventListener("click", () => load(nextPath()));
  $("daily").addEventListener("click", () => load(`/api/puzzles/daily?game=${encodeURIComponent($("game").value)}`));
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const move = $("move-input").value.trim();
    if (!move) return;
    $("move-input").value = "";
    play(move);
  });
  let games = [];
  try {
    games = (await api("GET", "/api/puzzles")).games;
  } catch (e) {
    showError(refusalText(e));
    return;
  }
  for (const g of games) {
    const o = document.createElement("option");
    o.value = g.game;
    o.textContent = t(`params:${g.game}.title`, { defaultValue: g.game });
    $("game").appendChild(o);
  }
  if (!games.length) {
    say(t("puzzles:none"));
    return;
  }
  $("game").addEventListener("change", () => {
    fillThemes(games);
    load(nextPath());
    loadMe();
  });
  $("theme").addEventListener("change", () => load(nextPath()));
  const id = query.get("id");
  if (id) {
    const game = id.split("-")[0];
    if (games.some((g) => g.game === game)) $("game").value = game;
  } else if (query.get("game")) {
    $("game").value = query.get("game");
  }
  fillThemes(games);
  loadMe();
  await load(id ? `/api/puzzles/${encodeURIComponent(id)}` : nextPath());
}
start();
