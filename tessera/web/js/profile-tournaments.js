// A profile's tournaments (/u/<name>): the player's finished tournaments with his rank, a winner
// marked as such (GET /api/users/<name>/tournaments).

import { api, escapeHtml } from "./api.js";
import { initI18n, t } from "./i18n.js";

async function start() {
  const card = document.getElementById("tournaments-card");
  const name = decodeURIComponent(location.pathname.split("/")[2] || "");
  if (!card || !name) return;
  await initI18n(["tournaments"]);
  let rows;
  try {
    rows = (await api("GET", `/api/users/${encodeURIComponent(name)}/tournaments`)).tournaments;
  } catch {
    return;
  }
  if (!rows.length) return;
  card.querySelector("ul").innerHTML = rows
    .map((r) => {
      const place = t("tournaments:rank_of", { rank: r.rank, players: r.players });
      const trophy = r.rank === 1 ? ` <strong>🏆 ${escapeHtml(t("tournaments:trophy"))}</strong>` : "";
      return (
        `<li><a href="/tournament/${encodeURIComponent(r.id)}">${escapeHtml(r.name)}</a> ` +
        `<span class="meta">${escapeHtml(`${r.game} · ${place} · ${t("tournaments:points")} ${r.points}`)}</span>${trophy}</li>`
      );
    })
    .join("");
  card.hidden = false;
}
start();
