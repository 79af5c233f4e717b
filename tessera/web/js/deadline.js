// Correspondence clocks on the page: the deadline of the player to move, in the player's own time
// zone and language ("Move by Fri 28 Nov, 18:04"), and the days per move of the others.
// The server sends the deadline as an absolute time (epoch seconds, UTC): the browser's Intl
// formats it in its own time zone.

import { escapeHtml } from "./api.js";
import { currentLanguage, fmtNumber, t } from "./i18n.js";

// The browser's own regional form of the page's language (en-GB: 18:04, en-US: 06:04 PM), else the language.
function regional(lang) {
  const own = (navigator.languages || [navigator.language]).find((l) => l && l.toLowerCase().split(/[-_]/)[0] === lang);
  return own || lang;
}

// "Fri 28 Nov, 18:04" (in the page's language, the browser's regional form and time zone).
export function formatDeadline(epochSeconds, lang = currentLanguage()) {
  const fmt = new Intl.DateTimeFormat(regional(lang), { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  return fmt.format(new Date(epochSeconds * 1000));
}

export function isCorrespondence(clock) {
  return !!clock && clock.kind === "correspondence";
}

// What a seat's clock shows in a correspondence game: its deadline when it is to move, else the days per move.
export function correspondenceHtml(v, p) {
  const c = v.clock;
  const when = c.deadline ? c.deadline[p] : null;
  const days = t("seeks:days_per_move", { count: c.days });
  if (v.status === "active" && when !== null && when !== undefined) {
    const text = t("seeks:move_by", { when: formatDeadline(when) });
    const iso = new Date(when * 1000).toISOString();
    return `<span class="deadline" data-seat="${p}" data-deadline="${iso}" title="${escapeHtml(days)}">${escapeHtml(text)}</span>`;
  }
  return `<span class="days-per-move" data-seat="${p}">${escapeHtml(days)}</span>`;
}

// A clock's settings in a line of a list: "10+5" or "3 days per move".
export function clockSettingsText(clock) {
  if (!clock) return "";
  if (isCorrespondence(clock)) return t("seeks:days_per_move", { count: clock.days });
  return `${fmtNumber(Math.round((clock.initial / 60) * 10) / 10)}+${fmtNumber(clock.increment)}`; // "2,5+3" in German
}
