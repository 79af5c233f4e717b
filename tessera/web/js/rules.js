// The rules page: the game's rules in the reader's language, every diagram drawn by board.js from the
// engine's positions (steppable where it shows a sequence), and "Play" / "Learn" buttons.
import { api } from "./api.js";
import { markdown } from "./markdown.js";
import { DiagramView, currentLanguage, initLearnI18n, t } from "./learn.js";

export async function startRules() {
  const $ = (id) => document.getElementById(id);
  const name = decodeURIComponent(location.pathname.split("/")[2] || "");
  // the links first: a reader may click one before the translations and the rules have come
  $("play").href = `/?game=${name}`;
  $("learn").href = `/learn/${name}`;
  $("stats").href = `/stats/${name}`; // people's first-seat win rates beside the balance lab's
  await initLearnI18n();
  try {
    const [r, d] = await Promise.all([
      api("GET", `/api/learn/${encodeURIComponent(name)}/rules?lang=${currentLanguage()}`),
      api("GET", `/api/learn/${encodeURIComponent(name)}/diagrams`),
    ]);
    document.title = `${r.title} — ${t("ui.rules", "Rules")} — tessera`;
    $("game-title").textContent = r.title;
    $("page-kind").textContent = t("ui.rules", "Rules");
    $("play").textContent = t("ui.play", "Play");
    $("learn").textContent = t("ui.learn", "Learn");
    $("stats").textContent = t("ui.stats", "Statistics");
    const body = $("rules");
    body.innerHTML = markdown(r.markdown, { diagrams: true });
    body.lang = r.lang;
    const byId = new Map(d.diagrams.map((x) => [x.id, x]));
    for (const fig of body.querySelectorAll("figure[data-diagram]")) {
      const diagram = byId.get(fig.dataset.diagram);
      if (diagram) new DiagramView(fig, diagram);
      else fig.textContent = `(no diagram ${fig.dataset.diagram})`;
    }
  } catch (e) {
    $("rules").textContent = e.detail || String(e);
  }
}
