// The statistics page (/stats/<game>): what designers ask of a game — from people's finished rated
// games (GET /api/stats/<game>: the first seat's win rate with its 95 % Wilson interval, draws,
// length, abandons and time-outs; by variant and rating band) beside the balance lab's self-play
// figures for the same variants (the stored balance studies, in the same answer's "self_play"), the
// verdicts the lab reached at several strengths ("strengths") and the fair values it fitted.

import { api, ApiError, escapeHtml } from "./api.js";
import { currentLanguage, initI18n, t } from "./i18n.js";
import { initPrefs } from "./prefs.js";
import { intervalPlot, naturalCompare } from "./plots.js";

const $ = (id) => document.getElementById(id);
const DASH = "—";

function pct(x) {
  if (x === null || x === undefined) return DASH;
  return `${(100 * x).toLocaleString(currentLanguage(), { maximumFractionDigits: 1 })} %`;
}

// "58 % [44–71 %]" (the rate of decided games, with its interval), or a dash without games
function firstSeat(f) {
  if (!f || f.rate === null || f.rate === undefined) return DASH;
  const lo = Math.round(100 * f.low);
  const hi = Math.round(100 * f.high);
  return `${pct(f.rate)} [${lo}–${hi} %]`;
}

function num(x) {
  return x === null || x === undefined ? DASH : Number(x).toLocaleString(currentLanguage(), { maximumFractionDigits: 1 });
}

function people(s) {
  const rows = [
    [t("stats:rated_games"), num(s.games)],
    [t("stats:first_seat_wins"), firstSeat(s.first_seat)],
    [t("stats:draws"), pct(s.draw_rate)],
    [t("stats:length"), num(s.length.median)],
    [t("stats:aborted"), pct(s.aborted_rate)],
    [t("stats:timeouts"), pct(s.timeout_rate)],
    [t("stats:resignations"), pct(s.resign_rate)],
  ];
  $("people").innerHTML = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("");
  $("people").dataset.games = s.games;
}

// One row per variant played by people or by the lab (a variant the lab studied with several
// agents gets one row per study).
function variants(s) {
  const names = [...new Set([...Object.keys(s.by_variant), ...s.self_play.map((x) => x.variant)])].sort(naturalCompare);
  const head =
    `<tr><th rowspan="2">${escapeHtml(t("stats:variant"))}</th>` +
    `<th class="group" colspan="3">${escapeHtml(t("stats:people"))}</th>` +
    `<th class="group" colspan="6">${escapeHtml(t("stats:self_play"))}</th></tr>` +
    `<tr><th>${escapeHtml(t("stats:games"))}</th><th>${escapeHtml(t("stats:first_seat_wins"))}</th><th>${escapeHtml(t("stats:draws"))}</th>` +
    `<th>${escapeHtml(t("stats:agent"))}</th><th>${escapeHtml(t("stats:games"))}</th><th>${escapeHtml(t("stats:first_seat_wins"))}</th>` +
    `<th>${escapeHtml(t("stats:first_seat_score"))}</th><th>${escapeHtml(t("stats:draws"))}</th><th>${escapeHtml(t("stats:length"))}</th></tr>`;
  const rows = [];
  for (const name of names) {
    const p = s.by_variant[name];
    const lab = s.self_play.filter((x) => x.variant === name);
    const mine = p
      ? `<td class="num">${num(p.games)}</td><td class="num">${escapeHtml(firstSeat(p.first_seat))}</td><td class="num">${escapeHtml(pct(p.draw_rate))}</td>`
      : `<td class="num">0</td><td class="num">${DASH}</td><td class="num">${DASH}</td>`;
    const labCells = (x) =>
      x
        ? `<td class="agent" title="${escapeHtml(x.study)}">${escapeHtml(x.agent || x.study)}<br><small>${escapeHtml(x.budget || "")}</small></td><td class="num">${num(x.games)}</td>` +
          `<td class="num">${escapeHtml(firstSeat(x.first_seat))}</td><td class="num">${escapeHtml(firstSeat(x.first_seat_score))}</td>` +
          `<td class="num">${escapeHtml(pct(x.draw_rate))}</td><td class="num">${num(x.length.median)}</td>`
        : `<td>${DASH}</td><td class="num">${DASH}</td><td class="num">${DASH}</td><td class="num">${DASH}</td><td class="num">${DASH}</td><td class="num">${DASH}</td>`;
    const first = lab.length ? lab : [null];
    first.forEach((x, i) => {
      const label = i === 0 ? `<td rowspan="${first.length}"><code>${escapeHtml(name)}</code></td>${mine.replace(/<td/g, `<td rowspan="${first.length}"`)}` : "";
      rows.push(`<tr data-variant="${escapeHtml(name)}">${label}${labCells(x)}</tr>`);
    });
  }
  $("variants").innerHTML = head + (rows.length ? rows.join("") : `<tr><td colspan="10">${escapeHtml(t("stats:none"))}</td></tr>`);
  const plotted = s.self_play
    .slice()
    .sort((a, b) => naturalCompare(a.variant, b.variant))
    .map((x) => ({
      label: x.variant,
      value: x.first_seat_score.rate,
      lo: x.first_seat_score.low,
      hi: x.first_seat_score.high,
      title: `${firstSeat(x.first_seat_score)} · ${x.agent || x.study} · ${x.budget || ""}`,
    }));
  $("plot").innerHTML = plotted.length ? intervalPlot(plotted, { label: t("stats:plot_score") }) : "";
  $("plot-card").hidden = plotted.length === 0;
}

