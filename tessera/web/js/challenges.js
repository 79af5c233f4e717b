// The lobby's account corner: who is logged in (or a link to log in), the leaderboards, and the
// challenges to me, live (server-sent events from /api/account/events), with Accept and Decline
// (a reason).  When a challenge of mine is accepted, this page takes me to the game.
// A guest sees only the links: nothing else changes for anonymous play.

import { api, escapeHtml } from "./api.js";
import { clockSettingsText } from "./deadline.js";
import { askDeclineReason } from "./decline.js";
import { refusalText, specText } from "./decorate.js";
import { hasKey, i18nReady, t } from "./i18n.js";
import { declineText, loadBotCatalogue } from "./bots.js";

const $ = (id) => document.getElementById(id);

async function whoAmI() {
  // GET /api/session: the account, or null for a guest (answered 200: no 401 in a guest's console)
  return (await api("GET", "/api/session")).account;
}

async function openMySeat(gameId) {
  const s = await api("GET", `/api/account/games/${encodeURIComponent(gameId)}/seat`);
  location.href = `/g/${gameId}#seat=${s.seat}&t=${s.token}`;
}

function line(me, c) {
  const li = document.createElement("li");
  const kind = c.rated ? t("account:rated", { defaultValue: "rated" }) : t("account:casual", { defaultValue: "casual" });
  const what = `${specText(c.game)} · ${kind}${c.clock ? ` · ${clockSettingsText(c.clock)}` : ""}`;
  // a rematch of a finished game between the two accounts says so (and links that game)
  const challenges = c.rematch_of ? t("account:rematch_offer") : t("account:challenges_you", { defaultValue: "challenges you" });
  li.innerHTML = `<a href="/u/${encodeURIComponent(c.from)}">${escapeHtml(c.from)}</a> ${escapeHtml(challenges)} — ${escapeHtml(what)} `;
  if (c.rematch_of) {
    li.classList.add("rematch-card");
    li.dataset.rematchOf = c.rematch_of;
    const prev = document.createElement("a");
    prev.href = `/g/${encodeURIComponent(c.rematch_of)}`;
    prev.className = "rematch-of";
    prev.textContent = t("account:rematch_card");
    li.append(prev, " ");
  }
  if (c.players) {
    // a four-player challenge: who else is asked, and who has accepted
    const names = c.players.map((p) => (p.username === null ? t("account:open_seat") : `${p.username}${p.status === "accepted" ? " ✓" : ""}`));
    li.appendChild(document.createTextNode(`(${t("account:with")} ${names.join(", ")}) `));
    const mine = c.players.find((p) => p.username === me.username);
    if (mine && mine.status === "accepted") {
      li.appendChild(document.createTextNode(t("account:accepted_waiting")));
      return li;
    }
  }
  const error = document.createElement("span");
  error.className = "error";
  error.hidden = true;
  const button = (text, cls, onClick) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (cls) b.className = cls;
    b.addEventListener("click", async () => {
      error.hidden = true;
      try {
        await onClick();
      } catch (err) {
        error.textContent = refusalText(err);
        error.hidden = false;
      }
    });
    li.appendChild(b);
  };
  button(t("account:accept", { defaultValue: "Accept" }), "primary", async () => {
    const r = await api("POST", `/api/challenges/${c.id}/accept`);
    if (!r.game_id) return; // the others have not all accepted: the live list shows it
    location.href = `/g/${r.game_id}#seat=${r.seat}&t=${r.token}`;
  });
  button(t("account:decline", { defaultValue: "Decline" }), "", async () => {
    const reason = await askDeclineReason(li); // in the page: a reason from the list, or none
    if (reason === null) return; // kept: nothing declined
    await api("POST", `/api/challenges/${c.id}/decline`, { reason: reason || undefined });
  });
  li.appendChild(error);
  return li;
}

function show(me, data, taken) {
  const box = $("live-challenges");
  const list = $("live-challenges-list");
  list.textContent = "";
  for (const c of data.incoming) list.appendChild(line(me, c));
  const answered = data.settled.filter((c) => (c.from === me.username || c.players) && c.status === "declined");
  for (const c of answered.slice(0, 3)) {
    const li = document.createElement("li");
    li.className = "hint";
    const declined = t("account:declined_yours", { to: c.to, game: specText(c.game), defaultValue: `${c.to} declined your challenge (${c.game})` });
    li.textContent = c.declined_by
      ? `${c.from} — ${specText(c.game)}: ${t("account:declined_by", { name: c.declined_by })}${c.reason ? `: ${declineText(c.reason)}` : ""}`
      : `${declined}${c.reason ? `: ${declineText(c.reason)}` : ""}`;
    list.appendChild(li);
  }
  box.hidden = list.children.length === 0;
  // a challenge (or rematch) of mine accepted while this page is open: to the game
  // (a four-player challenge I accepted: when the last player has, everyone goes)
  const accepted = data.settled.find((c) => (c.from === me.username || c.players) && c.status === "accepted" && c.game_id);
  if (accepted && !taken.has(accepted.id)) {
    taken.add(accepted.id);
    openMySeat(accepted.game_id);
  }
}

let started = false;

export async function liveChallenges() {
  if (started) return;
  started = true;
  const me = await whoAmI().catch(() => null);
  const who = $("who");
  if (who) {
    if (me) {
      delete who.dataset.i18n;
      who.textContent = me.username;
    } else {
      // Translated with the page (initI18n translates every data-i18n element), or now if it already was.
      who.dataset.i18n = "account:login";
      who.textContent = hasKey("account:login") ? t("account:login") : "Log in";
    }
    who.href = me ? `/u/${encodeURIComponent(me.username)}` : "/account";
  }
  if (!me || !$("live-challenges")) return;
  await i18nReady(); // the cards in the page's language (the lobby's catalogues may still be loading)
  await loadBotCatalogue(); // the decline reasons' texts
  const taken = new Set();
  const stream = new EventSource("/api/account/events");
  stream.addEventListener("challenges", (ev) => {
    const data = JSON.parse(ev.data);
    show(me, data, taken);
    window.dispatchEvent(new CustomEvent("tessera:account-live", { detail: data })); // seeks.js: paired seeks
  });
}

if ($("who") || $("live-challenges")) liveChallenges(); // the lobby; the game page starts it at a game's end
