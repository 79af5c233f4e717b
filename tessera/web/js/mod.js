// The moderation page (/mod, admins only; docs/moderation.md): the reports queue, one account's
// games, chat, reports, log and engine-use signal, the moderator's actions, and the log of every
// action. Every action goes through the API, which logs it; the page only shows what it answers.
import { api } from "./api.js";
import { refusalText } from "./decorate.js";
import { initI18n, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
let current = null; // the account open in the "Account" section

function showError(e) {
  $("error").textContent = e ? refusalText(e) : "";
  $("error").hidden = !e;
}

function say(text) {
  $("status").textContent = text;
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(document.documentElement.lang);
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  row.append(td);
  return td;
}

function item(list, text) {
  const li = document.createElement("li");
  li.textContent = text;
  list.append(li);
  return li;
}

function accountButton(name) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link";
  b.textContent = name;
  b.addEventListener("click", () => openAccount(name));
  return b;
}

function evidenceText(ev) {
  if (ev.kind === "chat") return t("moderation:evidence_chat", { author: ev.author, text: ev.text, game: ev.game_id });
  return ev.game_id
    ? t("moderation:evidence_profile_game", { name: ev.username, game: ev.game_id })
    : t("moderation:evidence_profile", { name: ev.username });
}

// -- the queue ---------------------------------------------------------------------------------
async function loadQueue() {
  const status = $("queue-status").value;
  const { reports } = await api("GET", `/api/mod/reports?status=${status}`);
  const body = $("queue").querySelector("tbody");
  body.replaceChildren();
  for (const r of reports) {
    const row = document.createElement("tr");
    row.dataset.report = r.id;
    cell(row, when(r.created_at));
    cell(row, r.reporter);
    cell(row, "").append(accountButton(r.target));
    cell(row, t(`moderation:reasons.${r.reason}`));
    cell(row, r.text);
    cell(row, evidenceText(r.evidence));
    cell(row, r.against ?? "");
    const act = cell(row, "");
    if (r.status === "open") {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t("moderation:close_report");
      b.addEventListener("click", () => run(async () => {
        await api("POST", `/api/mod/reports/${r.id}/close`, { note: $("act-note").value });
        say(t("moderation:report_closed", { id: r.id }));
        await Promise.all([loadQueue(), loadLog()]);
      }));
      act.append(b);
    } else {
      act.textContent = t("moderation:closed_by", { name: r.closed_by || "" });
    }
    body.append(row);
  }
  $("queue-empty").hidden = reports.length > 0;
}

// -- one account -------------------------------------------------------------------------------
function standingText(a) {
  const parts = [a.username];
  if (a.closed) parts.push(t("moderation:is_closed"));
  if (a.is_admin) parts.push(t("moderation:is_admin"));
  if (a.chat_muted) parts.push(t("moderation:is_muted"));
  if (a.engine) parts.push(t("moderation:is_engine"));
  parts.push(t("moderation:warnings", { count: a.warnings }));
  return parts.join(" · ");
}

function signalText(s) {
  if (!s) return t("moderation:signal_none");
  const d = s.distribution;
  const text = t("moderation:signal_share", {
    share: (100 * s.share).toFixed(1),
    matches: s.matches,
    moves: s.moves,
    games: s.games,
    iterations: s.iterations,
  });
  if (!d.players) return `${text} ${t("moderation:signal_no_players")}`;
  return `${text} ${t("moderation:signal_among", {
    percentile: (100 * s.percentile).toFixed(0),
    players: d.players,
    p10: (100 * d.p10).toFixed(1),
    p50: (100 * d.p50).toFixed(1),
    p90: (100 * d.p90).toFixed(1),
  })}`;
}

function showAccount(a) {
  current = a.username;
  $("account").hidden = false;
  $("account-standing").textContent = standingText(a);
  $("signal-text").textContent = signalText(a.signal);
  const games = $("account-games");
  games.replaceChildren();
  for (const g of a.games) {
    const li = item(games, "");
    const link = document.createElement("a");
    link.href = `/g/${encodeURIComponent(g.id)}`;
    link.textContent = `${g.game} · ${g.id}`;
    li.append(link, ` · ${g.rated ? t("moderation:rated") : t("moderation:casual")} · ${g.status} · ${when(g.created_at)}`);
  }
  if (!a.games.length) item(games, t("moderation:none"));
  const chat = $("account-chat");
  chat.replaceChildren();
  for (const m of a.chat) item(chat, `${when(m.at)} · ${m.game_id} · ${m.room}: ${m.text}`);
  if (!a.chat.length) item(chat, t("moderation:none"));
  const reports = $("account-reports");
  reports.replaceChildren();
  for (const r of a.reports) {
    item(reports, `${when(r.created_at)} · ${r.reporter} · ${t(`moderation:reasons.${r.reason}`)} · ${r.text} · ${evidenceText(r.evidence)}`);
  }
  if (!a.reports.length) item(reports, t("moderation:none"));
  const log = $("account-log");
  log.replaceChildren();
  for (const x of a.log) item(log, `${when(x.at)} · ${x.moderator || t("moderation:operator")} · ${t(`moderation:did.${x.action}`)} · ${x.note}`);
  if (!a.log.length) item(log, t("moderation:none"));
}

async function openAccount(name) {
  await run(async () => {
    const a = await api("GET", `/api/mod/accounts/${encodeURIComponent(name)}`);
    $("lookup-name").value = a.username;
    showAccount(a);
  });
}

// -- the log -----------------------------------------------------------------------------------
async function loadLog() {
  const { log } = await api("GET", "/api/mod/log");
  const body = $("log").querySelector("tbody");
  body.replaceChildren();
  for (const x of log) {
    const row = document.createElement("tr");
    cell(row, when(x.at));
    cell(row, x.moderator || t("moderation:operator"));
    cell(row, x.target);
    cell(row, t(`moderation:did.${x.action}`));
    cell(row, x.note);
    body.append(row);
  }
}

async function run(work) {
  showError(null);
  try {
    await work();
  } catch (e) {
    showError(e);
  }
}

async function main() {
  await initI18n(["moderation"]);
  $("queue-status").addEventListener("change", () => run(loadQueue));
  $("lookup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openAccount($("lookup-name").value.trim());
  });
  for (const b of document.querySelectorAll("#act button[data-action]")) {
    b.addEventListener("click", () => run(async () => {
      if (!current) return;
      const action = b.dataset.action;
      if (action === "close" && !window.confirm(t("moderation:confirm_close", { name: current }))) return;
      await api("POST", `/api/mod/accounts/${encodeURIComponent(current)}/actions`, { action, note: $("act-note").value });
      say(t("moderation:done", { action: t(`moderation:did.${action}`), name: current }));
      $("act-note").value = "";
      await Promise.all([openAccount(current), loadLog(), loadQueue()]);
    }));
  }
  $("signal-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    run(async () => {
      if (!current) return;
      say(t("moderation:computing"));
      const iterations = Number($("signal-iterations").value);
      const r = await api("POST", `/api/mod/accounts/${encodeURIComponent(current)}/signal`, { iterations });
      $("signal-text").textContent = signalText(r.signal);
      say(t("moderation:computed"));
    });
  });
  await run(() => Promise.all([loadQueue(), loadLog()]));
  const asked = new URLSearchParams(location.search).get("account");
  if (asked) await openAccount(asked);
  document.body.dataset.ready = "1";
}

main();