// The fair values the balance lab fitted ("the komi at which the first seat scores ½"), with their intervals
function fairValues(s) {
  const rows = (s.fair_values || []).map((f) => {
    const est =
      f.estimate === null || f.estimate === undefined
        ? t("stats:fair_none")
        : f.ci95
          ? `${num(f.estimate)} [${num(f.ci95[0])} – ${num(f.ci95[1])}]`
          : t("stats:fair_unbounded");
    const warn = [f.outside_range ? t("stats:fair_outside") : "", f.non_monotonic ? t("stats:fair_non_monotonic") : ""]
      .filter(Boolean)
      .join(" ");
    return (
      `<tr><td><code>${escapeHtml(f.game)}</code></td><td>${escapeHtml(f.param)}</td><td class="num">${escapeHtml(est)}</td>` +
      `<td class="num">${f.tested ? escapeHtml(`${num(f.tested[0])} – ${num(f.tested[1])}`) : DASH}</td>` +
      `<td class="agent">${escapeHtml(f.agent || "")}<br><small>${escapeHtml(f.budget || "")}</small></td><td>${escapeHtml(warn)}</td></tr>`
    );
  });
  $("fair-card").hidden = rows.length === 0;
  $("fair").innerHTML =
    `<tr><th>${escapeHtml(t("stats:variant"))}</th><th>${escapeHtml(t("stats:fair_param"))}</th><th>${escapeHtml(t("stats:fair_value"))}</th>` +
    `<th>${escapeHtml(t("stats:fair_tested"))}</th><th>${escapeHtml(t("stats:agent"))}</th><th></th></tr>` +
    rows.join("");
}

// The balance lab's questions asked at several strengths: per question (a variant), each program's
// verdict on the first seat's score with its interval, then what the programs say together.
function verdictText(r) {
  return r.verdict === "even" ? t("stats:verdict_even", { elo: num(r.elo) }) : t(`stats:verdict_${r.verdict}`);
}

function agreementText(a) {
  return a.code === "only_at" ? t("stats:agree_only_at", { agents: a.agents.join(", ") }) : t(`stats:agree_${a.code}`);
}

