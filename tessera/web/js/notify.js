// Notifications in the page (docs/notifications.md), on every page that loads this module:
//
// - "games waiting for you": POST /api/notify/waiting with the seat tokens this browser holds (a
//   guest's games; an account's are found by its session on every device), shown as a list in the
//   lobby (#waiting-card) and on your own profile, and in the header's bell;
// - the tab's title counts them ("(2) tessera"), a badge on the bell, a sound when a new one comes
//   (the game page plays its own: your turn, the end) — each with a switch, kept in prefs.js;
// - live: the game page's WebSocket (game-live.js dispatches "tessera:view"), the account's server-sent
//   events (GET /api/account/events, woken when one of its games changes), and for guests a light
//   poll (every 60 s while the page is visible: their other games);
// - Web Push: the service worker /sw.js, the subscription sent with this browser's seat tokens (or
//   for the account), switched on and off here; the e-mail digest's settings on the account page.

import { api, ApiError, escapeHtml, loadSeats } from "./api.js";
import { refusalText } from "./decorate.js";
import { currentLanguage, i18nReady, t } from "./i18n.js";
import { getPref, playSound, setPref, soundOn } from "./prefs.js";

const POLL = 60000;
const PREFIX = /^\(\d+\) /;
const $ = (id) => document.getElementById(id);

const state = { me: undefined, games: [], keys: null, loaded: false };

// -- the switches (prefs.js keeps them in this browser) ---------------------------------------------
// Each notification is opt-in: the bell opens the list of games waiting for you and the switches;
// the count in the tab title and on the bell appear once the player turns them on there.
export const titleOn = () => getPref("notifyTitle", false);
export const badgeOn = () => getPref("notifyBadge", false);
export const pushWanted = () => getPref("notifyPush", false);

// The seat tokens this browser holds (the lobby's "My games").
export function guestTokens() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const m = /^tessera:game:(.+)$/.exec(localStorage.key(i) || "");
      if (!m) continue;
      for (const tok of Object.values(loadSeats(m[1]).tokens || {})) if (typeof tok === "string") out.push(tok);
    }
  } catch {
    /* no storage */
  }
  return out.slice(-500);
}

// The game whose page this is (its own sounds are game-live.js's).
function pageGame() {
  const m = /^\/g\/([^/]+)/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : null;
}

// -- the catalogue: the "notify" namespace beside the page's own ---------------------------------
// The page starts i18next with its own namespaces (initI18n); this module waits for that and adds
// its own catalogue, then translates the elements marked data-notify-i18n.
async function loadCatalogue() {
  const i18n = await i18nReady();
  if (!i18n) return;
  if (!i18n.hasResourceBundle(currentLanguage(), "notify")) await addCatalogue(i18n);
  for (const el of document.querySelectorAll("[data-notify-i18n]")) el.textContent = t(el.dataset.notifyI18n);
}

async function addCatalogue(i18n) {
  await Promise.all(
    [...new Set([currentLanguage(), "en"])].map(async (lng) => {
      try {
        const res = await fetch(`/static/locales/${lng}/notify.json`);
        if (res.ok) i18n.addResourceBundle(lng, "notify", await res.json(), true, true);
      } catch {
        /* the English text in the code's defaults */
      }
    }),
  );
}

// -- who: an account, or a guest ------------------------------------------------------------------
async function whoAmI() {
  // GET /api/session: the account, or null for a guest (answered 200: no 401 in a guest's console)
  return (await api("GET", "/api/session")).account;
}

// -- the list of games waiting ----------------------------------------------------------------------
let ticket = 0;
export async function refresh() {
  const mine = ++ticket;
  let answer;
  try {
    answer = await api("POST", "/api/notify/waiting", { tokens: guestTokens() });
  } catch {
    return; // offline for a moment: the next wake-up reads it again
  }
  if (mine !== ticket) return;
  const keys = new Set(answer.games.map((g) => `${g.id}:${g.move_number}`));
  const here = pageGame();
  const fresh = state.keys && answer.games.some((g) => g.id !== here && !state.keys.has(`${g.id}:${g.move_number}`));
  state.keys = keys;
  state.games = answer.games;
  state.loaded = true;
  if (fresh && soundOn()) playSound("turn");
  render();
}

let pending = null;
function soon(ms = 200) {
  clearTimeout(pending);
  pending = setTimeout(refresh, ms);
}

