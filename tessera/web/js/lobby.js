// The lobby: create a game (any game, parameters, opponent, seat, clock), list open and finished games, import.
// Every text is the player's language (catalogues "lobby" and "params"); a parameter's label and its
// one-line explanation come from params:<game>.<param>.label / .help, its choices from .choices.<value>.
import { api, ApiError, escapeHtml, loadSeats, saveSeats, whoAmI } from "./api.js";
import { fmtNumber, fmtRating, hasKey, initI18n, t } from "./i18n.js";
import { clockSettingsText } from "./deadline.js";
import { colourName, loadGameClient, refusalText, resultText } from "./decorate.js";
import { lessonsLinkHtml } from "./learn.js";
import { initPrefs } from "./prefs.js";
import { applyParamRules, client, isAdvanced, params, paramInput, refillOwnChoices, showVariants, variantText } from "./lobby-params.js";

const $ = (id) => document.getElementById(id);
let catalog = [];

function current() {
  return catalog.find((g) => g.name === $("game").value);
}

function showGame() {
  const g = current();
  if (!g) return;
  const box = $("params");
  const adv = $("params-advanced");
  box.innerHTML = "";
  const legend = document.createElement("legend");
  legend.textContent = t("lobby:rules_of_play");
  box.appendChild(legend);
  adv.innerHTML = "";
  for (const p of g.params) (isAdvanced(g, p) ? adv : box).appendChild(paramInput(g, p));
  $("advanced").hidden = !adv.children.length;
  box.onchange = () => applyParamRules(current());
  adv.onchange = () => applyParamRules(current());
  // choices computed by the game's client module follow the parameters it names as they are typed
  box.oninput = adv.oninput = (e) => {
    const c = client(g);
    if (c && (c.refreshOn || []).some((name) => e.target.id === `param-${name}`)) refillOwnChoices(g);
  };
  applyParamRules(g);
  const players = Object.keys(g.seats_by_players || {}).join(` ${t("lobby:or")} `) || String(g.players);
  const about = `params:${g.name}.about`;
  const dyn = `lobby:dynamics.${g.dynamics}`;
  $("game-about").innerHTML =
    `${escapeHtml(hasKey(about) ? t(about) : g.title)} ` +
    `<span class="game-facts">${escapeHtml(t("lobby:game_facts", { players, turns: hasKey(dyn) ? t(dyn) : g.dynamics }))}</span> ` +
    `<a href="/rules/${encodeURIComponent(g.name)}">${escapeHtml(t("lobby:rules_link"))}</a> · ${lessonsLinkHtml(g.name, g.title)}`;
  showVariants(g, showSeats);
  const pl = $("param-players");
  if (pl) pl.addEventListener("change", () => {
    showSeats();
    showLevels();
  });
  showSeats();
  showLevels();
}

// The seats of the chosen variant (four-player Nymbat has four): the "You play" list and the seat plan.
function seatNames() {
  const g = current();
  const players = $("param-players");
  const byPlayers = g.seats_by_players || {};
  return (players && byPlayers[players.value]) || g.player_names;
}

function seatName(i, n) {
  return t("lobby:seat_name", { name: colourName(n), seat: i });
}

function showSeats() {
  const names = seatNames();
  $("seat").innerHTML = names.map((n, i) => `<option value="${i}">${escapeHtml(seatName(i, n))}</option>`).join("");
  const levels = (i) =>
    offeredLevels()
      .map((l) => `<option value="ai:${l}"${i > 0 && l === 2 ? " selected" : ""}>${escapeHtml(t("lobby:seat_kind.ai", { level: levelName(l) }))}</option>`)
      .join("");
  $("seat-plan").innerHTML = names
    .map(
      (n, i) => `<label>${escapeHtml(seatName(i, n))} <select class="seat-kind" data-seat="${i}">
        <option value="here"${i === 0 ? " selected" : ""}>${escapeHtml(t("lobby:seat_kind.here"))}</option>
        <option value="invite">${escapeHtml(t("lobby:seat_kind.invite"))}</option>
        ${levels(i)}
      </select></label>`,
    )
    .join("");
  showMode();
}