function strengthVerdicts(s) {
  const rows = [];
  for (const study of s.strengths || []) {
    for (const q of study.questions) {
      q.rows.forEach((r, i) => {
        const lead =
          i === 0
            ? `<td rowspan="${q.rows.length}" title="${escapeHtml(study.study)}"><code>${escapeHtml(q.variant)}</code></td>`
            : "";
        const tail =
          i === 0 ? `<td rowspan="${q.rows.length}" class="agreement" data-code="${escapeHtml(q.agreement.code)}">${escapeHtml(agreementText(q.agreement))}</td>` : "";
        rows.push(
          `<tr data-variant="${escapeHtml(q.variant)}">${lead}<td class="agent">${escapeHtml(r.agent)}<br><small>${escapeHtml(r.budget || "")}</small></td>` +
            `<td class="num">${num(r.games)}</td><td class="num">${escapeHtml(firstSeat(r.score))}</td>` +
            `<td class="verdict" data-verdict="${escapeHtml(r.verdict)}">${escapeHtml(verdictText(r))}</td>${tail}</tr>`,
        );
      });
    }
  }
  $("strengths-card").hidden = rows.length === 0;
  $("strengths").innerHTML =
    `<tr><th>${escapeHtml(t("stats:variant"))}</th><th>${escapeHtml(t("stats:agent"))}</th><th>${escapeHtml(t("stats:games"))}</th>` +
    `<th>${escapeHtml(t("stats:first_seat_score"))}</th><th>${escapeHtml(t("stats:verdict"))}</th><th>${escapeHtml(t("stats:together"))}</th></tr>` +
    rows.join("");
}

function bands(s) {
  const entries = Object.entries(s.by_band);
  $("bands").innerHTML =
    `<tr><th>${escapeHtml(t("stats:band"))}</th><th>${escapeHtml(t("stats:games"))}</th><th>${escapeHtml(t("stats:first_seat_wins"))}</th>` +
    `<th>${escapeHtml(t("stats:draws"))}</th><th>${escapeHtml(t("stats:length"))}</th></tr>` +
    (entries.length
      ? entries
          .map(
            ([band, b]) =>
              `<tr><td>${escapeHtml(band === "unrated" ? t("stats:unrated") : band)}</td><td class="num">${num(b.games)}</td>` +
              `<td class="num">${escapeHtml(firstSeat(b.first_seat))}</td><td class="num">${escapeHtml(pct(b.draw_rate))}</td>` +
              `<td class="num">${num(b.length.median)}</td></tr>`,
          )
          .join("")
      : `<tr><td colspan="5">${escapeHtml(t("stats:none"))}</td></tr>`);
}

async function start() {
  await initI18n(["stats"]);
  initPrefs(); // the theme switch, as on every page
  const game = decodeURIComponent(location.pathname.split("/")[2] || "");
  const sel = $("stats-game");
  try {
    const c = await api("GET", "/api/catalog");
    for (const g of c.games) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = g.title || g.name;
      o.selected = g.name === game;
      sel.appendChild(o);
    }
  } catch {
    /* the select stays empty: the page still shows this game */
  }
  sel.addEventListener("change", () => {
    location.href = `/stats/${encodeURIComponent(sel.value)}`;
  });
  $("to-leaderboard").href = `/leaderboard/${encodeURIComponent(game)}`;
  $("to-rules").href = `/rules/${encodeURIComponent(game)}`;
  $("to-design").href = `/design/${encodeURIComponent(game)}`;
  try {
    const s = await api("GET", `/api/stats/${encodeURIComponent(game)}`);
    const title = sel.selectedOptions[0] ? sel.selectedOptions[0].textContent : s.game;
    $("heading").textContent = `${t("stats:title")} — ${title}`;
    document.title = `tessera — ${t("stats:title")} — ${title}`;
    people(s);
    variants(s);
    strengthVerdicts(s);
    fairValues(s);
    bands(s);
    document.body.dataset.ready = "1";
  } catch (e) {
    const box = $("stats-error");
    box.textContent = e instanceof ApiError ? e.detail : String(e);
    box.hidden = false;
    document.body.dataset.ready = "error";
  }
}
start();