function render() {
  const n = state.games.length;
  document.documentElement.dataset.waiting = String(n);
  applyTitle();
  renderBell();
  for (const list of document.querySelectorAll("[data-waiting-list]")) renderList(list);
  const card = $("waiting-card");
  if (card) card.hidden = !(n > 0 && ownPage());
}

function ownPage() {
  const m = /^\/u\/([^/]+)/.exec(location.pathname);
  if (!m) return true; // the lobby
  return !!state.me && decodeURIComponent(m[1]).toLowerCase() === state.me.username.toLowerCase();
}

function gameLink(g) {
  const tokens = loadSeats(g.id).tokens || {};
  const held = g.seats.filter((s) => tokens[s] !== undefined);
  const hash = held.map((s) => `t${s}=${encodeURIComponent(tokens[s])}`).join("&");
  return hash ? `${g.url}#${hash}` : g.url;
}

// An account's game without a token in this browser: its seat is asked of the account first.
async function openGame(g, ev) {
  if (gameLink(g) !== g.url || !state.me) return;
  ev.preventDefault();
  try {
    const s = await api("GET", `/api/account/games/${encodeURIComponent(g.id)}/seat`);
    location.href = `${g.url}#seat=${s.seat}&t=${encodeURIComponent(s.token)}`;
  } catch {
    location.href = g.url;
  }
}

function renderList(list) {
  list.textContent = "";
  if (!state.games.length) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = t("notify:waiting.empty");
    list.appendChild(li);
    return;
  }
  for (const g of state.games) {
    const li = document.createElement("li");
    li.className = "my-game yours";
    li.dataset.game = g.id;
    const players = g.players.filter((p) => !g.seats.includes(p.seat)).map((p) => p.name).join(", ") || "—";
    const a = document.createElement("a");
    a.href = gameLink(g);
    a.textContent = t("notify:waiting.line", { game: g.title, players });
    a.addEventListener("click", (ev) => openGame(g, ev));
    const since = document.createElement("small");
    since.className = "hint";
    since.textContent = ` · ${t("notify:waiting.since", { time: new Date(g.since * 1000).toLocaleString(currentLanguage()) })}`;
    li.append(a, since);
    list.appendChild(li);
  }
}

// -- the tab's title ------------------------------------------------------------------------------------
let titling = false;
function applyTitle() {
  const base = document.title.replace(PREFIX, "");
  const n = titleOn() ? state.games.length : 0;
  const wanted = n > 0 ? `(${n}) ${base}` : base;
  if (document.title !== wanted) {
    titling = true;
    document.title = wanted;
    titling = false;
  }
}

function watchTitle() {
  let el = document.querySelector("head > title");
  if (!el) {
    el = document.createElement("title");
    document.head.appendChild(el);
  }
  // the page sets its own title (the game page after every view): the count goes back in front
  new MutationObserver(() => {
    if (!titling) applyTitle();
  }).observe(el, { childList: true, characterData: true, subtree: true });
}

// -- the bell in the header: badge, the list, the switches -----------------------------------------------
const BELL =
  '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9"/><path d="M10.3 21a1.94 1.94 0 0 0 3.4 0"/></svg>';

function renderBell() {
  const host = document.querySelector("header.top");
  if (!host) return;
  let bell = $("notify-bell");
  if (!bell) {
    bell = document.createElement("button");
    bell.type = "button";
    bell.id = "notify-bell";
    bell.className = "notify-bell";
    bell.innerHTML = `${BELL}<span class="notify-count" id="notify-count" hidden></span>`;
    bell.addEventListener("click", togglePanel);
    const before = host.querySelector(".prefs") || host.querySelector(".lang-switch");
    if (before) host.insertBefore(bell, before);
    else host.appendChild(bell);
  }
  const n = state.games.length;
  const count = $("notify-count");
  count.textContent = String(n);
  count.hidden = !(badgeOn() && n > 0);
  bell.classList.toggle("has-waiting", badgeOn() && n > 0);
  bell.title = n > 0 ? t("notify:waiting.badge_link", { count: n }) : t("notify:settings.open");
  bell.setAttribute("aria-label", `${t("notify:waiting.badge", { count: n })} — ${t("notify:settings.open")}`);
  bell.setAttribute("aria-expanded", String(!!$("notify-panel") && !$("notify-panel").hidden));
}

