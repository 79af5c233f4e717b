// Account pages: sign up / log in / my account (account.html) and a player's profile, history,
// rating graph and the leaderboard (profile.html, at /u/<name> and /leaderboard/<game>).
// The session is an HttpOnly cookie: this script never sees it; it only calls the JSON API.

import { api, escapeHtml } from "./api.js";
import { clockSettingsText } from "./deadline.js";
import { askDeclineReason } from "./decline.js";
import { refusalText, specWords } from "./decorate.js";
import { fmtNumber, fmtRating, hasKey, initI18n, t } from "./i18n.js";
import { initPrefs } from "./prefs.js";
import { botMark, challengeable, declineText, loadBotCatalogue } from "./bots.js";

const $ = (id) => document.getElementById(id);

function showError(form, err) {
  const box = form.querySelector(".error");
  box.textContent = refusalText(err);
  box.hidden = false;
}

function clearError(form) {
  const box = form.querySelector(".error");
  if (box) box.hidden = true;
}

function when(ts) {
  return new Date(ts * 1000).toLocaleDateString(document.documentElement.lang || undefined);
}

function ratingText(r) {
  return `${fmtRating(r.rating)}${r.provisional ? "?" : ""}`;
}

// Seat tokens this browser holds as a guest (kept by the game pages): claimed into the account.
function guestTokens() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("tessera:game:")) continue;
      const data = JSON.parse(localStorage.getItem(key) || "{}");
      for (const tok of Object.values(data.tokens || {})) if (typeof tok === "string") out.push(tok);
    }
  } catch {
    /* storage unavailable: nothing to claim */
  }
  return out.slice(0, 500);
}

async function whoAmI() {
  // GET /api/session: the account, or null for a guest (answered 200: no 401 in a guest's console)
  return (await api("GET", "/api/session")).account;
}

function header(me) {
  const who = $("who");
  who.textContent = "";
  const a = document.createElement("a");
  if (me) {
    a.href = `/u/${encodeURIComponent(me.username)}`;
    a.textContent = me.username;
  } else {
    a.href = "/account";
    a.textContent = t("account:login");
  }
  who.appendChild(a);
}

let catalogNames = null; // GET /api/catalog, asked once: [{name, title}]

// The player counts a game may be played with, from its declared `players` parameter (four-player Nymbat);
// read from the parameters, not from `seats_by_players`, which stays empty while the server warms the game up.
function playerCounts(g) {
  const p = (g.params || []).find((q) => q.name === "players");
  return p && Array.isArray(p.choices) ? p.choices.map(Number) : [];
}

async function gameNames() {
  if (catalogNames === null) {
    catalogNames = api("GET", "/api/catalog")
      .then((c) => c.games.map((g) => ({ name: g.name, title: g.title || g.name, players: g.players, playerCounts: playerCounts(g) })))
      .catch(() => []);
  }
  return catalogNames;
}

let titles = new Map(); // game name → its title (filled before any table is drawn)

// A game's name as the page shows it: its title, and a variant's parameters in words, never the raw id.
function gameText(spec) {
  const name = String(spec).split("(")[0];
  const title = titles.get(name) || name;
  const words = specWords(spec);
  return words ? `${title} (${words})` : title;
}

function fillSelect(sel, games, keep = []) {
  for (const g of games) {
    const o = document.createElement("option");
    o.value = g.name;
    o.textContent = g.title;
    sel.appendChild(o);
  }
  for (const v of keep) sel.value = v;
}

function ratingsTable(table, ratings) {
  const rows = Object.entries(ratings);
  if (!rows.length) {
    table.innerHTML = `<tr><td>${escapeHtml(t("account:no_ratings"))}</td></tr>`;
    return;
  }
  table.innerHTML =
    `<tr><th>${escapeHtml(t("account:game"))}</th><th>${escapeHtml(t("account:rating"))}</th>` +
    `<th>${escapeHtml(t("account:games"))}</th></tr>` +
    rows
      .map(
        ([game, r]) =>
          `<tr><td data-game="${escapeHtml(game)}">${escapeHtml(gameText(game))}</td>` +
          `<td title="RD ${escapeHtml(fmtNumber(r.rd, { maximumFractionDigits: 0 }))}">${escapeHtml(ratingText(r))}</td>` +
          `<td>${escapeHtml(fmtNumber(r.games))}</td></tr>`,
      )
      .join("");
}

