// The lobby's tournaments card: the running and upcoming tournaments (at most 6), each linked to its
// page, and a link to all of them (/tournaments).

import { api, escapeHtml } from "./api.js";
import { initI18n, t } from "./i18n.js";
import { tournamentLine } from "./tournament-line.js";

async function start() {
  const card = document.getElementById("tournaments-card");
  if (!card) return;
  await initI18n(["tournaments"]);
  try {
    const all = await api("GET", "/api/tournaments");
    const items = [...all.started, ...all.created].slice(0, 6);
    card.querySelector("ul").innerHTML = items.length
      ? items.map((x) => `<li>${tournamentLine(x)}</li>`).join("")
      : `<li class="meta">${escapeHtml(t("tournaments:none"))}</li>`;
  } catch {
    card.querySelector("ul").innerHTML = "";
  }
  card.hidden = false;
}
start();
