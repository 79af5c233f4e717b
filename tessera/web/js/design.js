// The designer's lab (/design/<game>): pick up to four variants of a game (the parameters as the
// catalogue declares them, or a game string typed in), run self-play studies on the server's AI pool
// (POST /api/design/<game>/studies), watch their progress, compare the variants side by side (the first
// seat's score and wins apart, draws, length, the design metrics, each with its interval), open example
// games in the analysis board, and see people's rated results beside. Game-agnostic: everything comes
// from the catalogue and the study's answer.

import { api, ApiError, escapeHtml } from "./api.js";
import { refusalText } from "./decorate.js";
import { currentLanguage, hasKey, initI18n, t } from "./i18n.js";
import { histogramPlot, intervalPlot } from "./plots.js";

const $ = (id) => document.getElementById(id);
const DASH = "—";
const RECORD_KEY = "tessera.analysis.record"; // the analysis board reads a handed record from here
let game = null; // the catalogue entry
let limits = { agents: ["level1", "level2", "level3"], max_games: 200, max_variants: 4 };
let polling = null;

function num(x, digits = 1) {
  return x === null || x === undefined || Number.isNaN(x)
    ? DASH
    : Number(x).toLocaleString(currentLanguage(), { maximumFractionDigits: digits });
}

function pct(x) {
  return x === null || x === undefined || Number.isNaN(x) ? DASH : `${num(100 * x)} %`;
}

function withCi(x, ci) {
  if (x === null || x === undefined || Number.isNaN(x)) return DASH;
  return `${pct(x)} [${Math.round(100 * ci[0])}–${Math.round(100 * ci[1])} %]`;
}

function paramLabel(p) {
  const key = `params:${game.name}.${p.name}.label`;
  return hasKey(key) ? t(key) : p.name;
}

// A game string from a name and the values that differ from the defaults, e.g. nume(size=4,komi=2)
function gameString(values) {
  const parts = [];
  for (const p of game.params) {
    const v = values[p.name];
    if (v === undefined || v === "" || String(v) === String(p.default ?? "")) continue;
    parts.push(`${p.name}=${typeof v === "string" && v.includes(",") ? `'${v}'` : v}`);
  }
  return parts.length ? `${game.name}(${parts.join(",")})` : game.name;
}

function paramInput(p, idx) {
  const id = `v${idx}-${p.name}`;
  let input;
  if (p.choices && p.choices.length) {
    input = `<select id="${id}" data-param="${escapeHtml(p.name)}">${p.choices
      .map((c) => `<option value="${escapeHtml(c)}"${String(c) === String(p.default) ? " selected" : ""}>${escapeHtml(c)}</option>`)
      .join("")}</select>`;
  } else if (p.kind === "bool") {
    input = `<select id="${id}" data-param="${escapeHtml(p.name)}"><option value="true"${p.default ? " selected" : ""}>${escapeHtml(t("design:yes"))}</option><option value="false"${p.default ? "" : " selected"}>${escapeHtml(t("design:no"))}</option></select>`;
  } else if (p.kind === "int" || p.kind === "float") {
    const attrs = [
      p.min !== null && p.min !== undefined ? `min="${p.min}"` : "",
      p.max !== null && p.max !== undefined ? `max="${p.max}"` : "",
      `step="${p.step || (p.kind === "int" ? 1 : "any")}"`,
    ].join(" ");
    input = `<input id="${id}" type="number" ${attrs} data-param="${escapeHtml(p.name)}" value="${p.default ?? ""}" placeholder="${escapeHtml(t("design:default"))}">`;
  } else {
    input = `<input id="${id}" type="text" data-param="${escapeHtml(p.name)}" value="${escapeHtml(p.default ?? "")}">`;
  }
  return `<label for="${id}" title="${escapeHtml(p.doc || "")}">${escapeHtml(paramLabel(p))}${input}</label>`;
}

function variantValues(box) {
  const values = {};
  for (const el of box.querySelectorAll("[data-param]")) values[el.dataset.param] = el.value;
  return values;
}

function refreshSpec(box) {
  box.querySelector(".spec").textContent = gameString(variantValues(box));
}

function addVariant() {
  const host = $("variants");
  const idx = host.children.length;
  if (idx >= limits.max_variants) return;
  const box = document.createElement("fieldset");
  box.className = "variant";
  box.innerHTML =
    `<legend>${escapeHtml(t("design:variant_n", { n: idx + 1 }))}</legend>` +
    `<div class="params">${game.params.map((p) => paramInput(p, idx)).join("")}</div>` +
    `<p><span class="spec"></span> <button type="button" class="remove">${escapeHtml(t("design:remove"))}</button></p>`;
  box.addEventListener("input", () => refreshSpec(box));
  box.addEventListener("change", () => refreshSpec(box));
  box.querySelector(".remove").addEventListener("click", () => {
    if (host.children.length > 1) box.remove();
    renumber();
  });
  host.appendChild(box);
  refreshSpec(box);
  renumber();
}