// -- AI levels: what each does and how strong it was measured to be (docs/agents.md) ---------
// Each game declares its measurements (the catalogue's `levels`, from Game.level_tuning()): level 5
// against level 4 and level 3 (score %, games a pair, both at a tenth of their time), and the search
// of levels 3-5 against level 2 (win %, 100 games at 0.1-0.2 s a move).

function fourPlayers() {
  const g = current();
  const pl = $("param-players");
  return !!(g && g.levels && g.levels.own_ladder && pl && Number(pl.value) > 2);
}

// The levels offered: 1-5, and 6 where the game's stored sequential test (SPRT) accepted its level-6
// agent against level 5 (the catalogue's levels.offered, two players only: tessera.server.ai.levels).
function offeredLevels() {
  const g = current();
  const pl = $("param-players");
  const players = pl ? Number(pl.value) : g ? g.players : 2;
  const offered = g && g.levels && Array.isArray(g.levels.offered) ? g.levels.offered : [1, 2, 3, 4, 5];
  return players > 2 ? offered.filter((l) => l <= 5) : offered;
}

function levelName(l) {
  return t(`params:levels.${l}.name`);
}

function levelAbout(l) {
  const g = current();
  if (fourPlayers()) {
    const base = t(`params:levels4.${l}`);
    return l === 5 ? `${base} ${t("params:measured.four_players")} ${t("params:levels.top")}` : base;
  }
  const parts = [t(`params:levels.${l}.help`)];
  const six = g && g.levels && g.levels.level6;
  if (l === 6 && six) {
    parts.push(
      t("params:measured.sprt", {
        seconds: fmtNumber(six.seconds),
        wins: fmtNumber(six.wins),
        draws: fmtNumber(six.draws),
        losses: fmtNumber(six.losses),
        games: fmtNumber(six.games),
        elo1: fmtNumber(six.elo1),
        llr: fmtNumber(six.llr),
        bound: fmtNumber(six.bounds[1]),
      }),
    );
  }
  const m = g && g.levels && g.levels.measured;
  const s = m && Object.keys(m).length ? m : null;
  if (s && l === 3) parts.push(t("params:measured.vs2", { pct: s.vs2 }));
  if (s && l === 4) parts.push(t("params:measured.below5", { pct: 100 - s.vs4 }));
  if (s && l === 5) parts.push(t("params:measured.vs43", { vs4: s.vs4, vs3: s.vs3, games: s.games }));
  if (g && g.levels && g.levels.note && l >= 3) parts.push(t(g.levels.note));
  // the level's rating in this game: the AI account's starting rating (GET /api/catalog ai_ratings)
  const r = g && g.ai_ratings && g.ai_ratings[String(l)];
  if (r) {
    let rated = t("lobby:level_rating", { rating: fmtRating(r.rating) });
    if (r.measured && r.low !== null && r.high !== null) {
      rated += ` ${t("lobby:level_rating_measured", { games: fmtNumber(r.games), low: fmtRating(r.low), high: fmtRating(r.high) })}`;
    }
    parts.push(`${rated}.`);
  }
  const top = offeredLevels().at(-1);
  if (l === top) parts.push(t(top === 6 ? "params:levels.top6" : "params:levels.top"));
  return parts.join(" ");
}

function showLevels() {
  const sel = $("ai-level");
  const offered = offeredLevels();
  const keep = offered.includes(parseInt(sel.value, 10)) ? sel.value : sel.value ? String(offered.at(-1)) : "2";
  sel.innerHTML = offered.map((l) => `<option value="${l}">${escapeHtml(levelName(l))}</option>`).join("");
  sel.value = keep;
  $("level-about").textContent = levelAbout(parseInt(sel.value, 10));
}

function seatPlan() {
  return [...document.querySelectorAll("#seat-plan .seat-kind")].map((sel) =>
    sel.value.startsWith("ai:") ? { kind: "ai", level: parseInt(sel.value.slice(3), 10) } : { kind: sel.value },
  );
}

function showMode() {
  const mode = document.querySelector("input[name=mode]:checked").value;
  $("level-row").hidden = mode !== "ai";
  $("seat-row").hidden = mode === "hotseat" || mode === "seats";
  $("seat-plan").hidden = mode !== "seats";
}

