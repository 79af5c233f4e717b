// Bots of the bot API in the web client (docs/bot-api.md): the lobby's "Online bots" card, the
// mark a bot carries on its profile and in the leaderboards, and decline reasons in the player's
// language.  The "bot" catalogue is loaded here on demand, so a page needs no change to its
// initI18n() call: a text asked for before it arrives is the English one.

import { api, escapeHtml } from "./api.js";
import { currentLanguage, hasKey, i18nReady, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// The AI levels' accounts are bots of the server, not of the bot API.
const AI_NAME = /^ai-level\d+$/;

const DECLINE_EN = {
  generic: "I'm not accepting challenges at the moment.",
  later: "This is not the right time for me, please ask again later.",
  tooFast: "This time control is too fast for me, please challenge again with a slower game.",
  tooSlow: "This time control is too slow for me, please challenge again with a faster game.",
  timeControl: "I'm not accepting challenges with this time control.",
  rated: "Please send me a rated challenge instead.",
  casual: "Please send me a casual challenge instead.",
  variant: "I'm not willing to play this game or variant right now.",
  noBot: "I'm not accepting challenges from bots.",
  onlyBot: "I'm only accepting challenges from bots.",
};

const catalogues = new Map(); // language -> the load of its "bot" namespace

// Load the "bot" namespace (the player's language and English) into i18next, once a language.
export function loadBotCatalogue() {
  const i = globalThis.i18next;
  if (!i || !i.isInitialized) return Promise.resolve(); // not cached: asked again once i18next is up
  const lng = currentLanguage();
  if (!catalogues.has(lng)) {
    catalogues.set(
      lng,
      (async () => {
        for (const l of new Set([lng, "en"])) {
          try {
            const res = await fetch(`/static/locales/${l}/bot.json`);
            if (res.ok) i.addResourceBundle(l, "bot", await res.json(), true, true);
          } catch {
            /* offline: English texts */
          }
        }
      })(),
    );
  }
  return catalogues.get(lng);
}

function text(key, fallback, options = {}) {
  return hasKey(`bot:${key}`) ? t(`bot:${key}`, options) : fallback;
}

// Whether an account (a profile or a leaderboard row) is a bot of the bot API.
export function isApiBot(p) {
  return !!(p && p.is_bot && !AI_NAME.test(p.username));
}

// What follows a player's name: " (bot)" for a bot of the bot API, " (AI)" for an AI level, "".
export function botMark(p) {
  if (!p || !p.is_bot) return "";
  return isApiBot(p) ? ` (${text("bot", "bot")})` : ` (${text("ai", "AI")})`;
}

// Whether a profile may be challenged from its page (people and bots; the AI levels are played from the lobby).
export function challengeable(p) {
  return !p.is_bot || isApiBot(p);
}

// A decline reason as the challenger reads it: a reason key in his language, other words as they are.
export function declineText(reason) {
  if (!reason) return "";
  if (!(reason in DECLINE_EN)) return reason;
  return text(`decline.${reason}`, DECLINE_EN[reason]);
}

// The lobby's card: bots whose event stream is open, with their ratings and a link to each profile.
async function showOnlineBots(card) {
  let bots;
  try {
    bots = (await api("GET", "/api/bots/online")).bots;
  } catch {
    return;
  }
  const list = card.querySelector("ul");
  list.textContent = "";
  for (const b of bots) {
    const li = document.createElement("li");
    const ratings = Object.entries(b.ratings)
      .map(([game, r]) => `${escapeHtml(game)} ${r.rating}${r.provisional ? "?" : ""}`)
      .join(" · ");
    li.innerHTML =
      `<a href="/u/${encodeURIComponent(b.username)}">${escapeHtml(b.username)}</a>` +
      (ratings ? ` <small class="hint">${ratings}</small>` : "");
    list.appendChild(li);
  }
  if (!bots.length) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = text("none_online", "No bot is online now.");
    list.appendChild(li);
  }
  card.hidden = false;
}

const card = $("online-bots");
if (card) {
  const refresh = async () => {
    await loadBotCatalogue();
    const title = card.querySelector("h2");
    if (title) title.textContent = text("online_title", "Online bots");
    await showOnlineBots(card);
  };
  // after the page's own initI18n() (this module may run first, and a loaded machine may take
  // long): the card stays hidden until its title can be in the player's language
  const start = async () => {
    await i18nReady();
    await refresh();
    setInterval(refresh, 30_000);
  };
  start();
  window.addEventListener("tessera:language", () => refresh()); // the switcher: the card in the new language
}
