// The player's settings kept in this browser: theme (automatic / light / dark), sounds on or off,
// and the colour-blind-safe palette of the boards. Switches go into the page's header.
import { t } from "./i18n.js";

const PREFIX = "tessera:pref:";

export function getPref(name, fallback) {
  try {
    const v = localStorage.getItem(PREFIX + name);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

export function setPref(name, value) {
  try {
    localStorage.setItem(PREFIX + name, JSON.stringify(value));
  } catch {
    /* private mode: the setting lasts for this page */
  }
  window.dispatchEvent(new CustomEvent("tessera:pref", { detail: { name, value } }));
}

// -- theme: "auto" follows the system (prefers-color-scheme), else the chosen one -----------
export function applyTheme(theme = getPref("theme", "auto")) {
  const root = document.documentElement;
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  else delete root.dataset.theme;
}

// The theme in force: "dark" or "light".
export function effectiveTheme() {
  const chosen = getPref("theme", "auto");
  if (chosen === "light" || chosen === "dark") return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function themeSwitch() {
  const label = document.createElement("label");
  label.className = "pref-switch theme-switch";
  const sel = document.createElement("select");
  sel.id = "theme";
  sel.title = t("common:theme.label");
  sel.setAttribute("aria-label", t("common:theme.label"));
  for (const v of ["auto", "light", "dark"]) {
    const o = document.createElement("option");
    o.value = v;
    o.textContent = t(`common:theme.${v}`);
    sel.appendChild(o);
  }
  sel.value = getPref("theme", "auto");
  sel.addEventListener("change", () => {
    setPref("theme", sel.value);
    applyTheme(sel.value);
  });
  label.appendChild(sel);
  return label;
}

// -- sounds: a move, your turn, the end of the game --------------------------------------
const SOUNDS = { move: "/static/sounds/move.wav", turn: "/static/sounds/turn.wav", end: "/static/sounds/end.wav" };
const cache = {};

export function soundOn() {
  return !getPref("mute", false);
}

// Play one of the sounds unless muted. The page notes what it played (data-last-sound on <html>,
// and a count), which is how the browser tests see it.
export function playSound(name) {
  if (!(name in SOUNDS) || !soundOn()) return;
  const root = document.documentElement;
  root.dataset.lastSound = name;
  root.dataset.soundCount = String(Number(root.dataset.soundCount || 0) + 1);
  try {
    const a = (cache[name] ||= new Audio(SOUNDS[name]));
    a.currentTime = 0;
    const p = a.play();
    if (p && p.catch) p.catch(() => {}); // no sound before the first click (autoplay rules): not an error
  } catch {
    /* no audio in this browser */
  }
}

function soundSwitch() {
  const b = document.createElement("button");
  b.type = "button";
  b.id = "sound";
  b.className = "pref-switch sound-switch";
  const show = () => {
    const on = soundOn();
    // a speaker, with sound waves or crossed out (drawn: no emoji font needed)
    b.innerHTML = `<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M4 9h4l5-4v14l-5-4H4z" fill="currentColor"/>${on ? '<path d="M16 9a4 4 0 0 1 0 6M18.5 6.5a8 8 0 0 1 0 11"/>' : '<path d="M16 9l6 6M22 9l-6 6"/>'}</svg>`;
    b.setAttribute("aria-pressed", String(!on));
    b.title = on ? t("common:sound.mute") : t("common:sound.unmute");
    b.setAttribute("aria-label", b.title);
  };
  b.addEventListener("click", () => {
    setPref("mute", soundOn());
    show();
  });
  show();
  return b;
}

// -- colour-blind-safe palette (boards): a class on <html> the board drawing reads ---------
export function safePalette() {
  return !!getPref("safePalette", false);
}

function paletteSwitch() {
  const label = document.createElement("label");
  label.className = "pref-switch palette-switch";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = "safe-palette";
  box.checked = safePalette();
  box.addEventListener("change", () => {
    setPref("safePalette", box.checked);
    document.documentElement.classList.toggle("safe-palette", box.checked);
  });
  label.append(box, " ", t("common:palette.label"));
  label.title = t("common:palette.title");
  return label;
}

// Apply the settings and put their switches in the header: the theme always, the sound switch
// where the page plays sounds, the palette where boards are drawn.
export function initPrefs({ sound = false, palette = false } = {}) {
  applyTheme();
  document.documentElement.classList.toggle("safe-palette", safePalette());
  const host = document.querySelector("header.top");
  if (!host || host.querySelector(".prefs")) return;
  const box = document.createElement("span");
  box.className = "prefs";
  if (palette) {
    const tools = document.querySelector(".board-tools");
    (tools || box).appendChild(paletteSwitch());
  }
  if (sound) box.appendChild(soundSwitch());
  box.appendChild(themeSwitch());
  const lang = host.querySelector(".lang-switch");
  if (lang) host.insertBefore(box, lang);
  else host.appendChild(box);
}

applyTheme();