async function create(e) {
  e.preventDefault();
  const mode = document.querySelector("input[name=mode]:checked").value;
  const body = {
    game: $("game").value,
    params: params(current()),
    mode,
    seat: parseInt($("seat").value || "0", 10),
    ai_level: parseInt($("ai-level").value, 10),
    public: $("public").checked, // private unless the creator ticks "list in the lobby"
  };
  if (mode === "seats") {
    body.mode = "hotseat"; // the server derives the mode from the seats
    body.seats = seatPlan();
  }
  const days = parseInt(($("clock-days") || {}).value || "", 10); // correspondence (seeks.js, deadline.js)
  if (days) body.clock = { days };
  else if ($("clock-on").checked) {
    body.clock = { initial: parseFloat($("clock-min").value) * 60, increment: parseFloat($("clock-inc").value || "0") };
  }
  $("create-error").hidden = true;
  try {
    const r = await api("POST", "/api/games", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (err) {
    $("create-error").textContent = refusalText(err);
    $("create-error").hidden = false;
  }
}

function seatsText(seats) {
  return seats.map((s) => colourName(s.name)).join(seats.length > 2 ? ", " : ` ${t("lobby:vs")} `);
}

// A game's variant in words ("Reserve points: 12 · …"), once the catalogue is here; the
// standard game says nothing; before the catalogue, the spec as it is.
function specHtml(spec) {
  const name = String(spec).split("(")[0];
  const g = catalog.find((x) => x.name === name);
  if (!g) return `<code>${escapeHtml(spec)}</code>`;
  const words = variantText(g, spec);
  return words ? `<span class="variant-words" title="${escapeHtml(spec)}">(${escapeHtml(words)})</span>` : "";
}

function gameItem(g, open) {
  const clock = g.clock ? ` · ${clockSettingsText(g.clock)}` : "";
  const res = g.result ? ` · ${escapeHtml(resultText(g.result))}` : "";
  const join = open ? `<button data-join="${g.id}">${escapeHtml(t("lobby:join"))}</button>` : `<a href="/g/${g.id}">${escapeHtml(t("lobby:replay"))}</a>`;
  return `<li><a href="/g/${g.id}">${escapeHtml(g.title)}</a> ${specHtml(g.spec)} — ${escapeHtml(seatsText(g.seats))}${clock}${res} ${join}</li>`;
}

// "My games": the games this browser holds seats in (the seat tokens kept here) and, for a
// signed-in account, every game whose seat is bound to it (live, waiting for the opponent —
// correspondence games too — and finished, from the server: GET /api/users/{name}/games), on
// any device; ongoing first and those where it is your turn before them, then finished ones.
// An account's game opens by its plain link: the game page finds the account's seat itself. On a
// phone the list comes before the form when there is one (class has-games).
let myGamesTicket = 0; // the latest refresh: an older one finishing late does not overwrite it

async function accountGameIds() {
  const me = await whoAmI();
  if (!me) return [];
  const path = `/api/users/${encodeURIComponent(me.username)}/games`;
  try {
    const [live, recent] = await Promise.all([api("GET", `${path}?result=playing`), api("GET", path)]);
    const ids = [];
    for (const g of [...live.games, ...recent.games]) if (!ids.includes(g.id)) ids.push(g.id);
    return ids.slice(0, 40);
  } catch {
    return [];
  }
}

async function refreshMyGames() {
  const ticket = ++myGamesTicket;
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const m = /^tessera:game:(.+)$/.exec(localStorage.key(i) || "");
    if (m) ids.push(m[1]);
  }
  const local = ids.slice(-40).filter((id) => Object.keys(loadSeats(id).tokens || {}).length);
  const bound = (await accountGameIds()).filter((id) => !local.includes(id));
  const rows = [];
  await Promise.all(
    [...local, ...bound].map(async (id) => {
      const tokens = loadSeats(id).tokens || {};
      let seats = Object.keys(tokens).map(Number);
      try {
        // without a token here the session answers as the account's seat (`you`)
        const v = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, seats.length ? tokens[seats[0]] : undefined);
        if (!seats.length) seats = v.you === null || v.you === undefined ? [] : [v.you];
        if (!seats.length) return;
        const yours =
          v.status === "active" &&
          (seats.includes(v.to_move) || (v.to_move === -2 && v.sealed && seats.some((s) => !v.sealed[s])));
        rows.push({ v, yours, seats, tokens });
      } catch {
        /* a game of another server or database: not listed */
      }
    }),
  );
  if (ticket !== myGamesTicket) return;
  const rank = (r) => (r.v.status === "active" || r.v.status === "open" ? (r.yours ? 0 : 1) : 2);
  rows.sort((a, b) => rank(a) - rank(b) || b.v.version - a.v.version);
  $("lobby").classList.toggle("has-games", rows.length > 0);
  $("my-games").innerHTML = rows.length
    ? rows
        .map(({ v, yours, seats, tokens }) => {
          const held = seats.filter((s) => tokens[s]);
          const hash = held.length ? `#${held.map((s) => `t${s}=${encodeURIComponent(tokens[s])}`).join("&")}` : "";
          const state =
            v.status !== "active" && v.status !== "open"
              ? escapeHtml(v.result ? resultText(v.result) : t("lobby:state.finished"))
              : yours
                ? `<strong>${escapeHtml(t("lobby:state.your_turn"))}</strong>`
                : escapeHtml(t("lobby:state.waiting"));
          return `<li class="my-game${yours ? " yours" : ""}" data-game="${escapeHtml(v.id)}"><a href="/g/${encodeURIComponent(v.id)}${hash}">${escapeHtml(v.title)}</a> ${specHtml(v.spec)} — ${escapeHtml(seatsText(v.seats))} · ${state}</li>`;
        })
        .join("")
    : `<li class="hint">${escapeHtml(t("lobby:my_games_empty"))}</li>`;
}

