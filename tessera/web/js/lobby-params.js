// The lobby's create form, the part that holds a game's parameters: each parameter's input with its
// label, explanation and choices in the player's language (catalogue params:<game>.<param>…, else the
// game's own words; a game's client module may compute choices), the ready-made variants, the rules
// between parameters (the catalogue's param_rules), and the values read back for a new game.
import { hasKey, t } from "./i18n.js";
import { gameClient } from "./decorate.js";

const $ = (id) => document.getElementById(id);

// A game's client module (the catalogue's client_module; decorate.js loads it) answers what the form
// cannot know from the declaration alone: its optional exports choices, choiceLabel, refreshOn.
export const client = (g) => gameClient(g.name);

const formValue = (name) => ($(`param-${name}`) || {}).value;

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
export function isAdvanced(g, p) {
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
export function refillOwnChoices(g) {
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

export function paramInput(g, p) {
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

export function variantText(g, spec) {
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

export function showVariants(g, onSeats) {
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
  sel.addEventListener("change", () => applyVariant(g, sel.value, onSeats));
  label.appendChild(sel);
  row.appendChild(label);
}

// The standard game, then the variant's values; the "advanced" fold opens when it sets a limit there.
// onSeats() redraws the seats when the variant has a number of players.
function applyVariant(g, spec, onSeats) {
  const values = spec ? parseSpec(spec) : {};
  for (const p of g.params) {
    const input = $(`param-${p.name}`);
    if (!input) continue;
    const v = p.name in values ? values[p.name] : p.default === null ? "" : String(p.default);
    if (p.kind === "bool") input.checked = v === true || v === "true" || v === "1";
    else input.value = v;
    if (p.name in values && isAdvanced(g, p)) $("advanced").open = true;
  }
  if ($("param-players")) onSeats();
  applyParamRules(g);
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

export function applyParamRules(g) {
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

// The values of the form that differ from the game's defaults (a parameter fixed by another is left out).
export function params(g) {
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
