// The lobby: create a game (any game, parameters, opponent, seat, clock), list open and finished games, import.
// Every text is the player's language (catalogues "lobby" and "params"); a parameter's label and its
// one-line explanation come from params:<game>.<param>.label / .help, its choices from .choices.<value>.
import { api, ApiError, escapeHtml, loadSeats, saveSeats, whoAmI } from "./api.js";
import { fmtNumber, fmtRating, hasKey, initI18n, t } from "./i18n.js";
import { clockSettingsText } from "./deadline.js";
import { colourName, gameClient, loadGameClient, refusalText, resultText } from "./decorate.js";
import { lessonsLinkHtml } from "./learn.js";
import { initPrefs } from "./prefs.js";

const $ = (id) => document.getElementById(id);
let catalog = [];
// A game's client module (the catalogue's client_module; decorate.js loads it) answers what the form
// cannot know from the declaration alone: its optional exports choices, choiceLabel, refreshOn.
const client = (g) => gameClient(g.name);

const formValue = (name) => ($(`param-${name}`) || {}).value;

function current() {
  return catalog.find((g) => g.name === $("game").value);
}

// A parameter's name in words when no catalogue has it: "max_plies" → "Max plies".
export function humanLabel(name) {
  const words = String(name).replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// Label, explanation and choice names of a parameter in the player's language (the catalogue
// params:<game>.<param>…), else the game's own words.
function paramLabel(g, p) {
  const key = `params:${g.name}.${p.name}.label`;
  return hasKey(key) ? t(key) : humanLabel(p.name);
}
function paramHelp(g, p) {
  const key = `params:${g.name}.${p.name}.help`;
  return hasKey(key) ? t(key) : p.doc || "";
}
function choiceLabel(g, p, c) {
  const own = client(g) && client(g).choiceLabel && client(g).choiceLabel(p, c, t);
  if (own !== undefined) return own;
  const key = `params:${g.name}.${p.name}.choices.${c}`;
  return hasKey(key) ? t(key) : String(c);
}

// Safeguard limits (a draw after so many turns) and expert overrides go under the "advanced" fold.
function isAdvanced(g, p) {
  return /^safeguard\b/i.test(p.doc || "") || !!p.expert;
}

// The choices of a parameter: the game's client module may compute them from the form (else the declared ones).
function ownChoices(g, p) {
  const c = client(g);
  return c && c.choices ? c.choices(p, formValue) : undefined;
}

function choicesOf(g, p) {
  const own = ownChoices(g, p);
  return own !== undefined ? own : p.choices;
}

// Refill the selects whose choices the game's client module computes.
function refillOwnChoices(g) {
  for (const p of g.params) {
    const own = ownChoices(g, p);
    if (own !== undefined && $(`param-${p.name}`)) fillSelect($(`param-${p.name}`), g, p, own);
  }
}

function fillSelect(input, g, p, choices, auto) {
  const keep = input.value;
  input.innerHTML = "";
  if (auto !== undefined) {
    const o = document.createElement("option");
    o.value = "";
    o.textContent = auto;
    input.appendChild(o);
  }
  for (const c of choices) {
    const o = document.createElement("option");
    o.value = String(c);
    o.textContent = choiceLabel(g, p, c);
    input.appendChild(o);
  }
  const values = [...input.options].map((o) => o.value);
  input.value = values.includes(keep) ? keep : auto !== undefined ? "" : values.includes(String(p.default)) ? String(p.default) : values[0];
}

function paramInput(g, p) {
  const id = `param-${p.name}`;
  const label = document.createElement("label");
  label.className = "param";
  label.dataset.param = p.name;
  const name = document.createElement("span");
  name.className = "param-label";
  name.textContent = paramLabel(g, p);
  label.append(name, " ");
  let input;
  const choices = choicesOf(g, p);
  if (choices) {
    input = document.createElement("select");
    fillSelect(input, g, p, choices, p.default === null ? t("lobby:automatic") : undefined);
    if (p.default !== null) input.value = String(p.default);
  } else if (p.kind === "bool") {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = !!p.default;
  } else {
    input = document.createElement("input");
    input.type = p.kind === "str" ? "text" : "number";
    if (p.min !== null) input.min = p.min;
    if (p.max !== null) input.max = p.max;
    input.step = p.step !== null ? p.step : p.kind === "int" ? 1 : "any";
    input.value = p.default === null ? "" : String(p.default);
    if (p.default === null) input.placeholder = t("lobby:automatic");
    if (p.kind === "str") {
      const ph = `params:${g.name}.${p.name}.placeholder`;
      if (hasKey(ph)) input.placeholder = t(ph);
    }
  }
  input.id = id;
  input.dataset.param = p.name;
  input.dataset.kind = p.kind;
  label.appendChild(input);
  const help = paramHelp(g, p);
  if (help) {
    const small = document.createElement("small");
    small.className = "param-help";
    small.textContent = help;
    label.appendChild(small);
  }
  return label;
}

// -- ready-made variants (the catalogue's examples): named by what they change, one click fills the form --
function parseSpec(spec) {
  const m = /^[^(]*\((.*)\)$/.exec(spec);
  const out = {};
  if (!m) return out;
  for (const part of m[1].split(",")) {
    const [k, v] = part.split("=");
    if (k && v !== undefined) out[k.trim()] = v.trim();
  }
  return out;
}

function variantText(g, spec) {
  const params = parseSpec(spec);
  return Object.entries(params)
    .map(([k, v]) => {
      const p = g.params.find((q) => q.name === k);
      if (!p) return `${k} ${v}`;
      let shown = v;
      if (p.kind === "bool") shown = v === "true" || v === "1" ? t("lobby:yes") : t("lobby:no");
      else if (choicesOf(g, p) || p.choices) shown = choiceLabel(g, p, p.kind === "int" ? Number(v) : v);
      return `${paramLabel(g, p)}: ${shown}`;
    })
    .join(" · ");
}

function showVariants(g) {
  const row = $("variant-row");
  row.innerHTML = "";
  row.hidden = !g.examples.length;
  if (!g.examples.length) return;
  const label = document.createElement("label");
  label.append(t("lobby:variants"), " ");
  const sel = document.createElement("select");
  sel.id = "variant";
  const own = document.createElement("option");
  own.value = "";
  own.textContent = t("lobby:variant_standard");
  sel.appendChild(own);
  for (const spec of g.examples) {
    const o = document.createElement("option");
    o.value = spec;
    o.textContent = variantText(g, spec);
    o.title = spec;
    sel.appendChild(o);
  }
  sel.addEventListener("change", () => applyVariant(g, sel.value));
  label.appendChild(sel);
  row.appendChild(label);
}

// The standard game, then the variant's values; the "advanced" fold opens when it sets a limit there.
function applyVariant(g, spec) {
  const values = spec ? parseSpec(spec) : {};
  for (const p of g.params) {
    const input = $(`param-${p.name}`);
    if (!input) continue;
    const v = p.name in values ? values[p.name] : p.default === null ? "" : String(p.default);
    if (p.kind === "bool") input.checked = v === true || v === "true" || v === "1";
    else input.value = v;
    if (p.name in values && isAdvanced(g, p)) $("advanced").open = true;
  }
  if ($("param-players")) showSeats();
  applyParamRules();
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
  box.onchange = applyParamRules;
  adv.onchange = applyParamRules;
  // choices computed by the game's client module follow the parameters it names as they are typed
  box.oninput = adv.oninput = (e) => {
    const c = client(g);
    if (c && (c.refreshOn || []).some((name) => e.target.id === `param-${name}`)) refillOwnChoices(g);
  };
  applyParamRules();
  const players = Object.keys(g.seats_by_players || {}).join(` ${t("lobby:or")} `) || String(g.players);
  const about = `params:${g.name}.about`;
  const dyn = `lobby:dynamics.${g.dynamics}`;
  $("game-about").innerHTML =
    `${escapeHtml(hasKey(about) ? t(about) : g.title)} ` +
    `<span class="game-facts">${escapeHtml(t("lobby:game_facts", { players, turns: hasKey(dyn) ? t(dyn) : g.dynamics }))}</span> ` +
    `<a href="/rules/${encodeURIComponent(g.name)}">${escapeHtml(t("lobby:rules_link"))}</a> · ${lessonsLinkHtml(g.name, g.title)}`;
  showVariants(g);
  const pl = $("param-players");
  if (pl) pl.addEventListener("change", () => {
    showSeats();
    showLevels();
  });
  showSeats();
  showLevels();
}

// -- parameters that follow each other (the catalogue's param_rules) ------------------------
function paramValue(p) {
  const input = $(`param-${p.name}`);
  if (!input) return p.default;
  if (p.kind === "bool") return input.checked;
  if (input.value === "") return p.default;
  if (p.kind === "int") return parseInt(input.value, 10);
  if (p.kind === "float") return parseFloat(input.value);
  return input.value;
}

// What a parameter accepts given the others' current values: its declaration overlaid by the rules that hold.
function effectiveParam(g, p) {
  const eff = { default: p.default, min: p.min, max: p.max, choices: p.choices, fixed: false, ruled: false };
  for (const r of g.param_rules || []) {
    if (r.param !== p.name) continue;
    if (r.when !== null) {
      const ctl = g.params.find((q) => q.name === r.when);
      if (!ctl || paramValue(ctl) !== r.equals) continue;
    }
    eff.ruled = true;
    if (r.default !== null) eff.default = r.default;
    if (r.min !== null) eff.min = r.min;
    if (r.max !== null) eff.max = r.max;
    if (r.choices !== null) eff.choices = r.choices;
    if (r.fixed) eff.fixed = true;
    if (r.max_from) {
      const lim = paramValue(g.params.find((q) => q.name === r.max_from) || {});
      if (typeof lim === "number" && !Number.isNaN(lim)) eff.max = eff.max === null ? lim : Math.min(eff.max, lim);
    }
  }
  return eff;
}

function rangeText(g, p, eff) {
  if (eff.fixed) return t("lobby:range.fixed");
  if (eff.choices) return t("lobby:range.one_of", { list: eff.choices.map((c) => choiceLabel(g, p, c)).join(", ") });
  if (eff.min !== null && eff.max !== null) return t("lobby:range.from_to", { min: eff.min, max: eff.max });
  if (eff.min !== null) return t("lobby:range.at_least", { min: eff.min });
  if (eff.max !== null) return t("lobby:range.at_most", { max: eff.max });
  return "";
}

function autoText(value) {
  return value === null || value === undefined ? t("lobby:automatic") : t("lobby:automatic_value", { value });
}

function applyParamRules() {
  const g = current();
  if (!g) return;
  refillOwnChoices(g);
  if (!(g.param_rules || []).length) return;
  for (const p of g.params) {
    if (!(g.param_rules || []).some((r) => r.param === p.name)) continue;
    const input = $(`param-${p.name}`);
    if (!input) continue;
    const eff = effectiveParam(g, p);
    const auto = p.default === null; // the game derives the default: the form leaves it "automatic"
    input.disabled = eff.fixed;
    if (input.tagName === "SELECT") {
      const keep = input.value;
      const opts = [];
      if (auto) opts.push(["", autoText(eff.default)]);
      for (const c of eff.choices || []) opts.push([String(c), choiceLabel(g, p, c)]);
      const same = opts.length === input.options.length && opts.every(([v, t], i) => input.options[i].value === v && input.options[i].textContent === t);
      if (!same) {
        input.innerHTML = "";
        for (const [v, t] of opts) {
          const o = document.createElement("option");
          o.value = v;
          o.textContent = t;
          input.appendChild(o);
        }
      }
      const values = opts.map(([v]) => v);
      input.value = eff.fixed ? String(eff.default ?? "") : values.includes(keep) ? keep : auto ? "" : String(eff.default);
    } else if (p.kind === "bool") {
      if (eff.fixed) input.checked = !!eff.default;
    } else {
      if (eff.min !== null) input.min = eff.min; else input.removeAttribute("min");
      if (eff.max !== null) input.max = eff.max; else input.removeAttribute("max");
      if (auto) input.placeholder = autoText(eff.default);
      const v = input.value === "" ? null : Number(input.value);
      const outside = v !== null && ((eff.min !== null && v < eff.min) || (eff.max !== null && v > eff.max));
      if (eff.fixed) input.value = eff.default === null ? "" : String(eff.default);
      else if (outside) input.value = auto ? "" : String(Math.min(Math.max(v, eff.min ?? v), eff.max ?? v));
    }
    let note = input.parentElement.querySelector(".param-range");
    if (!note) {
      note = document.createElement("small");
      note.className = "param-range";
      input.parentElement.appendChild(note);
    }
    note.textContent = eff.ruled ? t("lobby:range.now", { range: rangeText(g, p, eff) }) : "";
  }
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
    [1, 2, 3, 4, 5]
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
  if (l === 5) parts.push(t("params:levels.top")); // no game has a level 6 yet (docs/agents.md)
  return parts.join(" ");
}

function showLevels() {
  const sel = $("ai-level");
  const keep = sel.value || "2";
  sel.innerHTML = [1, 2, 3, 4, 5].map((l) => `<option value="${l}">${escapeHtml(levelName(l))}</option>`).join("");
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

function params() {
  const g = current();
  const out = {};
  for (const p of g.params) {
    const input = $(`param-${p.name}`);
    let v;
    if (input.disabled) continue; // fixed by another parameter: the game's default
    if (p.kind === "bool") v = input.checked;
    else if (input.value === "") continue;
    else if (p.kind === "int") v = parseInt(input.value, 10);
    else if (p.kind === "float") v = parseFloat(input.value);
    else v = input.value;
    if (v !== p.default) out[p.name] = v;
  }
  return out;
}

async function create(e) {
  e.preventDefault();
  const mode = document.querySelector("input[name=mode]:checked").value;
  const body = {
    game: $("game").value,
    params: params(),
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
  await initI18n(["account", "game", "learn", "lobby", "params", "seeks", "engine", "tournaments"]);
  initPrefs();
  $("create").hidden = true;
  refreshLists();
  setInterval(refreshLists, 10000);
  $("import").addEventListener("submit", importRecord);
  $("import-analyse").addEventListener("click", () => {
    // the analysis board reads the record itself (POST /api/analysis/record): no game is created
    const text = $("import-text").value.trim();
    if (!text) return;
    sessionStorage.setItem("tessera.analysis.record", text);
    location.href = "/analysis?record=paste";
  });
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