let listsTicket = 0;

async function refreshLists() {
  refreshMyGames();
  const ticket = ++listsTicket;
  try {
    const open = await api("GET", "/api/games?status=open");
    if (ticket !== listsTicket) return;
    $("open-games").innerHTML = open.games.length
      ? open.games.map((g) => gameItem(g, true)).join("")
      : `<li class="hint">${escapeHtml(t("lobby:no_open_games"))}</li>`;
    for (const b of document.querySelectorAll("[data-join]")) {
      b.addEventListener("click", async () => {
        try {
          const r = await api("POST", `/api/games/${b.dataset.join}/join`);
          saveSeats(b.dataset.join, { tokens: { [r.seat]: r.token } });
          location.href = r.link;
        } catch (err) {
          alert(refusalText(err));
        }
      });
    }
    const fin = await api("GET", "/api/games?status=finished");
    if (ticket !== listsTicket) return;
    $("finished-games").innerHTML =
      fin.games.slice(0, 15).map((g) => gameItem(g, false)).join("") || `<li class="hint">${escapeHtml(t("lobby:none_yet"))}</li>`;
  } catch (err) {
    $("open-games").innerHTML = `<li class="error">${escapeHtml(err.detail || String(err))}</li>`;
  }
}

async function importRecord(e) {
  e.preventDefault();
  const text = $("import-text").value.trim();
  $("import-error").hidden = true;
  try {
    let r;
    if (text.startsWith("{")) {
      r = await api("POST", "/api/records", JSON.parse(text));
    } else {
      const res = await fetch("/api/records", { method: "POST", headers: { "Content-Type": "text/plain" }, body: text });
      r = await res.json();
      if (!res.ok) throw new ApiError(res.status, r.detail);
    }
    saveSeats(r.id, { tokens: r.tokens });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (err) {
    $("import-error").textContent = err instanceof ApiError ? err.detail : String(err);
    $("import-error").hidden = false;
  }
}

// -- first start: the catalogue may take a while (rule kernels compile on first use); the lobby
// says so, and which games are still being prepared (GET /api/status), never a blank list.
async function serverStatus() {
  try {
    const res = await fetch("/api/status");
    if (!res.ok) return null; // an older server without the route
    return await res.json();
  } catch {
    return null;
  }
}

function gameTitle(name) {
  const g = catalog.find((x) => x.name === name);
  const key = `params:${name}.title`;
  return g ? g.title : hasKey(key) ? t(key) : name;
}

function showStatus(st, loaded) {
  const node = $("catalog-status");
  const warming = st && Array.isArray(st.warming) ? st.warming : [];
  if (loaded && (!st || st.ready || !warming.length)) {
    node.hidden = true;
    return;
  }
  node.hidden = false;
  node.className = "load-status";
  if (warming.length) {
    const games = warming.map(gameTitle).join(", ");
    node.textContent = loaded ? t("lobby:status.preparing_ready", { games }) : t("lobby:status.preparing", { games });
  } else {
    node.textContent = t("lobby:status.loading");
  }
}

// While the chosen game is still being prepared the "Create game" button says so, with the
// progress of the whole preparation (GET /api/status: done of total games); pressed, it makes the
// game all the same (its first move waits for the rest of the preparation).
let warmStatus = null;

function showCreateButton() {
  const btn = $("create-btn");
  const bar = $("warm-progress");
  const warming = warmStatus && !warmStatus.ready && Array.isArray(warmStatus.warming) ? warmStatus.warming : [];
  const game = $("game").value;
  if (!game || !warming.includes(game)) {
    btn.textContent = t("lobby:create");
    btn.removeAttribute("aria-busy");
    delete btn.dataset.preparing;
    bar.hidden = true;
    return;
  }
  const total = Number(warmStatus.total) || catalog.length || 1;
  const done = Number(warmStatus.done) || 0;
  btn.setAttribute("aria-busy", "true");
  btn.dataset.preparing = "1";
  btn.textContent = t("lobby:status.button", { game: gameTitle(game), done: fmtNumber(done), total: fmtNumber(total) });
  bar.max = total;
  bar.value = done;
  bar.hidden = false;
}

async function watchStatus(isLoaded) {
  for (;;) {
    const st = await serverStatus();
    warmStatus = st;
    showStatus(st, isLoaded());
    if (isLoaded()) showCreateButton();
    if (!st || st.ready) return;
    await new Promise((r) => setTimeout(r, 700));
  }
}

async function loadCatalog() {
  let loaded = false;
  watchStatus(() => loaded);
  for (let attempt = 0; ; attempt++) {
    try {
      const c = await api("GET", "/api/catalog");
      loaded = true;
      return c;
    } catch (err) {
      const node = $("catalog-status");
      node.hidden = false;
      node.className = "load-status error";
      node.textContent = t("lobby:status.failed", { detail: err.detail || String(err) });
      await new Promise((r) => setTimeout(r, Math.min(5000, 500 * 2 ** attempt)));
    }
  }
}

async function start() {
  // the import form is in the page from the first paint: its handlers come before anything is awaited,
  // else a quick click did nothing (or submitted the form natively, reloading the page)
  $("import").addEventListener("submit", importRecord);
  $("import-analyse").addEventListener("click", () => {
    // the analysis board reads the record itself (POST /api/analysis/record): no game is created
    const text = $("import-text").value.trim();
    if (!text) return;
    sessionStorage.setItem("tessera.analysis.record", text);
    location.href = "/analysis?record=paste";
  });
  await initI18n(["account", "game", "learn", "lobby", "params", "seeks", "engine", "tournaments"]);
  initPrefs();
  // the form stays hidden (index.html) until the games are loaded and its handler is attached
  refreshLists();
  setInterval(refreshLists, 10000);
  const c = await loadCatalog();
  await Promise.all(c.games.map((g) => loadGameClient(g.name, g)));
  catalog = c.games;
  $("create").hidden = false;
  showStatus(null, true);
  $("game").innerHTML = catalog.map((g) => `<option value="${g.name}">${escapeHtml(g.title)}</option>`).join("");
  const want = new URLSearchParams(location.search).get("game");
  if (want && catalog.some((g) => g.name === want)) $("game").value = want;
  $("game").addEventListener("change", showGame);
  $("game").addEventListener("change", showCreateButton);
  for (const r of document.querySelectorAll("input[name=mode]")) r.addEventListener("change", showMode);
  $("ai-level").addEventListener("change", () => {
    $("level-about").textContent = levelAbout(parseInt($("ai-level").value, 10));
  });
  $("create").addEventListener("submit", create);
  // the clock's minutes and increment matter only with a clock
  const clockFields = () => {
    for (const id of ["clock-min", "clock-inc"]) $(id).disabled = !$("clock-on").checked;
  };
  $("clock-on").addEventListener("change", clockFields);
  clockFields();
  showGame();
  showCreateButton();
  refreshLists(); // the variants in words, now that the catalogue names them
  document.body.dataset.ready = "1";
}
start();
