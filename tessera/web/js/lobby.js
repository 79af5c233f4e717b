// The lobby: create a game (any game, parameters, opponent, seat, clock), list open and finished games, import.
import { api, ApiError, escapeHtml, loadSeats, saveSeats } from "./api.js";
import { lessonsLinkHtml } from "./learn.js";

const $ = (id) => document.getElementById(id);
let catalog = [];

function current() {
  return catalog.find((g) => g.name === $("game").value);
}

// A parameter's name in words: "max_plies" → "Max plies", "dark_nest" → "Dark nest".
export function humanLabel(name) {
  const words = String(name).replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function paramInput(p) {
  const id = `param-${p.name}`;
  const label = document.createElement("label");
  label.title = `${p.name}: ${p.doc || ""}`;
  label.append(`${humanLabel(p.name)} `);
  let input;
  if (p.choices) {
    input = document.createElement("select");
    if (p.default === null) {
      // a default that depends on the other parameters (Nibble's colours follow the board)
      const auto = document.createElement("option");
      auto.value = "";
      auto.textContent = "automatic";
      auto.selected = true;
      input.appendChild(auto);
    }
    for (const c of p.choices) {
      const o = document.createElement("option");
      o.value = String(c);
      o.textContent = String(c);
      if (c === p.default) o.selected = true;
      input.appendChild(o);
    }
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
    if (p.default === null) input.placeholder = "default";
  }
  input.id = id;
  input.dataset.param = p.name;
  input.dataset.kind = p.kind;
  label.appendChild(input);
  if (p.doc) {
    const small = document.createElement("small");
    small.textContent = p.doc;
    label.appendChild(small);
  }
  return label;
}

function showGame() {
  const g = current();
  if (!g) return;
  const box = $("params");
  box.innerHTML = "<legend>Parameters</legend>";
  for (const p of g.params) box.appendChild(paramInput(p));
  box.addEventListener("change", applyParamRules);
  applyParamRules();
  const ex = g.examples.length ? ` Variants: ${g.examples.join(", ")}.` : "";
  $("game-about").innerHTML = `${escapeHtml(g.title)}: ${Object.keys(g.seats_by_players || {}).join(" or ") || g.players} players, ${escapeHtml(g.dynamics)} turns.${escapeHtml(ex)} <a href="/rules/${g.name}">Rules</a> · ${lessonsLinkHtml(g.name, g.title)}`;
  const players = $("param-players");
  if (players) players.addEventListener("change", showSeats);
  showSeats();
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

function rangeText(eff) {
  if (eff.fixed) return "fixed by the other choices";
  if (eff.choices) return `one of ${eff.choices.join(", ")}`;
  if (eff.min !== null && eff.max !== null) return `from ${eff.min} to ${eff.max}`;
  if (eff.min !== null) return `at least ${eff.min}`;
  if (eff.max !== null) return `at most ${eff.max}`;
  return "";
}

function applyParamRules() {
  const g = current();
  if (!g || !(g.param_rules || []).length) return;
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
      if (auto) opts.push(["", eff.default === null ? "automatic" : `automatic (${eff.default})`]);
      for (const c of eff.choices || []) opts.push([String(c), String(c)]);
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
      if (auto) input.placeholder = eff.default === null ? "automatic" : `automatic (${eff.default})`;
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
    note.textContent = eff.ruled ? `Now ${rangeText(eff)}.` : "";
  }
}

// The seats of the chosen variant (four-player Nymbat has four): the "You play" list and the seat plan.
function seatNames() {
  const g = current();
  const players = $("param-players");
  const byPlayers = g.seats_by_players || {};
  return (players && byPlayers[players.value]) || g.player_names;
}

function showSeats() {
  const names = seatNames();
  $("seat").innerHTML = names.map((n, i) => `<option value="${i}">${escapeHtml(n)} (seat ${i})</option>`).join("");
  const levels = [1, 2, 3, 4, 5].map((l) => `<option value="ai:${l}">AI level ${l}</option>`).join("");
  $("seat-plan").innerHTML = names
    .map(
      (n, i) => `<label>${escapeHtml(n)} (seat ${i}) <select class="seat-kind" data-seat="${i}">
        <option value="here"${i === 0 ? " selected" : ""}>a person at this screen</option>
        <option value="invite">a friend (invite link)</option>
        ${levels.replace(i === 0 ? "" : 'value="ai:2"', i === 0 ? "" : 'value="ai:2" selected')}
      </select></label>`,
    )
    .join("");
  showMode();
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
  if ($("clock-on").checked) {
    body.clock = { initial: parseFloat($("clock-min").value) * 60, increment: parseFloat($("clock-inc").value || "0") };
  }
  $("create-error").hidden = true;
  try {
    const r = await api("POST", "/api/games", body);
    saveSeats(r.id, { tokens: r.tokens, invites: r.invites });
    const hash = Object.entries(r.tokens).map(([s, t]) => `t${s}=${encodeURIComponent(t)}`).join("&");
    location.href = `${r.url}#${hash}`;
  } catch (err) {
    $("create-error").textContent = err instanceof ApiError ? err.detail : String(err);
    $("create-error").hidden = false;
  }
}

function gameItem(g, open) {
  const seats = g.seats.map((s) => escapeHtml(s.name)).join(g.seats.length > 2 ? ", " : " vs ");
  const clock = g.clock ? ` · ${Math.round(g.clock.initial / 60)}+${g.clock.increment}` : "";
  const res = g.result ? ` · ${escapeHtml(g.result.text)}` : "";
  const join = open ? `<button data-join="${g.id}">Join</button>` : `<a href="/g/${g.id}">replay</a>`;
  return `<li><a href="/g/${g.id}">${escapeHtml(g.title)}</a> <code>${escapeHtml(g.spec)}</code> — ${seats}${clock}${res} ${join}</li>`;
}

// "My games": the games this browser holds seats in (no accounts: the seat tokens kept here),
// ongoing first and those where it is your turn before them, then finished ones.
async function refreshMyGames() {
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const m = /^tessera:game:(.+)$/.exec(localStorage.key(i) || "");
    if (m) ids.push(m[1]);
  }
  const rows = [];
  await Promise.all(
    ids.slice(-40).map(async (id) => {
      const tokens = loadSeats(id).tokens || {};
      const seats = Object.keys(tokens).map(Number);
      if (!seats.length) return;
      try {
        const v = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, tokens[seats[0]]);
        const yours =
          v.status === "active" &&
          (seats.includes(v.to_move) || (v.to_move === -2 && v.sealed && seats.some((s) => !v.sealed[s])));
        rows.push({ v, yours, seats });
      } catch {
        /* a game of another server or database: not listed */
      }
    }),
  );
  const rank = (r) => (r.v.status === "active" ? (r.yours ? 0 : 1) : 2);
  rows.sort((a, b) => rank(a) - rank(b) || b.v.version - a.v.version);
  $("my-games").innerHTML = rows.length
    ? rows
        .map(({ v, yours, seats }) => {
          const hash = seats.map((s) => `t${s}=${encodeURIComponent(loadSeats(v.id).tokens[s])}`).join("&");
          const names = v.seats.map((s) => escapeHtml(s.name)).join(" vs ");
          const state = v.status !== "active" ? escapeHtml(v.result ? v.result.text : "finished") : yours ? "<strong>your turn</strong>" : "waiting for the opponent";
          return `<li class="my-game${yours ? " yours" : ""}" data-game="${escapeHtml(v.id)}"><a href="/g/${encodeURIComponent(v.id)}#${hash}">${escapeHtml(v.title)}</a> <code>${escapeHtml(v.spec)}</code> — ${names} · ${state}</li>`;
        })
        .join("")
    : '<li class="hint">Games you play in this browser appear here.</li>';
}

