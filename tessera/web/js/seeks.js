// "Play now": the lobby's seek pool panel (docs/play-online.md). Choose a game, its variant, a time
// control (real time or days per move) and rated or casual; the server pairs seeks in waves by
// rating. This page holds each seek's secret (sessionStorage) and waits on it (a long poll; an
// account's live stream tells too): once paired it goes to the game. The standing seeks of everyone are listed, one's own with Cancel;
// after a while without an opponent the AI at about one's rating is offered.

import { ApiError, api, escapeHtml, saveSeats, whoAmI } from "./api.js";
import { refusalText, specWords } from "./decorate.js";
import { clockSettingsText } from "./deadline.js";
import { fmtNumber, fmtRating, initI18n, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const STORE = "tessera:seeks";
const CLOCKS = ["300+3", "600+5", "900+10", "1800+20", "d1", "d2", "d3", "d5", "d7", "d14"];
const LIST_EVERY = 5000;

let me = null; // the account, or null for a guest
let catalog = [];
const mine = new Map(); // seek id -> {id, secret, last}

function loadMine() {
  try {
    for (const s of JSON.parse(sessionStorage.getItem(STORE) || "[]")) if (s && s.id && s.secret) mine.set(s.id, { id: s.id, secret: s.secret });
  } catch {
    /* nothing kept */
  }
}

function keepMine() {
  try {
    sessionStorage.setItem(STORE, JSON.stringify([...mine.values()].map(({ id, secret }) => ({ id, secret }))));
  } catch {
    /* private mode: the seek lasts while this page is open */
  }
}

// The API with the seek's secret in its header (never in the address).
async function seekApi(method, path, secret, body = undefined) {
  const headers = { "X-Seek-Secret": secret };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, t("common:no_connection"));
  }
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const keyed = data && typeof data.key === "string";
    const detail = (data && data.detail) || `HTTP ${res.status}`;
    throw new ApiError(res.status, detail, null, keyed ? data.key : null, keyed ? data.args : null);
  }
  return data;
}

function clockOf(value) {
  if (value.startsWith("d")) return { days: Number(value.slice(1)) };
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment };
}

function clockLabel(value) {
  const c = clockOf(value);
  return c.days ? t("seeks:days_per_move", { count: c.days }) : t("seeks:real_time", { minutes: fmtNumber(c.initial / 60), seconds: fmtNumber(c.increment) });
}

// A seek's game in words: its title and, for a variant, its parameters as the lobby names them
// ("Nume (Board: square · Board size: 5)"), never the raw spec.
function gameTitle(spec) {
  const name = String(spec).split("(")[0];
  const g = catalog.find((x) => x.name === name);
  const title = g ? g.title : name;
  const words = specWords(spec);
  return words ? `${title} (${words})` : title;
}

// The variants offered for a game: the standard game and its two-player examples.
function variantsOf(name) {
  const g = catalog.find((x) => x.name === name);
  const examples = (g && g.examples) || [];
  return [name, ...examples.filter((s) => !/players=(3|4)/.test(s))];
}

function fillVariants() {
  const sel = $("seek-variant");
  sel.innerHTML = variantsOf($("seek-game").value)
    .map((s, i) => `<option value="${escapeHtml(s)}">${escapeHtml(i === 0 ? t("seeks:standard") : specWords(s) || s)}</option>`)
    .join("");
}

function panelHtml() {
  const games = catalog.map((g) => `<option value="${escapeHtml(g.name)}">${escapeHtml(g.title)}</option>`).join("");
  const clocks = CLOCKS.map((c) => `<option value="${c}">${escapeHtml(clockLabel(c))}</option>`).join("");
  return `
    <h2>${escapeHtml(t("seeks:title"))}</h2>
    <p class="hint">${escapeHtml(t("seeks:about"))}</p>
    <form id="seek-form">
      <label>${escapeHtml(t("seeks:game"))} <select id="seek-game">${games}</select></label>
      <label>${escapeHtml(t("seeks:variant"))} <select id="seek-variant"></select></label>
      <label>${escapeHtml(t("seeks:time_control"))} <select id="seek-clock">${clocks}</select></label>
      <label><input type="checkbox" id="seek-rated"${me ? "" : " disabled"}> ${escapeHtml(t("seeks:rated"))}</label>
      ${me ? "" : `<small class="hint">${escapeHtml(t("seeks:rated_needs_account"))}</small>`}
      <button type="submit" class="primary" id="seek-go">${escapeHtml(t("seeks:play_now"))}</button>
      <div id="seek-error" class="error" role="alert" hidden></div>
    </form>
    <div id="my-seeks" aria-live="polite"></div>
    <h3>${escapeHtml(t("seeks:standing"))}</h3>
    <ul id="seek-list" class="game-list"></ul>`;
}

function showError(err) {
  const box = $("seek-error");
  box.textContent = err ? refusalText(err) : "";
  box.hidden = !err;
}