function renumber() {
  const host = $("variants");
  [...host.children].forEach((box, i) => {
    box.querySelector("legend").textContent = t("design:variant_n", { n: i + 1 });
  });
  $("add-variant").disabled = host.children.length >= limits.max_variants;
}

// -- results -----------------------------------------------------------------------------------

const METRICS = ["lead_changes", "stability", "uncertainty", "clarity", "coverage", "repetition", "outcome_uniformity"];

function figuresTable(study) {
  const figs = study.figures;
  const head = `<tr><th>${escapeHtml(t("design:figure"))}</th>${study.variants
    .map((v) => `<th><code>${escapeHtml(v)}</code></th>`)
    .join("")}</tr>`;
  const row = (label, cell) => `<tr><th scope="row">${escapeHtml(label)}</th>${figs.map((f, i) => `<td class="num">${cell(f, i)}</td>`).join("")}</tr>`;
  const people = study.people || {};
  const rows = [
    row(t("design:games_played"), (f) => num(f.games, 0)),
    row(t("design:first_score"), (f) => escapeHtml(withCi(f.seat_score[0], f.seat_score_ci95[0]))),
    row(t("design:first_wins"), (f) => escapeHtml(withCi(f.seat_win_rate[0], f.seat_win_ci95[0]))),
    row(t("design:draws"), (f) => escapeHtml(withCi(f.draw_rate, f.draw_ci95))),
    row(t("design:length"), (f) =>
      escapeHtml(f.games ? `${num(f.length.median, 0)} [${num(f.length.q1, 0)}–${num(f.length.q3, 0)}]` : DASH),
    ),
    ...METRICS.map((m) => row(t(`design:metric_${m}`), (f) => escapeHtml(num(f.ludii[m], 3)))),
    row(t("design:draws_cause"), (f) =>
      escapeHtml(`${f.ludii.draws_by_cause.rule} / ${f.ludii.draws_by_cause.safeguard}`),
    ),
    row(t("design:people"), (f, i) => {
      const p = people[study.variants[i]];
      if (!p || !p.games) return DASH;
      const fs = p.first_seat;
      return escapeHtml(`${num(p.games, 0)}: ${fs.rate === null ? DASH : withCi(fs.rate, [fs.low, fs.high])}`);
    }),
  ];
  $("figures").innerHTML = head + rows.join("");
}

// Intervals of the first seat's score, one per variant, around the ½ line; the length histograms
function scorePlot(study) {
  const rows = study.figures.map((f, i) => ({
    label: study.variants[i],
    value: f.games ? f.seat_score[0] : null,
    lo: f.games ? f.seat_score_ci95[0][0] : 0,
    hi: f.games ? f.seat_score_ci95[0][1] : 0,
    title: f.games ? withCi(f.seat_score[0], f.seat_score_ci95[0]) : "",
  }));
  $("plot-score").innerHTML = intervalPlot(rows, { label: t("design:plot_score") });
}

function lengthPlot(study) {
  $("plot-length").innerHTML = study.figures
    .map((f, i) =>
      histogramPlot(f.length.histogram || { edges: [], counts: [] }, {
        caption: study.variants[i],
        label: `${t("design:plot_length")}: ${study.variants[i]}`,
        fmt: (v) => num(v, 0),
      }),
    )
    .join("");
}

function examples(study) {
  const items = [];
  study.figures.forEach((f, i) => {
    for (const ex of f.examples || []) {
      const kind = hasKey(`design:example_${ex.kind.replace(/ /g, "_").replace(/_of_seat_\d+/, "")}`)
        ? t(`design:example_${ex.kind.replace(/ /g, "_").replace(/_of_seat_\d+/, "")}`, { seat: ex.winner })
        : ex.kind;
      items.push(
        `<li><button type="button" class="open-example" data-key="${escapeHtml(ex.key)}">${escapeHtml(
          t("design:open_example", { variant: study.variants[i], kind, plies: ex.plies }),
        )}</button></li>`,
      );
    }
  });
  $("examples").innerHTML = items.join("") || `<li>${escapeHtml(t("design:no_examples"))}</li>`;
  for (const b of document.querySelectorAll(".open-example")) {
    b.addEventListener("click", async () => {
      try {
        const res = await fetch(`/api/design/studies/${encodeURIComponent(study.id)}/record?key=${encodeURIComponent(b.dataset.key)}`);
        if (!res.ok) throw new ApiError(res.status, await res.text());
        sessionStorage.setItem(RECORD_KEY, await res.text());
        location.href = "/analysis?record=paste";
      } catch (e) {
        showError(e);
      }
    });
  }
}

