// The players of a game between accounts, during play (game page): each seat's account with its
// rating in the game's pool ("1500?" while provisional), an AI level or a bot marked as such, and
// whether the game is rated — GET /api/games/{id}/accounts. A game without accounts shows nothing.

import { api, escapeHtml } from "./api.js";
import { fmtRating, i18nReady, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

function seatText(a) {
  const name = a.username || t("game:accounts.deleted");
  const parts = [];
  if (a.current) parts.push(`${fmtRating(a.current.rating)}${a.current.provisional ? "?" : ""}`);
  if (a.ai) parts.push(t("game:accounts.ai", { level: a.ai }));
  else if (a.bot) parts.push(t("game:accounts.bot"));
  return { name, extra: parts.join(", ") };
}

export function accountsHtml(acc) {
  const seats = Object.entries((acc && acc.seats) || {}).sort(([a], [b]) => Number(a) - Number(b));
  if (!seats.length) return "";
  const who = seats
    .map(([, a]) => {
      const { name, extra } = seatText(a);
      const link = a.username ? `<a href="/u/${encodeURIComponent(a.username)}">${escapeHtml(name)}</a>` : escapeHtml(name);
      const mark = a.bot || a.ai ? ` <span class="bot-mark">${escapeHtml(a.ai ? t("game:accounts.ai_short") : t("game:accounts.bot"))}</span>` : "";
      return `<span class="account-seat" data-bot="${a.bot || a.ai ? 1 : 0}">${link}${mark}${extra ? ` (${escapeHtml(extra)})` : ""}</span>`;
    })
    .join(` <span class="vs">${escapeHtml(t("game:accounts.vs"))}</span> `);
  const kind = acc.rated ? t("game:accounts.rated") : t("game:accounts.casual");
  return `${who} · <span class="rated-mark" data-rated="${acc.rated ? 1 : 0}">${escapeHtml(kind)}</span>`;
}

async function show() {
  const m = /^\/g\/([^/]+)/.exec(location.pathname);
  const host = $("game-accounts");
  if (!m || !host) return;
  await i18nReady();
  let acc;
  try {
    acc = await api("GET", `/api/games/${encodeURIComponent(decodeURIComponent(m[1]))}/accounts`);
  } catch {
    return; // an older server, or the game is gone: the page says so itself
  }
  const html = accountsHtml(acc);
  host.innerHTML = html;
  host.hidden = !html;
  host.dataset.ready = "1";
}

show();