function renderMine() {
  const box = $("my-seeks");
  box.textContent = "";
  for (const s of mine.values()) {
    const r = s.last;
    const div = document.createElement("div");
    div.className = "my-seek";
    div.dataset.seek = s.id;
    const what = r ? `${gameTitle(r.game)} · ${clockSettingsText(r.clock)} · ${t(r.rated ? "seeks:rated" : "seeks:casual")}` : "";
    const p = document.createElement("p");
    p.className = "seeking";
    p.textContent = r ? t("seeks:looking", { what, rating: fmtRating(r.rating) }) : t("seeks:looking_short");
    div.appendChild(p);
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "seek-cancel";
    cancel.textContent = t("seeks:cancel");
    cancel.addEventListener("click", () => cancelSeek(s.id));
    div.appendChild(cancel);
    if (r && r.ai_offer) {
      const ai = document.createElement("button");
      ai.type = "button";
      ai.className = "seek-ai primary";
      ai.textContent = t("seeks:play_ai", { level: r.ai_offer.level, rating: fmtRating(r.ai_offer.rating) });
      ai.addEventListener("click", () => playAi(s));
      const hint = document.createElement("p");
      hint.className = "hint";
      hint.textContent = t("seeks:no_opponent_yet");
      div.append(hint, ai);
    }
    box.appendChild(div);
  }
}

function toGame(r) {
  saveSeats(r.game_id, { tokens: { [r.seat]: r.token } });
  location.href = r.link;
}

// An account's live stream (challenges.js) names its seeks paired: this page's own go to the game
// at once (the seat's token from the account), whichever of the stream and the wait tells first.
async function pairedLive(e) {
  for (const p of (e.detail && e.detail.seeks) || []) {
    if (!mine.has(p.id) || (p.status !== "paired" && p.status !== "ai")) continue;
    forget(p.id);
    try {
      const seat = await api("GET", `/api/account/games/${encodeURIComponent(p.game_id)}/seat`);
      toGame({ game_id: p.game_id, seat: seat.seat, token: seat.token, link: `/g/${p.game_id}#seat=${seat.seat}&t=${seat.token}` });
    } catch (err) {
      showError(err);
    }
    return;
  }
}

function forget(id) {
  mine.delete(id);
  keepMine();
  renderMine();
}

async function follow(s) {
  for (;;) {
    if (!mine.has(s.id)) return;
    let r;
    try {
      r = await seekApi("POST", `/api/seeks/${encodeURIComponent(s.id)}/wait`, s.secret, { timeout: 25 });
    } catch (err) {
      if (err.status >= 400 && err.status < 500 && err.status !== 429) {
        forget(s.id);
        return;
      }
      await new Promise((ok) => setTimeout(ok, 2000));
      continue;
    }
    if (!mine.has(s.id)) return; // cancelled meanwhile
    s.last = r;
    if (r.status === "paired" || r.status === "ai") {
      forget(s.id);
      toGame(r);
      return;
    }
    if (r.status !== "open" && r.status !== "pairing") {
      forget(s.id);
      showError({ detail: t("seeks:lapsed") });
      return;
    }
    renderMine();
  }
}

async function submit(e) {
  e.preventDefault();
  showError(null);
  const body = { game: $("seek-variant").value || $("seek-game").value, rated: $("seek-rated").checked, clock: clockOf($("seek-clock").value) };
  try {
    const r = await api("POST", "/api/seeks", body);
    const s = { id: r.id, secret: r.secret, last: r };
    mine.set(s.id, s);
    keepMine();
    renderMine();
    refreshList();
    follow(s);
  } catch (err) {
    showError(err);
  }
}

async function cancelSeek(id) {
  const s = mine.get(id);
  try {
    if (s) await seekApi("DELETE", `/api/seeks/${encodeURIComponent(id)}`, s.secret);
    else await api("DELETE", `/api/seeks/${encodeURIComponent(id)}`); // an account's seek from another tab
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 409) showError(err);
  }
  forget(id);
  refreshList();
}

async function playAi(s) {
  try {
    const r = await seekApi("POST", `/api/seeks/${encodeURIComponent(s.id)}/ai`, s.secret);
    forget(s.id);
    toGame(r);
  } catch (err) {
    showError(err);
  }
}

async function refreshList() {
  let data;
  try {
    data = await api("GET", "/api/seeks");
  } catch {
    return; // the next refresh tries again
  }
  const list = $("seek-list");
  list.textContent = "";
  if (!data.seeks.length) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = t("seeks:none_standing");
    list.appendChild(li);
  }
  for (const s of data.seeks) {
    const li = document.createElement("li");
    li.dataset.seek = s.id;
    const who = s.player ? `${s.player} (${fmtRating(s.rating)}${s.provisional ? "?" : ""})` : t("seeks:guest");
    const kind = t(s.rated ? "seeks:rated" : "seeks:casual");
    li.textContent = `${who} — ${gameTitle(s.game)} · ${clockSettingsText(s.clock)} · ${kind}`;
    if (s.mine) {
      // one's own seek: cancelled from its panel above (one Cancel button per seek), marked here
      li.classList.add("mine");
      const mark = document.createElement("span");
      mark.className = "seek-yours";
      mark.textContent = t("seeks:yours");
      li.append(" ", mark);
    }
    list.appendChild(li);
  }
}

export async function mountPlayNow(host) {
  await initI18n(["seeks"]); // the lobby's own call loads this namespace with its others
  me = await whoAmI(); // asked once per page (api.js): the lobby's "My games" shares the answer
  try {
    catalog = (await api("GET", "/api/catalog")).games.filter((g) => g.players === 2 || (g.seats_by_players || {})[2]);
  } catch {
    catalog = [];
  }
  host.innerHTML = panelHtml();
  host.hidden = false;
  fillVariants();
  $("seek-game").addEventListener("change", fillVariants);
  $("seek-form").addEventListener("submit", submit);
  window.addEventListener("tessera:account-live", pairedLive);
  loadMine();
  renderMine();
  for (const s of mine.values()) follow(s);
  refreshList();
  setInterval(refreshList, LIST_EVERY);
  host.dataset.ready = "1";
}

const host = $("play-now");
if (host) mountPlayNow(host);