function showStudy(study) {
  $("study").hidden = false;
  $("study").dataset.id = study.id;
  $("study").dataset.status = study.status;
  $("study-title").textContent = t("design:study_of", { agent: study.agent, games: study.games });
  $("progress").max = study.total;
  $("progress").value = study.played;
  $("progress-text").textContent = t(`design:status_${study.status}`, { played: study.played, total: study.total });
  $("cancel").hidden = !["queued", "running"].includes(study.status);
  figuresTable(study);
  scorePlot(study);
  lengthPlot(study);
  examples(study);
  if (study.error) showError(new Error(study.error));
}

async function watch(id) {
  clearTimeout(polling);
  try {
    const study = await api("GET", `/api/design/studies/${encodeURIComponent(id)}`);
    showStudy(study);
    if (["queued", "running"].includes(study.status)) polling = setTimeout(() => watch(id), 2000);
    else refreshHistory();
  } catch (e) {
    showError(e);
  }
}

async function refreshHistory() {
  try {
    const { studies } = await api("GET", `/api/design/${encodeURIComponent(game.name)}/studies`);
    $("history").hidden = studies.length === 0;
    $("studies").innerHTML = studies
      .map(
        (s) =>
          `<li><button type="button" class="open-study" data-id="${escapeHtml(s.id)}">${escapeHtml(
            `${s.variants.join(" · ")} — ${s.agent}, ${t(`design:status_${s.status}`, { played: s.played, total: s.total })}`,
          )}</button></li>`,
      )
      .join("");
    for (const b of document.querySelectorAll(".open-study")) b.addEventListener("click", () => watch(b.dataset.id));
  } catch {
    /* the list is a convenience: the page works without it */
  }
}

function showError(e) {
  const box = $("form-error");
  box.textContent = refusalText(e);
  box.hidden = false;
}

async function run(e) {
  e.preventDefault();
  $("form-error").hidden = true;
  const variants = [...$("variants").children].map((box) => gameString(variantValues(box)));
  const body = { variants, agent: $("agent").value, games: parseInt($("games").value, 10) };
  $("run").disabled = true;
  try {
    const study = await api("POST", `/api/design/${encodeURIComponent(game.name)}/studies`, body);
    showStudy(study);
    watch(study.id);
    refreshHistory();
  } catch (err) {
    showError(err);
  } finally {
    $("run").disabled = false;
  }
}

async function start() {
  await initI18n(["design", "params"]);
  const name = decodeURIComponent(location.pathname.split("/")[2] || "");
  $("to-stats").href = `/stats/${encodeURIComponent(name)}`;
  $("to-rules").href = `/rules/${encodeURIComponent(name)}`;
  try {
    const catalog = (await api("GET", "/api/catalog")).games;
    const sel = $("design-game");
    for (const g of catalog) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = g.title || g.name;
      o.selected = g.name === name;
      sel.appendChild(o);
    }
    sel.addEventListener("change", () => {
      location.href = `/design/${encodeURIComponent(sel.value)}`;
    });
    game = catalog.find((g) => g.name === name);
    if (!game) throw new Error(t("design:unknown_game"));
    $("heading").textContent = `${t("design:title")} — ${game.title || game.name}`;
    document.title = `tessera — ${t("design:title")} — ${game.title || game.name}`;
    limits = await api("GET", "/api/design/limits");
  } catch (e) {
    const box = $("design-error");
    box.textContent = refusalText(e);
    box.hidden = false;
    document.body.dataset.ready = "error";
    return;
  }
  let signedIn = true;
  try {
    await api("GET", "/api/account");
  } catch {
    signedIn = false;
  }
  $("signin").hidden = signedIn;
  $("study-form").hidden = !signedIn;
  if (signedIn) {
    $("agent").innerHTML = limits.agents
      .map((a) => `<option value="${escapeHtml(a)}"${a === "level2" ? " selected" : ""}>${escapeHtml(t("design:agent_level", { n: a.replace("level", "") }))}</option>`)
      .join("");
    $("games").max = limits.max_games;
    addVariant();
    $("add-variant").addEventListener("click", addVariant);
    $("study-form").addEventListener("submit", run);
    $("cancel").addEventListener("click", async () => {
      try {
        showStudy(await api("POST", `/api/design/studies/${encodeURIComponent($("study").dataset.id)}/cancel`));
      } catch (e) {
        showError(e);
      }
    });
    await refreshHistory();
  }
  document.body.dataset.ready = "1";
}
start();
