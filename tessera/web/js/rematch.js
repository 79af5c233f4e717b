// Rematch with the friend taken along (game page, at a game's end). One seat asks
// (POST /api/games/{id}/rematch with its seat token); the other players see the offer at once — it
// comes through the game's WebSocket ({"type": "rematch"}) — with Accept and Decline; when every
// player has accepted, each page is pushed its own new seat token and goes to the new game (seats
// rotated: two players swap). Between two accounts the server makes it a challenge instead (the
// answer has no "rematch"): the account's live challenges take both pages there.

import { api, ApiError, saveSeats } from "./api.js";
import { refusalText } from "./decorate.js";
import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

let ctx = null; // {gameId, token, seats: () => the view's seats, showError}
let asked = false; // GET /api/games/{id}/rematch done once the game ended
let moving = false;

export function initRematch(c) {
  ctx = c;
}

function nameOf(seat) {
  const s = (ctx.seats() || []).find((x) => x.seat === seat);
  return s ? s.name : String(seat + 1);
}

function box() {
  let node = $("rematch-offer");
  if (!node) {
    node = document.createElement("section");
    node.id = "rematch-offer";
    node.className = "card live-challenges";
    node.style.margin = "0.6em";
    node.setAttribute("role", "status");
    document.querySelector("header.top").after(node); // above the board: the banner is drawn again on every view
  }
  return node;
}

function button(text, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  if (cls) b.className = cls;
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      show((await onClick()).rematch);
    } catch (e) {
      ctx.showError(refusalText(e));
      b.disabled = false;
    }
  });
  return b;
}

const post = (path, method = "POST") => api(method, `/api/games/${ctx.gameId}/rematch${path}`, ctx.token ? { token: ctx.token } : {});

// Show an offer as this seat sees it (null: none); an accepted one takes this page to the new game.
export function show(r) {
  if (!ctx || !r) return;
  if (r.status === "accepted" && r.game_id && r.token !== undefined && r.seat !== undefined) {
    if (moving) return;
    moving = true;
    saveSeats(r.game_id, { tokens: { [r.seat]: r.token } });
    location.href = `/g/${r.game_id}#t${r.seat}=${encodeURIComponent(r.token)}`;
    return;
  }
  const node = box();
  node.textContent = "";
  node.dataset.status = r.status;
  const text = document.createElement("span");
  text.id = "rematch-text";
  node.appendChild(text);
  const mine = r.you;
  if (r.status === "pending" && mine !== null && r.waiting.includes(mine)) {
    text.textContent = `${t("account:rematch_offered_by", { name: r.from_name })} `;
    node.appendChild(button(t("account:accept"), "primary", () => post("/accept")));
    node.appendChild(button(t("account:decline"), "", () => post("/decline")));
  } else if (r.status === "pending") {
    const names = r.waiting.map(nameOf).join(", ");
    text.textContent = `${t("account:rematch_waiting", { names })} `;
    if (mine === r.from) node.appendChild(button(t("account:rematch_withdraw"), "", () => post("", "DELETE")));
  } else if (r.status === "declined") {
    text.textContent = t("account:rematch_declined", { name: r.declined_name });
  } else if (r.status === "cancelled") {
    text.textContent = t("account:rematch_withdrawn", { name: r.from_name });
  } else if (r.status === "accepted") {
    text.textContent = t("account:rematch_made"); // a spectator: the players went to the new game
  }
  const again = $("rematch");
  if (again) again.disabled = r.status === "pending";
}

// At a game's end: the offer this seat may have missed (the page opened or reconnected later).
export async function loadRematch() {
  if (!ctx || asked) return;
  asked = true;
  try {
    show((await api("GET", `/api/games/${ctx.gameId}/rematch`, undefined, ctx.token)).rematch);
  } catch {
    /* nothing to show: the button still asks */
  }
}

// Ask for a rematch; true if the server took it (an offer, or a challenge between two accounts),
// false if this game's rematch is a new game of one's own (the computer, hot-seat).
export async function askRematch() {
  try {
    const r = await post("");
    ctx.showError("");
    if (r.rematch) {
      show(r.rematch);
      return true;
    }
    if (r.status === "accepted" && r.game_id) {
      show(r); // the opponent had asked too: two crossing asks are one agreement, to the new game
      return true;
    }
    const again = $("rematch"); // a challenge to the opponent's account
    if (again) {
      again.disabled = true;
      again.textContent = t("account:rematch_challenge_sent", { name: r.to });
    }
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.status === 422) return false;
    ctx.showError(refusalText(e));
    return true;
  }
}