async function refreshLists() {
  refreshMyGames();
  try {
    const open = await api("GET", "/api/games?status=open");
    $("open-games").innerHTML = open.games.length ? open.games.map((g) => gameItem(g, true)).join("") : '<li class="hint">No open games. Create one and invite a friend.</li>';
    for (const b of document.querySelectorAll("[data-join]")) {
      b.addEventListener("click", async () => {
        try {
          const r = await api("POST", `/api/games/${b.dataset.join}/join`);
          saveSeats(b.dataset.join, { tokens: { [r.seat]: r.token } });
          location.href = r.link;
        } catch (err) {
          alert(err.detail || String(err));
        }
      });
    }
    const fin = await api("GET", "/api/games?status=finished");
    $("finished-games").innerHTML = fin.games.slice(0, 15).map((g) => gameItem(g, false)).join("") || '<li class="hint">None yet.</li>';
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

async function start() {
  const c = await api("GET", "/api/catalog");
  catalog = c.games;
  $("game").innerHTML = catalog.map((g) => `<option value="${g.name}">${escapeHtml(g.title)}</option>`).join("");
  const want = new URLSearchParams(location.search).get("game");
  if (want && catalog.some((g) => g.name === want)) $("game").value = want;
  $("game").addEventListener("change", showGame);
  for (const r of document.querySelectorAll("input[name=mode]")) r.addEventListener("change", showMode);
  $("create").addEventListener("submit", create);
  $("import").addEventListener("submit", importRecord);
  $("import-analyse").addEventListener("click", () => {
    // the analysis board reads the record itself (POST /api/analysis/record): no game is created
    const text = $("import-text").value.trim();
    if (!text) return;
    sessionStorage.setItem("tessera.analysis.record", text);
    location.href = "/analysis?record=paste";
  });
  // the clock's minutes and increment matter only with a clock
  const clockFields = () => {
    for (const id of ["clock-min", "clock-inc"]) $(id).disabled = !$("clock-on").checked;
  };
  $("clock-on").addEventListener("change", clockFields);
  clockFields();
  showGame();
  refreshLists();
  setInterval(refreshLists, 10000);
}
start();