function togglePanel() {
  let panel = $("notify-panel");
  if (panel) {
    panel.hidden = !panel.hidden;
    if (!panel.hidden) fillPanel(panel);
    renderBell();
    return;
  }
  panel = document.createElement("div");
  panel.id = "notify-panel";
  panel.className = "notify-panel card";
  panel.setAttribute("role", "dialog");
  document.body.appendChild(panel);
  fillPanel(panel);
  renderBell();
}

function fillPanel(panel) {
  panel.textContent = "";
  const h = document.createElement("h2");
  h.textContent = t("notify:waiting.title");
  const list = document.createElement("ul");
  list.className = "game-list";
  list.dataset.waitingList = "";
  renderList(list);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "notify-close";
  close.textContent = t("notify:settings.close");
  close.addEventListener("click", () => {
    panel.hidden = true;
    renderBell();
  });
  panel.append(h, list, settingsBox({ email: false }), close);
}

// -- the switches -----------------------------------------------------------------------------------------
function checkbox(id, label, checked, onChange) {
  const row = document.createElement("label");
  row.className = "notify-switch";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = id;
  box.checked = checked;
  box.addEventListener("change", () => onChange(box.checked, box));
  row.append(box, " ", label);
  return row;
}

// The notification settings: the in-page switches, push, and (on the account page) the e-mail digest.
export function settingsBox({ email = false, heading = "h3" } = {}) {
  const box = document.createElement("div");
  box.className = "notify-settings";
  const h = document.createElement(heading);
  h.textContent = t("notify:settings.title");
  const intro = document.createElement("p");
  intro.className = "hint";
  intro.textContent = t("notify:settings.intro");
  box.append(
    h,
    intro,
    checkbox("notify-title", t("notify:settings.title_count"), titleOn(), (on) => {
      setPref("notifyTitle", on);
      render();
    }),
    checkbox("notify-badge", t("notify:settings.badge"), badgeOn(), (on) => {
      setPref("notifyBadge", on);
      render();
    }),
    checkbox("notify-sound", t("notify:settings.sound"), soundOn(), (on) => setPref("mute", !on)),
  );
  const status = document.createElement("p");
  status.className = "hint notify-push-status";
  const push = checkbox("notify-push", t("notify:settings.push"), pushWanted(), async (on, input) => {
    input.disabled = true;
    try {
      status.textContent = on ? await enablePush() : await disablePush();
    } catch (err) {
      status.textContent = refusalText(err);
    }
    input.checked = pushWanted();
    input.disabled = false;
  });
  box.append(push, status);
  status.textContent = pushWanted() ? t("notify:settings.push_on") : t("notify:settings.push_off");
  if (!pushSupported()) {
    push.querySelector("input").disabled = true;
    status.textContent = t("notify:settings.push_unsupported");
  }
  if (state.me === null) {
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = t("notify:settings.guest_hint");
    box.appendChild(hint);
  }
  if (email && state.me) box.appendChild(emailBox());
  return box;
}

// -- Web Push -----------------------------------------------------------------------------------------------
function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

function keyBytes(b64) {
  const raw = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

export async function registerWorker() {
  await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  return navigator.serviceWorker.ready;
}

async function sendSubscription(sub) {
  await api("POST", "/api/notify/push/subscribe", { subscription: sub.toJSON(), tokens: guestTokens(), lang: currentLanguage() });
}

async function enablePush() {
  if (!pushSupported()) return t("notify:settings.push_unsupported");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    setPref("notifyPush", false);
    return t("notify:settings.push_denied");
  }
  let key;
  try {
    key = (await api("GET", "/api/notify/push/key")).key;
  } catch (err) {
    if (err instanceof ApiError && err.status === 503) return t("notify:settings.push_unavailable");
    throw err;
  }
  const reg = await registerWorker();
  const sub = (await reg.pushManager.getSubscription()) || (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }));
  await sendSubscription(sub);
  setPref("notifyPush", true);
  return t("notify:settings.push_on");
}

async function disablePush() {
  setPref("notifyPush", false);
  if (pushSupported()) {
    const reg = await navigator.serviceWorker.getRegistration("/");
    const sub = reg && (await reg.pushManager.getSubscription());
    if (sub) {
      await api("POST", "/api/notify/push/unsubscribe", { endpoint: sub.endpoint }).catch(() => {});
      await sub.unsubscribe();
    }
  }
  return t("notify:settings.push_off");
}