// -- account.html ---------------------------------------------------------------------------------
async function accountPage() {
  const me = await whoAmI();
  header(me);
  if (!me) {
    $("signup-card").hidden = false;
    $("login-card").hidden = false;
    for (const [id, path] of [
      ["signup", "/api/account/signup"],
      ["login", "/api/account/login"],
    ]) {
      const form = $(id);
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        clearError(form);
        const body = { username: form.username.value, password: form.password.value, tokens: guestTokens() };
        try {
          await api("POST", path, body);
          location.reload();
        } catch (err) {
          showError(form, err);
        }
      });
    }
    return;
  }
  for (const id of ["me-card", "challenges-card", "tokens-card", "password-card"]) $(id).hidden = false;
  $("me-name").textContent = me.username;
  myName = me.username;
  $("me-profile").href = `/u/${encodeURIComponent(me.username)}`;
  ratingsTable($("me-ratings"), me.ratings);
  $("logout").addEventListener("click", async () => {
    await api("POST", "/api/account/logout");
    location.reload();
  });
  fillSelect($("challenge").game, await gameNames());
  // a game played by more players as a variant (four-player Nymbat): challenge them all at once
  for (const g of await gameNames()) {
    for (const n of g.playerCounts) {
      if (n === g.players) continue;
      const more = document.createElement("option");
      more.value = `${g.name}(players=${n})`;
      more.textContent = t("account:game_with_players", { game: g.title, n });
      $("challenge").game.appendChild(more);
    }
  }
  const wanted = new URLSearchParams(location.search).get("challenge");
  if (wanted) $("challenge").to.value = wanted;
  await showChallenges();
  setupChallengeForm();
  await showTokens();
  setupTokenForm();
  setupPasswordForms();
  // challenges live: the server pushes a notice whenever one to or from me is made, answered or
  // withdrawn (on any server process); the browser reconnects the stream by itself
  const live = new EventSource("/api/account/events");
  live.addEventListener("challenges", () => showChallenges().catch(() => {}));
}

function challengeLine(c, incoming, settled = false) {
  const li = document.createElement("li");
  li.dataset.challengeId = c.id;
  const who = incoming ? c.from : c.to;
  const what = `${gameText(c.game)}${c.rated ? ` · ${t("account:rated")}` : ""}${
    c.clock ? ` · ${clockSettingsText(c.clock)}` : ""
  }`;
  li.innerHTML = `<a href="/u/${encodeURIComponent(who)}">${escapeHtml(who)}</a> — ${escapeHtml(what)} `;
  if (c.rematch_of) {
    // the rematch of a finished game between the two accounts, marked as one
    li.classList.add("rematch-card");
    li.dataset.rematchOf = c.rematch_of;
    const prev = document.createElement("a");
    prev.href = `/g/${encodeURIComponent(c.rematch_of)}`;
    prev.className = "rematch-of";
    prev.textContent = t("account:rematch_card");
    li.append(prev, " ");
  }
  if (c.players) li.appendChild(document.createTextNode(`(${playersText(c)}) `)); // a four-player challenge
  const button = (key, cls, onClick) => {
    const b = document.createElement("button");
    b.textContent = t(key);
    if (cls) b.className = cls;
    b.addEventListener("click", onClick);
    li.appendChild(b);
  };
  if (settled) return li; // an accepted challenge: its game link only
  if (incoming) {
    const mine = c.players && c.players.find((p) => p.username === myName);
    if (mine && mine.status === "accepted") {
      li.appendChild(document.createTextNode(t("account:accepted_waiting"))); // the others have not all accepted yet
      return li;
    }
    button("account:accept", "primary", async () => {
      const r = await api("POST", `/api/challenges/${c.id}/accept`);
      if (!r.game_id) return showChallenges(); // waiting for the other players
      location.href = `/g/${r.game_id}#seat=${r.seat}&t=${r.token}`;
    });
    button("account:decline", "", async () => {
      const reason = await askDeclineReason(li); // in the page: a reason from the list, or none
      if (reason === null) return; // kept
      await api("POST", `/api/challenges/${c.id}/decline`, { reason: reason || undefined });
      li.remove();
    });
  } else if (c.status === "pending") {
    button("account:cancel", "", async () => {
      await api("DELETE", `/api/challenges/${c.id}`);
      li.remove();
    });
  }
  return li;
}

