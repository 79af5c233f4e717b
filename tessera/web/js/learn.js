// Learning to play: rule diagrams (drawn by board.js from the engine's render descriptions, step by
// step) and interactive lessons (moves entered as on the game page, judged by the server).
import { api, escapeHtml } from "./api.js";
import { BoardView } from "./board.js";
import { nextPathCells, pickCell } from "./board-paths.js";
import { decorations, gameClient, loadGameClient, localized, orderContext, refusalText, whenClientLoads } from "./decorate.js";
import { currentLanguage as i18nLanguage, initI18n, t as i18nT } from "./i18n.js";
import { safePalette } from "./prefs.js";

const PROGRESS_KEY = "tessera.learn.progress";

// -- translations -------------------------------------------------------------------------
// The "learn" catalogue (web/locales/<lang>/learn.json) through the client's i18n module; the
// English text given with each key is the fallback.
export async function initLearnI18n() {
  await initI18n(["learn", "engine", "game"]); // "game": the order texts of a game's client module
  return i18nLanguage();
}

export function t(key, fallback, opts = {}) {
  return i18nT(`learn:${key}`, { ...opts, defaultValue: fallback });
}

export function currentLanguage() {
  return i18nLanguage();
}

// -- progress in this browser ---------------------------------------------------------------
export function progress() {
  try {
    return JSON.parse(localStorage.getItem(PROGRESS_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

// The lobby's words on a game: a link to its lessons, and while none of them is solved here (the
// player's first games of it), an offer to learn it first.
export function lessonsLinkHtml(game, title) {
  const learned = Object.keys(progress()).some((id) => id.startsWith(`${game}-`));
  const link = `<a id="lessons-link" href="/learn/${encodeURIComponent(game)}">${escapeHtml(t("ui.lessons", "Lessons"))}</a>`;
  if (learned) return link;
  const offer = t("ui.offer", "First game of {{game}}? Learn it in five short lessons.", { game: title });
  return `${link} <span class="learn-offer">— <a href="/learn/${encodeURIComponent(game)}">${escapeHtml(offer)}</a></span>`;
}

function markSolved(id) {
  const p = progress();
  p[id] = true;
  localStorage.setItem(PROGRESS_KEY, JSON.stringify(p));
}

function el(tag, cls = "", text = null) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== null) n.textContent = text;
  return n;
}

function button(label, onclick, cls = "") {
  const b = el("button", cls, label);
  b.type = "button";
  b.addEventListener("click", onclick);
  return b;
}

// What the game's own client module draws over a description (group badges, colour numbers, the
// colour-blind palette: decorate.js), as on the game page; ``redraw`` runs once the module is here.
function drawn(desc, redraw) {
  whenClientLoads(desc, redraw);
  return decorations(desc, { safePalette: safePalette() });
}

// The colour table under a diagram or lesson board (the description's `table`): the colours in table
// order with the counts.
function tableStrip(desc) {
  if (!desc.table) return null;
  const strip = el("div", "color-table");
  strip.setAttribute("aria-label", t("ui.table", "colour table"));
  strip.appendChild(el("span", "table-label", `${t("ui.table", "colour table")}:`));
  for (const c of desc.table) {
    const cell = el("span", "swatch");
    cell.style.background = c.fill;
    cell.title = `${c.name}: ${c.counts.join(" / ")}`;
    cell.textContent = `${c.position + 1}`;
    const counts = el("small", "", c.counts.join("·"));
    const wrap = el("span", "table-entry");
    wrap.append(cell, counts);
    strip.appendChild(wrap);
  }
  return strip;
}

// -- a rule diagram ---------------------------------------------------------------------------
export class DiagramView {
  constructor(figure, diagram) {
    this.d = diagram;
    this.at = 0;
    for (const s of diagram.steps) if (!s.view.board) s.view.board = diagram.steps[0].view.board; // sent once
    figure.innerHTML = "";
    figure.classList.add("diagram");
    figure.dataset.diagram = diagram.id;
    const title = t(`diagram.${diagram.id}.title`, diagram.title);
    const head = el("div", "diagram-title", title);
    const box = el("div", "diagram-board");
    this.board = new BoardView(box, { fixed: true, label: title }); // one picture, named by its title
    this.table = el("div", "diagram-table");
    this.controls = el("div", "diagram-steps");
    this.note = el("p", "diagram-note");
    const cap = el("figcaption", "", t(`diagram.${diagram.id}.caption`, diagram.caption));
    figure.append(head, box, this.table, this.controls, this.note, cap);
    if (diagram.steps.length > 1) {
      this.prev = button("◀", () => this.show(this.at - 1), "step-prev");
      this.prev.setAttribute("aria-label", t("ui.back", "back"));
      this.next = button("▶", () => this.show(this.at + 1), "step-next");
      this.next.setAttribute("aria-label", t("ui.forward", "forward"));
      this.pos = el("span", "step-pos");
      this.controls.append(this.prev, this.pos, this.next);
    } else {
      this.controls.hidden = true;
    }
    this.show(0);
  }

  show(i) {
    const steps = this.d.steps;
    this.at = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[this.at];
    // an outlined cell under a piece (a Nibble block covers its cell) is ringed above the piece instead
    const occupied = new Set((step.view.pieces || []).map((p) => p.cell));
    const ringed = new Set((step.view.highlights || []).filter((h) => h.kind === "target" && occupied.has(h.cell)).map((h) => h.cell));
    this.board.draw(localized(step.view), { clickable: ringed, ...drawn(step.view, () => this.show(this.at)) });
    if (this.d.focus && this.d.focus.length) this.board.frame(this.d.focus, 3.2);
    this.table.innerHTML = "";
    const strip = tableStrip(step.view);
    if (strip) this.table.appendChild(strip);
    if (this.pos) {
      this.pos.textContent = t("ui.step", "step {{n}} of {{count}}", { n: this.at, count: steps.length - 1 });
      this.prev.disabled = this.at === 0;
      this.next.disabled = this.at === steps.length - 1;
    }
    const note = this.at ? t(`diagram.${this.d.id}.steps.${this.at}`, step.note) : "";
    this.note.textContent = this.at ? `${step.move}${note ? " — " + note : ""}` : t("ui.start", "The position: use ▶ to play the steps.");
    this.note.hidden = steps.length === 1;
  }
}

// -- a lesson ---------------------------------------------------------------------------------
class LessonView {
  constructor(root, game, lessons, onSolved) {
    this.root = root;
    this.game = game;
    this.lessons = lessons;
    this.onSolved = onSolved;
    this.lesson = null;
    this.moves = [];
    this.sel = [];
    this.choice = null;
    this.order = {};
    this.current = null;
    this.why = null;
    this.hintsShown = 0;
    this.verdict = null;
    root.innerHTML = "";
    this.title = el("h2", "lesson-title");
    this.task = el("p", "lesson-task");
    const box = el("div", "lesson-board");
    this.board = new BoardView(box, { onCell: (c) => this.onCell(c) });
    this.table = el("div", "lesson-table");
    this.prompt = el("div", "lesson-prompt");
    this.result = el("div", "lesson-result");
    this.result.setAttribute("role", "status");
    this.hints = el("ul", "lesson-hints");
    const tools = el("div", "lesson-tools");
    this.hintBtn = button(t("ui.hint", "Hint"), () => this.hint(), "hint-btn");
    this.resetBtn = button(t("ui.reset", "Start again"), () => this.start(this.lesson), "reset-btn");
    this.nextBtn = button(t("ui.next", "Next lesson"), () => this.nextLesson(), "primary next-btn");
    tools.append(this.hintBtn, this.resetBtn, this.nextBtn);
    root.append(this.title, this.task, box, this.table, this.prompt, this.result, this.hints, tools);
  }

  start(lesson) {
    this.lesson = lesson;
    this.moves = [];
    this.sel = [];
    this.choice = null;
    this.order = {};
    this.current = null;
    this.why = null;
    this.hintsShown = 0;
    this.verdict = null;
    this.view = lesson.view;
    this.root.dataset.lesson = lesson.id;
    this.title.textContent = t(`lesson.${lesson.id}.title`, lesson.title);
    this.task.textContent = t(`lesson.${lesson.id}.task`, lesson.task);
    this.hints.innerHTML = "";
    this.render();
  }

  nextLesson() {
    const i = this.lessons.findIndex((l) => l.id === this.lesson.id);
    const solved = progress();
    const after = this.lessons.slice(i + 1).concat(this.lessons.slice(0, i + 1));
    const next = after.find((l) => !solved[l.id]) || this.lessons[(i + 1) % this.lessons.length];
    history.replaceState(null, "", `#${next.id}`);
    this.start(next);
  }

  hint() {
    const hs = this.lesson.hints;
    if (this.hintsShown >= hs.length) return;
    this.hints.appendChild(el("li", "", t(`lesson.${this.lesson.id}.hints.${this.hintsShown}`, hs[this.hintsShown])));
    this.hintsShown++;
    this.hintBtn.disabled = this.hintsShown >= hs.length;
  }

  actions() {
    return this.verdict ? [] : this.view.actions || [];
  }

  onCell(cell) {
    if (this.verdict || cell === null) {
      this.sel = [];
      this.choice = null;
      return this.render();
    }
    const o = this.view.order;
    if (o) return this.onOrderCell(o, cell);
    const { sel, exact, longer } = pickCell(this.actions(), this.sel, cell);
    this.sel = sel;
    this.choice = null;
    if (exact.length === 1 && !longer.length && exact[0].move !== undefined) return this.play(exact[0].move);
    if (exact.length) this.choice = exact;
    this.render();
  }

  onOrderCell(o, cell) {
    const unit = o.units.find((u) => u.id === this.current);
    this.why = null;
    if (unit) {
      const c = unit.choices.find((ch) => ch.path && ch.path.length && ch.path[ch.path.length - 1] === cell);
      if (c) return this.choose(o, unit, c.token);
    }
    const other = o.units.find((u) => u.cell === cell);
    if (other) this.current = other.id;
    this.render();
  }

  // What the rules allow between the units of one order comes from the game's client module (its
  // `order` hook: blocked, conflict), as in the game page's builder (game-order.js); without one every
  // choice is offered and the server's verdict says what is wrong.
  orderRules() {
    const c = gameClient(this.game);
    return (c && c.order) || {};
  }

  orderContext() {
    return orderContext(this.view, this.view.viewer);
  }

  // Why a choice of a unit is not allowed with the rest of the order, or null.
  blocked(o, unit, token) {
    const r = this.orderRules();
    const c = unit.choices.find((ch) => ch.token === token);
    return r.blocked && c ? r.blocked(o, this.order, unit, c, this.orderContext()) || null : null;
  }

  choose(o, unit, token) {
    const why = o.single ? null : this.blocked(o, unit, token);
    this.why = why;
    if (why) return this.render(); // the order stays as it was; the sentence says why
    if (o.single) this.order = {};
    this.order[unit.id] = token;
    const next = o.units.find((u) => !this.order[u.id]);
    this.current = next ? next.id : unit.id;
    this.render();
  }

  async play(move) {
    this.moves.push(move);
    this.sel = [];
    this.choice = null;
    this.prompt.innerHTML = "";
    try {
      const r = await api("POST", `/api/learn/${this.game}/lessons/${this.lesson.id}`, { moves: this.moves });
      this.view = r.view;
      if (r.done) {
        this.verdict = r;
        if (r.correct) {
          markSolved(this.lesson.id);
          this.onSolved();
        }
      }
    } catch (e) {
      this.moves.pop();
      this.result.className = "lesson-result wrong";
      this.result.textContent = refusalText(e);
      return;
    }
    this.render();
  }

  render() {
    const v = this.view;
    const o = !this.verdict && v.order ? v.order : null;
    let clickable = new Set();
    const selected = new Set(this.sel);
    const marks = new Map();
    if (o) {
      if (!this.current && o.units.length) {
        for (const u of o.units) if (u.default && !o.single && !this.order[u.id]) this.order[u.id] = u.default;
        this.current = (o.units.find((u) => !this.order[u.id]) || o.units[0]).id;
      }
      const unit = o.units.find((u) => u.id === this.current);
      if (unit) {
        if (unit.cell) selected.add(unit.cell);
        for (const c of unit.choices) if (c.path && c.path.length) clickable.add(c.path[c.path.length - 1]);
      }
      for (const u of o.units) if (u.cell) clickable.add(u.cell);
      for (const u of o.units) {
        const tok = this.order[u.id];
        const c = tok && u.choices.find((ch) => ch.token === tok);
        if (c && c.path && c.path.length) marks.set(c.path[c.path.length - 1], u.id);
      }
    } else if (!this.choice) {
      clickable = nextPathCells(this.actions(), this.sel);
    }
    this.board.draw(localized(v), { clickable, selected, marks, ...drawn(v, () => this.render()) });
    this.table.innerHTML = "";
    const strip = tableStrip(v);
    if (strip) this.table.appendChild(strip);
    this.renderPrompt(o);
    this.renderResult();
    this.hintBtn.disabled = this.hintsShown >= this.lesson.hints.length;
  }

  renderPrompt(o) {
    const box = this.prompt;
    box.innerHTML = "";
    if (this.verdict) return;
    if (o) return this.renderOrder(box, o);
    if (this.choice) {
      const wrap = el("div", "choice");
      wrap.appendChild(el("div", "", `${this.sel.join(" → ")}:`));
      for (const a of this.choice) {
        if (a.choices) {
          for (const c of a.choices) {
            const b = button(String(c), () => this.play(a.template.replace("{n}", String(c))), "choice-btn");
            b.dataset.value = String(c);
            wrap.appendChild(b);
          }
        } else if (a.number) {
          const [lo, hi] = a.number;
          const input = el("input");
          input.type = "number";
          input.min = lo;
          input.max = hi;
          input.value = String(Math.min(hi, Math.max(lo, 1)));
          input.id = "number-input";
          input.setAttribute("aria-label", t("ui.number", "number from {{lo}} to {{hi}}", { lo, hi }));
          const ok = button(t("ui.place", "Place"), () => {
            const n = input.value.trim();
            if (/^-?\d+$/.test(n)) this.play(a.template.replace("{n}", String(parseInt(n, 10))));
          }, "primary");
          ok.id = "number-ok";
          wrap.append(input, ok);
        } else if (a.move !== undefined) {
          wrap.appendChild(button(a.label || a.move, () => this.play(a.move), "primary"));
        }
      }
      box.appendChild(wrap);
      return;
    }
    const buttons = this.actions().filter((a) => (!a.path || !a.path.length) && a.move !== undefined);
    if (this.moves.length) box.appendChild(el("p", "continue-hint", t("ui.goes-on", "Your turn goes on: make the next step on the board, or end it.")));
    for (const a of buttons) {
      const b = button(a.label || a.move, () => this.play(a.move), "action-btn");
      b.dataset.move = a.move;
      box.appendChild(b);
    }
  }

  renderOrder(box, o) {
    const wrap = el("div", "order-builder");
    for (const u of o.units) {
      const row = el("div", "unit" + (u.id === this.current ? " current" : ""));
      row.dataset.unit = u.id;
      const name = button(u.label || u.id, () => {
        this.current = u.id;
        this.render();
      }, "unit-name");
      row.appendChild(name);
      const chosen = this.order[u.id];
      row.appendChild(el("code", "unit-token", chosen || "…"));
      if (u.id === this.current) {
        const list = el("div", "unit-choices");
        for (const c of u.choices) {
          if (c.path && c.path.length && u.choices.length > 9) continue; // many squares (the invasion): click them
          const blocked = u.id === this.current && !o.single ? this.blocked(o, u, c.token) : null;
          const b = button(c.label || c.token, () => this.choose(o, u, c.token), (c.token === chosen ? "chosen" : "") + (blocked ? " blocked" : ""));
          b.dataset.token = c.token;
          if (blocked) {
            b.setAttribute("aria-disabled", "true");
            b.title = blocked;
          }
          list.appendChild(b);
        }
        row.appendChild(list);
      }
      wrap.appendChild(row);
    }
    const full = o.single ? Object.keys(this.order).length === 1 : o.units.every((u) => this.order[u.id]);
    const text = o.single ? Object.values(this.order)[0] : o.units.map((u) => this.order[u.id]).join(o.separator || " ");
    const r = this.orderRules();
    const conflict = !o.single && r.conflict ? r.conflict(o, this.order, this.orderContext()) : null;
    const why = this.why || conflict;
    if (why) {
      const p = el("p", "order-why", why);
      p.setAttribute("role", "status");
      wrap.appendChild(p);
    }
    const submit = button(t("ui.submit", "Submit the order"), () => this.play(text), "primary submit-order");
    submit.disabled = !full || !!conflict;
    wrap.appendChild(submit);
    box.appendChild(wrap);
  }

  renderResult() {
    const r = this.verdict;
    this.result.className = "lesson-result";
    this.result.textContent = "";
    this.nextBtn.hidden = !(r && r.correct);
    if (!r) return;
    if (r.correct) {
      this.result.classList.add("right");
      this.result.textContent = t("ui.right", "Right! {{moves}}", { moves: r.moves.join(" ") });
    } else {
      this.result.classList.add("wrong");
      const why = r.explanation_key ? t(`lesson.${this.lesson.id}.${r.explanation_key}`, r.explanation) : r.explanation;
      this.result.textContent = t("ui.wrong", "Not yet: {{why}}", { why });
      this.result.appendChild(button(t("ui.retry", "Try again"), () => this.start(this.lesson), "retry-btn"));
    }
  }
}

// -- the lessons page ---------------------------------------------------------------------------
export async function startLearn() {
  await initLearnI18n();
  const game = decodeURIComponent(location.pathname.split("/")[2] || "");
  const $ = (id) => document.getElementById(id);
  try {
    const [data, cat] = await Promise.all([api("GET", `/api/learn/${encodeURIComponent(game)}/lessons`), api("GET", "/api/catalog")]);
    const info = (cat.games || []).find((g) => g.name === game);
    // the game's client module before the first board, so that no redraw replaces a board being clicked
    if (info) await loadGameClient(game, info);
    const title = info ? info.title : game;
    document.title = `${t("ui.lessons-of", "{{game}} lessons", { game: title })} — tessera`;
    $("game-title").textContent = title;
    $("rules-link").href = `/rules/${game}`;
    $("rules-link").textContent = t("ui.rules", "Rules");
    $("play-link").href = `/?game=${game}`;
    $("play-link").textContent = t("ui.play", "Play");
    $("lessons-head").textContent = t("ui.lessons", "Lessons");
    const list = $("lesson-list");
    const view = new LessonView($("lesson"), game, data.lessons, () => fillList());
    const fillList = () => {
      const solved = progress();
      list.innerHTML = "";
      for (const l of data.lessons) {
        const li = el("li", solved[l.id] ? "solved" : "");
        const a = el("a", "", t(`lesson.${l.id}.title`, l.title));
        a.href = `#${l.id}`;
        a.dataset.lesson = l.id;
        a.addEventListener("click", (e) => {
          e.preventDefault();
          history.replaceState(null, "", `#${l.id}`);
          view.start(l);
        });
        li.append(a);
        if (solved[l.id]) li.append(el("span", "tick", " ✓"));
        list.appendChild(li);
      }
      const done = data.lessons.filter((l) => solved[l.id]).length;
      $("lesson-progress").textContent = t("ui.progress", "{{done}} of {{count}} solved", { done, count: data.lessons.length });
    };
    fillList();
    window.addEventListener("hashchange", () => {
      const l = data.lessons.find((x) => `#${x.id}` === location.hash);
      if (l && (!view.lesson || view.lesson.id !== l.id)) view.start(l);
    });
    const wanted = data.lessons.find((l) => `#${l.id}` === location.hash);
    const solved = progress();
    view.start(wanted || data.lessons.find((l) => !solved[l.id]) || data.lessons[0]);
  } catch (e) {
    $("lesson").textContent = e.detail || String(e);
  }
}