// Push on: the subscription is sent again with this browser's seat tokens now (a new game's seat joins it).
async function renewPush() {
  if (!pushWanted() || !pushSupported() || Notification.permission !== "granted") return;
  try {
    const reg = await navigator.serviceWorker.getRegistration("/");
    const sub = reg && (await reg.pushManager.getSubscription());
    if (sub) await sendSubscription(sub);
  } catch {
    /* tried again on the next page */
  }
}

// -- e-mail (the account page) -------------------------------------------------------------------------------
function emailBox() {
  const box = document.createElement("div");
  box.className = "notify-email";
  box.id = "notify-email";
  const h = document.createElement("h3");
  h.textContent = t("notify:settings.email_title");
  const status = document.createElement("p");
  status.className = "hint";
  status.id = "notify-email-status";
  const form = document.createElement("form");
  form.id = "notify-email-form";
  const label = document.createElement("label");
  const input = document.createElement("input");
  input.type = "email";
  input.name = "email";
  input.required = true;
  input.maxLength = 254;
  input.autocomplete = "email";
  label.append(t("notify:settings.email_label"), " ", input);
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = t("notify:settings.email_save");
  const error = document.createElement("div");
  error.className = "error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  form.append(label, save, error);
  const digestRow = document.createElement("label");
  const digest = document.createElement("select");
  digest.id = "notify-digest";
  for (const h of [0, 12, 24]) {
    const o = document.createElement("option");
    o.value = String(h);
    o.textContent = t(`notify:settings.digest_${h}`);
    digest.appendChild(o);
  }
  digestRow.append(t("notify:settings.digest_label"), " ", digest);
  const remove = document.createElement("button");
  remove.type = "button";
  remove.textContent = t("notify:settings.email_remove");
  box.append(h, status, form, digestRow, remove);

  const show = (s) => {
    const e = s.email;
    input.value = e ? e.email : "";
    digest.value = String(e ? e.digest_hours : 0);
    digestRow.hidden = !(e && e.verified);
    remove.hidden = !e;
    form.hidden = !s.available;
    status.textContent = !s.available
      ? t("notify:settings.email_unavailable")
      : !e
        ? ""
        : e.verified
          ? t("notify:settings.email_verified", { email: e.email })
          : t("notify:settings.email_unverified", { email: e.email });
  };
  const load = () => api("GET", "/api/notify/email").then(show).catch(() => {});
  const fail = (err) => {
    error.textContent = refusalText(err);
    error.hidden = false;
  };
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    try {
      const r = await api("POST", "/api/notify/email", { email: input.value.trim(), lang: currentLanguage() });
      await load();
      status.textContent = t("notify:settings.email_sent", { email: r.email });
    } catch (err) {
      fail(err);
    }
  });
  digest.addEventListener("change", () => api("POST", "/api/notify/email/digest", { hours: Number(digest.value) }).catch(fail));
  remove.addEventListener("click", () => api("DELETE", "/api/notify/email").then(load).catch(fail));
  load();
  return box;
}

function mountSettings() {
  const host = $("notify-settings");
  if (!host || host.dataset.ready) return;
  host.dataset.ready = "1";
  host.hidden = false;
  host.appendChild(settingsBox({ email: host.dataset.email !== undefined && !!state.me, heading: "h2" }));
  const verified = new URLSearchParams(location.search).get("email");
  if (verified) {
    const note = document.createElement("p");
    note.className = verified === "verified" ? "ok" : "error";
    note.textContent = t(verified === "verified" ? "notify:settings.email_just_verified" : "notify:settings.email_link_invalid");
    host.prepend(note);
  }
}

// -- live ---------------------------------------------------------------------------------------------------------
function goLive() {
  window.addEventListener("tessera:view", () => soon());
  window.addEventListener("tessera:pref", (e) => {
    if (e.detail && String(e.detail.name).startsWith("notify")) render();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") soon(0);
  });
  if (state.me) {
    const stream = new EventSource("/api/account/events");
    stream.addEventListener("challenges", () => soon());
  } else {
    setInterval(() => {
      if (document.visibilityState === "visible") refresh();
    }, POLL);
  }
}

function addStyles() {
  if (document.querySelector('link[href="/static/css/notify.css"]')) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/static/css/notify.css";
  document.head.appendChild(link);
}

async function start() {
  addStyles();
  await loadCatalogue();
  state.me = await whoAmI().catch(() => null);
  watchTitle();
  renderBell();
  mountSettings();
  await refresh();
  goLive();
  renewPush();
}

start();