let knownAccepted = null; // ids of my accepted challenges already seen (null: not looked yet)
let myName = null; // the account's name (whose answers in a four-player challenge are mine)

// "Green ✓, Blue, open seat": the players of a four-player challenge and who has accepted
function playersText(c) {
  const names = c.players.map((p) =>
    p.username === null ? t("account:open_seat") : `${p.username}${p.status === "accepted" ? " ✓" : ""}`,
  );
  return `${t("account:with")} ${names.join(", ")}`;
}

async function showChallenges() {
  const all = await api("GET", "/api/challenges?pending=false");
  const inc = $("incoming");
  const out = $("outgoing");
  const done = $("accepted"); // challenges accepted (mine or to me): their games, not under "Outgoing"
  // a challenge whose decline reason is being chosen keeps its line (form, choice and focus) through
  // the refresh a live notice brings: the player is not made to start again
  const asking = new Map(
    [...inc.querySelectorAll("li[data-challenge-id]")]
      .filter((li) => li.querySelector(".decline-form"))
      .map((li) => [li.dataset.challengeId, li]),
  );
  const focused = document.activeElement;
  inc.textContent = "";
  out.textContent = "";
  done.textContent = "";
  for (const c of all.incoming.filter((c) => c.status === "pending")) {
    inc.appendChild(asking.get(String(c.id)) || challengeLine(c, true));
  }
  if (focused && focused !== document.activeElement && inc.contains(focused)) focused.focus();
  for (const c of all.incoming.filter((c) => c.status === "declined" && c.players).slice(0, 3)) {
    const li = document.createElement("li");
    li.className = "hint";
    li.textContent = `${c.from} — ${gameText(c.game)}: ${t("account:declined_by", { name: c.declined_by })}${c.reason ? `: ${c.reason}` : ""}`;
    inc.appendChild(li);
  }
  for (const c of all.incoming.filter((c) => c.status === "accepted" && c.game_id).slice(0, 10)) {
    const li = challengeLine(c, true, true);
    li.appendChild(gameLink(c.game_id));
    done.appendChild(li);
  }
  for (const c of all.outgoing.slice(0, 10)) {
    const li = challengeLine(c, false);
    if (c.status === "accepted" && c.game_id) {
      li.appendChild(gameLink(c.game_id));
      done.appendChild(li);
      continue;
    }
    if (c.status === "accepted") {
      li.appendChild(document.createTextNode(` ${t("account:accepted_waiting")}`));
    } else if (c.status === "declined" && c.declined_by) {
      li.appendChild(document.createTextNode(` ${t("account:declined_by", { name: c.declined_by })}${c.reason ? `: ${c.reason}` : ""}`));
    } else if (c.status === "declined") {
      li.appendChild(document.createTextNode(` ${t("account:declined")}${c.reason ? `: ${declineText(c.reason)}` : ""}`));
    } else if (c.status === "cancelled") {
      li.appendChild(document.createTextNode(` ${t("account:cancelled")}`));
    }
    out.appendChild(li);
  }
  if (!inc.children.length) inc.innerHTML = `<li class="hint">${escapeHtml(t("account:none"))}</li>`;
  if (!out.children.length) out.innerHTML = `<li class="hint">${escapeHtml(t("account:none"))}</li>`;
  if (!done.children.length) done.innerHTML = `<li class="hint">${escapeHtml(t("account:none"))}</li>`;
  for (const c of all.outgoing.filter((c) => c.open_links && c.open_links.length && c.status === "accepted")) {
    const li = [...done.children].find((x) => x.querySelector(`a[data-game-id="${c.game_id}"]`));
    for (const link of c.open_links) {
      const a = document.createElement("a");
      a.href = link;
      a.className = "open-link";
      a.textContent = ` ${t("account:open_seat_link")}`;
      if (li) li.appendChild(a);
    }
  }
  // a challenge of mine accepted since the page opened (or a four-player one I had accepted, once
  // everyone has): take me to the game
  const accepted = [
    ...all.outgoing.filter((c) => c.status === "accepted" && c.game_id),
    ...all.incoming.filter((c) => c.players && c.status === "accepted" && c.game_id),
  ];
  const fresh = knownAccepted ? accepted.filter((c) => !knownAccepted.has(c.id)) : [];
  knownAccepted = new Set(accepted.map((c) => c.id));
  if (fresh.length) openMySeat(fresh[0].game_id);
}

