// The game page's end: the result banner, the accounts' rating changes and live challenges, and the
// rematch (asked of the other people at the table, or a new game with the seats swapped).
import { api, saveSeats } from "./api.js";
import { askRematch, loadRematch } from "./rematch.js";
import { refusalText, resultText } from "./decorate.js";
import { isCorrespondence } from "./deadline.js";
import { t } from "./i18n.js";
import { $, button, gameId, mySeats, showError, ui } from "./game-state.js";

export function renderBanner(v, desc) {
  const bn = $("banner");
  const result = v.result && ui.replay === null ? v.result : null;
  if (!result) {
    bn.hidden = true;
    return;
  }
  bn.hidden = false;
  bn.innerHTML = "";
  const w = result.winner;
  // the sentence names the deciding rule (and so the winner); a seated player also reads what it means for him
  const why = document.createElement("span");
  why.className = "result-head";
  why.id = "result-why";
  why.textContent = resultText(result);
  why.dataset.reason = result.reason || "";
  bn.appendChild(why);
  if (mySeats.length === 1 && w !== null && w !== undefined) {
    const mine = document.createElement("span");
    mine.className = "result-why";
    mine.textContent = `— ${w === mySeats[0] ? t("game:you_win") : t("game:you_lose")}`;
    bn.appendChild(mine);
  }
  showAccounts(v, bn);
  if (mySeats.length && v.mode !== "hotseat") loadRematch();
  if (mySeats.length) {
    const again = button(t("game:rematch"), () => rematch(v), "primary");
    again.id = "rematch";
    again.title = v.mode === "hotseat" ? t("game:rematch_title_hotseat") : t("game:rematch_title");
    bn.appendChild(again);
  }
  const fresh = document.createElement("a");
  fresh.href = `/?game=${encodeURIComponent(v.game)}`;
  fresh.id = "new-game";
  fresh.className = "button-link";
  fresh.textContent = t("game:new_game");
  bn.appendChild(fresh);
  bn.dataset.winner = w ?? "draw";
}

// Accounts at a game's end: each seat's account name and rating change (a rated game), and the
// live challenges of the logged-in player (a rematch offered by the opponent appears there, with
// Accept and Decline; a rematch I offered takes me to the new game once accepted).
let gameAccounts = null; // GET /api/games/{id}/accounts once the game is over (null: not asked yet)

export async function showAccounts(v, bn) {
  if (gameAccounts === null) {
    gameAccounts = api("GET", `/api/games/${gameId}/accounts`).catch(() => ({ seats: {} }));
  }
  const acc = await gameAccounts;
  const seats = Object.entries(acc.seats || {});
  if (seats.length && !bn.querySelector("#rating-change")) {
    const box = document.createElement("div");
    box.id = "rating-change";
    box.className = "result-why";
    box.textContent = seats
      .map(([s, a]) => {
        const name = a.username || "(deleted account)";
        if (!a.rating) return name;
        const sign = a.rating.change >= 0 ? "+" : "−";
        const prov = a.rating.provisional ? "?" : "";
        return `${name} ${a.rating.before} → ${a.rating.after}${prov} (${sign}${Math.abs(a.rating.change)})`;
      })
      .join(" · ");
    box.dataset.seats = seats.length;
    bn.appendChild(box);
  }
  if (seats.length && mySeats.length && !$("live-challenges")) {
    const live = document.createElement("section");
    live.id = "live-challenges";
    live.hidden = true;
    live.className = "card live-challenges";
    live.style.margin = "0.6em";
    live.innerHTML = '<ul id="live-challenges-list"></ul>';
    document.querySelector("header.top").after(live); // above the board: the banner is drawn again on every view
    const { liveChallenges } = await import("./challenges.js");
    liveChallenges();
  }
}

// The same game again with the seats swapped (against the AI: the human takes the other side).
// With other people at the table it is asked of them (rematch.js): they accept or decline live,
// and everyone is taken to the new game.
export async function rematch(v) {
  const others = v.seats.filter((s) => s.kind === "human" && !mySeats.includes(s.seat));
  if (v.mode !== "hotseat" && others.length && (await askRematch())) return;
  // never listed in the lobby: a stranger must not take the seat meant for the same opponent
  const body = { game: v.game, params: v.params, mode: v.mode, public: false };
  const ai = v.seats.find((s) => s.kind === "ai");
  if (ai) body.ai_level = ai.level;
  if (v.mode !== "hotseat" && mySeats.length === 1) body.seat = (mySeats[0] + 1) % v.seats.length;
  if (v.clock) body.clock = isCorrespondence(v.clock) ? { days: v.clock.days } : { initial: v.clock.initial, increment: v.clock.increment };
  try {
    const r = await api("POST", "/api/games", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (e) {
    showError(refusalText(e));
  }
}
