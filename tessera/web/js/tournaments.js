// The tournaments page (/tournaments): running, upcoming and finished tournaments (GET
// /api/tournaments, looked at again every 10 s) and the form that announces one (POST
// /api/tournaments). Nothing here names a game: the games come from the catalogue.

import { api, ApiError, escapeHtml } from "./api.js";
import { initI18n, t } from "./i18n.js";
import { tournamentLine } from "./tournament-line.js";

const $ = (id) => document.getElementById(id);

async function refresh() {
  const all = await api("GET", "/api/tournaments");
  for (const status of ["started", "created", "finished"]) {
    const items = all[status] || [];
    $(`list-${status}`).innerHTML = items.length
      ? items.map((x) => `<li>${tournamentLine(x)}</li>`).join("")
      : `<li class="meta">${escapeHtml(t("tournaments:none"))}</li>`;
  }
  document.body.dataset.ready = "1";
}

function showError(e) {
  const box = $("tour-error");
  box.textContent = e instanceof ApiError ? e.detail : String(e);
  box.hidden = false;
}

async function announce(ev) {
  ev.preventDefault();
  const f = ev.target.elements;
  const days = Number(f.days.value);
  const body = {
    kind: f.kind.value,
    game: f.game.value,
    rated: f.rated.checked,
    starts_at: Date.now() / 1000 + 60 * Number(f.starts_in.value),
  };
  if (days > 0) body.days = days;
  else body.clock = { initial: 60 * Number(f.initial.value), increment: Number(f.increment.value) };
  if (body.kind === "arena") body.minutes = Number(f.minutes.value);
  else body.rounds = Number(f.rounds.value);
  if (f.name.value.trim()) body.name = f.name.value.trim();
  try {
    const made = await api("POST", "/api/tournaments", body);
    location.href = `/tournament/${encodeURIComponent(made.id)}`;
  } catch (e) {
    showError(e);
  }
}

async function start() {
  await initI18n(["tournaments", "account"]);
  document.title = t("tournaments:page_title");
  try {
    const c = await api("GET", "/api/catalog");
    for (const g of c.games) {
      const o = document.createElement("option");
      o.value = g.name;
      o.textContent = g.title || g.name;
      $("tour-game").appendChild(o);
    }
  } catch (e) {
    showError(e);
  }
  $("new-tournament").addEventListener("submit", announce);
  try {
    await refresh();
  } catch (e) {
    showError(e);
  }
  setInterval(() => refresh().catch(() => {}), 10000);
}
start();