// "To the game": the game of an accepted challenge, opened on my seat.
function gameLink(gameId) {
  const a = document.createElement("a");
  a.href = `/g/${gameId}`;
  a.textContent = t("account:to_game");
  a.dataset.gameId = gameId;
  a.addEventListener("click", (ev) => {
    ev.preventDefault();
    openMySeat(gameId);
  });
  return a;
}

async function openMySeat(gameId) {
  const s = await api("GET", `/api/account/games/${encodeURIComponent(gameId)}/seat`);
  location.href = `/g/${gameId}#seat=${s.seat}&t=${s.token}`;
}

function setupChallengeForm() {
  const form = $("challenge");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearError(form);
    const minutes = parseFloat(form.minutes.value);
    // several names (comma-separated; "open" or nothing between commas: an open seat) for a game of
    // more than two seats, such as four-player Nymbat
    const names = form.to.value.split(",").map((x) => x.trim());
    const many = /players=[3-9]/.test(form.game.value) || names.length > 1;
    const body = {
      to: many ? names.map((x) => (x === "" || x.toLowerCase() === "open" ? null : x)) : names[0],
      game: form.game.value,
      rated: form.rated.checked,
      seat: form.seat.value === "" ? null : Number(form.seat.value),
      clock: minutes > 0 ? { initial: minutes * 60, increment: Number(form.increment.value) || 0 } : null,
    };
    try {
      const c = await api("POST", "/api/challenges", body);
      if (c.game_id && c.token) {
        location.href = `/g/${c.game_id}#seat=${c.seat}&t=${c.token}`;
        return;
      }
      form.to.value = "";
      await showChallenges();
    } catch (err) {
      showError(form, err);
    }
  });
}

// A token's scope in the page's language ("bot:play" → "bot API: … (bot:play)"); an unknown one as it is.
function scopeText(scope) {
  const key = `account:scope.${String(scope).replace(":", "_")}`;
  return hasKey(key) ? t(key) : scope;
}

async function showTokens() {
  const { tokens } = await api("GET", "/api/account/tokens");
  const table = $("tokens");
  table.textContent = "";
  for (const tok of tokens) {
    const tr = document.createElement("tr");
    tr.innerHTML =
      `<td><code>${escapeHtml(tok.id)}</code></td><td>${escapeHtml(tok.scopes.map(scopeText).join(", "))}</td>` +
      `<td>${escapeHtml(when(tok.created_at))}</td>`;
    const td = document.createElement("td");
    if (tok.revoked) td.textContent = t("account:revoked");
    else {
      const b = document.createElement("button");
      b.textContent = t("account:revoke");
      b.addEventListener("click", async () => {
        await api("DELETE", `/api/account/tokens/${encodeURIComponent(tok.id)}`);
        await showTokens();
      });
      td.appendChild(b);
    }
    tr.appendChild(td);
    table.appendChild(tr);
  }
}

