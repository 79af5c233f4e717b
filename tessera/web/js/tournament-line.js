// One tournament as a line of a list (the tournaments page, the lobby's card): its name linked to
// its page, then format, game, clock, players and when it starts or ends.

import { escapeHtml } from "./api.js";
import { t } from "./i18n.js";

// "2 min 05 s", "3 h 20 min", "4 d 2 h": a countdown's words
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${s} s`;
}

export function clockText(clock) {
  if (clock.days) return `${clock.days} d`;
  return `${clock.initial / 60}+${clock.increment}`;
}

export function tournamentLine(x) {
  const when =
    x.status === "created"
      ? t("tournaments:starts_in_text", { time: duration(x.starts_at - Date.now() / 1000) })
      : x.status === "started" && x.kind === "arena"
        ? t("tournaments:ends_in_text", { time: duration(x.ends_at - Date.now() / 1000) })
        : x.status === "started"
          ? t("tournaments:round_of", { round: x.round, rounds: x.rounds })
          : t("tournaments:status_finished");
  const meta = [
    t(`tournaments:${x.kind}`),
    x.game,
    clockText(x.clock),
    t("tournaments:players_count", { count: x.players || 0 }),
    when,
  ];
  return (
    `<a href="/tournament/${encodeURIComponent(x.id)}">${escapeHtml(x.name)}</a> ` +
    `<span class="meta">${escapeHtml(meta.join(" · "))}</span>`
  );
}
