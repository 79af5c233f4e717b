// One tournament's page (/tournament/<id>): a countdown, the live standings and pairings (the NDJSON
// stream GET /api/tournaments/<id>/stream, opened again when it drops), join / withdraw / berserk,
// and the player's next game opening by itself (its seat token from the account, as a challenge's).
// The game page is the same for every game: nothing here names one.

import { api, ApiError, escapeHtml } from "./api.js";
import { initI18n, t } from "./i18n.js";
import { clockText, duration } from "./tournament-line.js";

const $ = (id) => document.getElementById(id);
const tid = decodeURIComponent(location.pathname.split("/")[2] || "");
const OPENED = "tessera.tournament.opened";
let view = null;
let me = null;

function opened() {
  try {
    return new Set(JSON.parse(sessionStorage.getItem(OPENED) || "[]"));
  } catch {
    return new Set();
  }
}

function remember(gameId) {
  const s = opened();
  s.add(gameId);
  sessionStorage.setItem(OPENED, JSON.stringify([...s].slice(-50)));
}

function showError(e) {
  const box = $("tour-error");
  box.textContent = e instanceof ApiError ? e.detail : String(e);
  box.hidden = false;
}

function num(x) {
  return Number(x).toLocaleString(undefined, { maximumFractionDigits: 2 });
}

function tick() {
  if (!view) return;
  const now = Date.now() / 1000;
  let text = t(`tournaments:status_${view.status}`);
  if (view.status === "created") text = t("tournaments:starts_in_text", { time: duration(view.starts_at - now) });
  else if (view.status === "started" && view.kind === "arena")
    text = t("tournaments:ends_in_text", { time: duration(view.ends_at - now) });
  else if (view.status === "started") text = t("tournaments:round_of", { round: view.round, rounds: view.rounds });
  if ($("tour-clock").textContent !== text) $("tour-clock").textContent = text;
}

function standings(v) {
  const swiss = v.kind === "swiss";
  const cols = swiss ? ["points", "buchholz", "sonneborn_berger", "games"] : ["points", "sheet", "games"];
  const head = `<tr><th>${escapeHtml(t("tournaments:rank"))}</th><th>${escapeHtml(t("tournaments:player"))}</th>${cols
    .map((c) => `<th>${escapeHtml(t(`tournaments:${c}`))}</th>`)
    .join("")}</tr>`;
  const rows = v.standings.map((r) => {
    const cells = cols.map((c) =>
      c === "sheet" ? `<td>${escapeHtml(r.sheet.map(num).join(" "))}</td>` : `<td class="num">${escapeHtml(num(r[c]))}</td>`,
    );
    const notes = [r.fire ? t("tournaments:fire") : "", r.withdrawn ? t("tournaments:withdrawn") : ""].filter(Boolean);
    const name = `<a href="/u/${encodeURIComponent(r.username)}">${escapeHtml(r.username)}</a>${
      notes.length ? ` <span class="meta">(${escapeHtml(notes.join(", "))})</span>` : ""
    }`;
    const mine = me && r.username === me ? ' class="me"' : "";
    return `<tr${mine}><td class="num">${r.rank}</td><td>${name}</td>${cells.join("")}</tr>`;
  });
  $("standings").innerHTML = head + rows.join("");
}

function pairings(v) {
  $("pairings").innerHTML = v.pairings
    .map((p) => {
      const who = p.players.map(escapeHtml).join(" – ");
      const round = v.kind === "swiss" ? `${p.round}. ` : "";
      const state = escapeHtml(t(`tournaments:${p.status}`));
      const link = p.game_id ? ` <a href="/g/${encodeURIComponent(p.game_id)}">${escapeHtml(t("tournaments:watch"))}</a>` : "";
      return `<li>${round}${who} <span class="meta">${state}</span>${link}</li>`;
    })
    .join("");
}

async function openGame(game, automatically) {
  const s = await api("GET", `/api/account/games/${encodeURIComponent(game.game_id)}/seat`);
  const link = `/g/${encodeURIComponent(game.game_id)}#seat=${s.seat}&t=${s.token}`;
  $("my-game").href = link;
  $("my-game").hidden = false;
  if (automatically && !opened().has(game.game_id)) {
    remember(game.game_id);
    $("tour-note").textContent = t("tournaments:your_game");
    location.href = link;
  }
}

function render(v) {
  view = v;
  $("tour-name").textContent = v.name;
  document.title = `${v.name} — tessera`;
  const what = [t(`tournaments:${v.kind}`), v.game, clockText(v.clock), t("tournaments:players_count", { count: v.players })];
  if (v.seats > 2) what.push(t("tournaments:seats_four"));
  $("tour-what").textContent = what.join(" · ");
  $("tour-rules").textContent = t(`tournaments:rules_${v.kind}`);
  tick();
  standings(v);
  pairings(v);
  const open = v.status !== "finished";
  const joined = v.me && v.me.joined;
  $("join").hidden = !v.me || !open || joined;
  $("withdraw").hidden = !v.me || !open || !joined;
  $("berserk").hidden = !joined || !open || v.kind !== "arena" || !!v.clock.days || v.me.berserk;
  if (!v.me && open) $("tour-note").textContent = t("tournaments:log_in");
  else if (joined && v.me.berserk) $("tour-note").textContent = t("tournaments:berserk_on");
  if (v.me && v.me.game) openGame(v.me.game, true).catch(showError);
  else $("my-game").hidden = true;
  document.body.dataset.ready = "1";
}

async function follow() {
  for (;;) {
    try {
      const res = await fetch(`/api/tournaments/${encodeURIComponent(tid)}/stream`);
      if (!res.ok) {
        const data = await res.json().catch(() => ({}));
        throw new ApiError(res.status, data.detail || `HTTP ${res.status}`);
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) render(JSON.parse(line));
        }
      }
      if (view && view.status === "finished") return;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        showError(e);
        document.body.dataset.ready = "error";
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 3000));
  }
}

async function act(path) {
  try {
    await api("POST", `/api/tournaments/${encodeURIComponent(tid)}/${path}`);
    render(await api("GET", `/api/tournaments/${encodeURIComponent(tid)}`));
  } catch (e) {
    showError(e);
  }
}

async function start() {
  await initI18n(["tournaments", "account"]);
  try {
    const acc = await api("GET", "/api/account");
    me = acc && acc.username;
  } catch {
    me = null;
  }
  $("join").addEventListener("click", () => act("join"));
  $("withdraw").addEventListener("click", () => act("withdraw"));
  $("berserk").addEventListener("click", () => act("berserk"));
  setInterval(tick, 1000);
  follow();
}
start();