function setupTokenForm() {
  const form = $("new-token");
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearError(form);
    const scopes = [...form.querySelectorAll("input[name=scope]:checked")].map((i) => i.value);
    try {
      const made = await api("POST", "/api/account/tokens", { scopes });
      const shown = $("token-shown");
      shown.textContent = `${t("account:token_once")} ${made.token}`;
      shown.hidden = false;
      await showTokens();
    } catch (err) {
      showError(form, err);
    }
  });
}

function setupPasswordForms() {
  const pw = $("password");
  pw.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearError(pw);
    try {
      await api("POST", "/api/account/password", { current: pw.current.value, new: pw.new.value });
      pw.reset();
      pw.querySelector(".ok").hidden = false;
    } catch (err) {
      showError(pw, err);
    }
  });
  const del = $("delete");
  del.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearError(del);
    if (!confirm(t("account:delete_confirm"))) return;
    try {
      await api("DELETE", "/api/account", { password: del.password.value });
      location.href = "/";
    } catch (err) {
      showError(del, err);
    }
  });
}

// -- profile.html -----------------------------------------------------------------------------------
async function profilePage() {
  const me = await whoAmI().catch(() => null);
  header(me);
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const games = await gameNames();
  if (parts[0] === "leaderboard") {
    await leaderboard(games, parts[1] || (games[0] && games[0].name));
    return;
  }
  const name = parts[1] || "";
  let p;
  try {
    p = await api("GET", `/api/users/${encodeURIComponent(name)}`);
  } catch {
    $("missing").hidden = false;
    return;
  }
  document.title = `tessera — ${p.username}`;
  $("heading").textContent = p.username;
  $("profile-card").hidden = false;
  $("history-card").hidden = false;
  $("p-name").textContent = p.username + botMark(p);
  $("p-joined").textContent = t("account:joined", { date: when(p.joined) });
  const c = p.counts;
  $("p-counts").textContent = t("account:counts", { games: c.games, win: c.win, loss: c.loss, draw: c.draw });
  ratingsTable($("p-ratings"), p.ratings);
  for (const game of Object.keys(p.ratings)) {
    const tr = [...$("p-ratings").querySelectorAll("td:first-child")].find((td) => td.dataset.game === game);
    if (tr) tr.innerHTML = `<a href="/leaderboard/${encodeURIComponent(game)}">${escapeHtml(gameText(game))}</a>`;
  }
  if (me && me.username !== p.username && challengeable(p)) {
    $("p-challenge").hidden = false;
    $("p-challenge").querySelector("a").href = `/account?challenge=${encodeURIComponent(p.username)}`;
  }
  const rated = Object.keys(p.ratings);
  if (rated.length) {
    $("graph-card").hidden = false;
    const sel = $("graph-game");
    fillSelect(sel, rated.map((g) => ({ name: g, title: gameText(g) })));
    sel.addEventListener("change", () => graph(p.username, sel.value));
    await graph(p.username, sel.value);
  }
  fillSelect($("f-game"), games);
  let page = 1;
  const load = async () => {
    const q = new URLSearchParams({ page: String(page) });
    if ($("f-game").value) q.set("game", $("f-game").value);
    if ($("f-result").value) q.set("result", $("f-result").value);
    const h = await api("GET", `/api/users/${encodeURIComponent(p.username)}/games?${q}`);
    history(h, p.username);
    const pages = Math.max(1, Math.ceil(h.total / h.per_page));
    $("page").textContent = ` ${page} / ${pages} `;
    $("prev").disabled = page <= 1;
    $("next").disabled = page >= pages;
  };
  $("f-game").addEventListener("change", () => ((page = 1), load()));
  $("f-result").addEventListener("change", () => ((page = 1), load()));
  $("prev").addEventListener("click", () => ((page -= 1), load()));
  $("next").addEventListener("click", () => ((page += 1), load()));
  await load();
}

function history(h, username) {
  const table = $("history");
  if (!h.games.length) {
    table.innerHTML = `<tr><td>${escapeHtml(t("account:no_games"))}</td></tr>`;
    return;
  }
  table.innerHTML =
    `<tr><th>${escapeHtml(t("account:date"))}</th><th>${escapeHtml(t("account:game"))}</th>` +
    `<th>${escapeHtml(t("account:players"))}</th><th>${escapeHtml(t("account:result"))}</th><th></th></tr>` +
    h.games
      .map((g) => {
        const players = g.players
          .map((pl) =>
            pl.username && pl.username !== username
              ? `<a href="/u/${encodeURIComponent(pl.username)}">${escapeHtml(pl.name)}</a>`
              : escapeHtml(pl.name),
          )
          .join(" · ");
        const res = t(`account:result_${g.result}`);
        return (
          `<tr><td>${escapeHtml(when(g.created_at))}</td><td title="${escapeHtml(g.spec)}">${escapeHtml(gameText(g.spec))}${g.rated ? ` · ${escapeHtml(t("account:rated"))}` : ""}</td>` +
          `<td>${players}</td><td>${escapeHtml(res)}</td>` +
          `<td><a href="/g/${encodeURIComponent(g.id)}">${escapeHtml(t("account:replay"))}</a> · ` +
          `<a href="/analysis?game=${encodeURIComponent(g.id)}">${escapeHtml(t("account:analyse"))}</a></td></tr>`
        );
      })
      .join("");
}

async function graph(username, game) {
  const { history: points } = await api("GET", `/api/users/${encodeURIComponent(username)}/ratings/${encodeURIComponent(game)}`);
  const svg = $("graph");
  const values = [1500, ...points.map((p) => p.rating)];
  const lo = Math.min(...values) - 20;
  const hi = Math.max(...values) + 20;
  const x = (i) => 30 + (360 * i) / Math.max(1, values.length - 1);
  const y = (v) => 170 - (160 * (v - lo)) / (hi - lo);
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  svg.setAttribute("aria-label", t("account:graph_label", { game, rating: values[values.length - 1] }));
  svg.innerHTML =
    `<text x="2" y="${y(hi - 20) + 4}">${Math.round(hi - 20)}</text>` +
    `<text x="2" y="${y(lo + 20) + 4}">${Math.round(lo + 20)}</text>` +
    `<polyline points="${line}"></polyline>`;
}

async function leaderboard(games, game) {
  document.title = `tessera — ${t("account:leaderboard")}`;
  $("heading").textContent = t("account:leaderboard");
  $("board-card").hidden = false;
  const sel = $("board-game");
  fillSelect(sel, games, [game]);
  sel.addEventListener("change", () => {
    location.href = `/leaderboard/${encodeURIComponent(sel.value)}`;
  });
  $("board-stats").href = `/stats/${encodeURIComponent(game)}`;
  const table = $("board");
  try {
    const b = await api("GET", `/api/leaderboard/${encodeURIComponent(game)}`);
    if (!b.players.length) {
      table.innerHTML = `<tr><td>${escapeHtml(t("account:board_empty"))}</td></tr>`;
      return;
    }
    table.innerHTML =
      `<tr><th>#</th><th>${escapeHtml(t("account:player"))}</th><th>${escapeHtml(t("account:rating"))}</th>` +
      `<th>${escapeHtml(t("account:games"))}</th></tr>` +
      b.players
        .map(
          (p) =>
            `<tr><td>${p.rank}</td><td><a href="/u/${encodeURIComponent(p.username)}">${escapeHtml(p.username)}</a>${escapeHtml(botMark(p))}</td>` +
            `<td>${escapeHtml(p.rating)}</td><td>${escapeHtml(p.games)}</td></tr>`,
        )
        .join("");
  } catch (err) {
    table.innerHTML = `<tr><td>${escapeHtml(refusalText(err))}</td></tr>`;
  }
}

await initI18n(["account", "tournaments", "moderation", "params"]);
initPrefs(); // the theme switch, as on every page
titles = new Map((await gameNames()).map((g) => [g.name, g.title]));
await loadBotCatalogue();
if (document.body.dataset.page === "account") await accountPage();
else await profilePage();
