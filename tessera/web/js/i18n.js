// Translations of the client: i18next (vendored as a plain script, no build step) over JSON catalogues
// at /static/locales/<lang>/<namespace>.json.
//
//   await initI18n(["lobby"]);          // loads "common" and "lobby" in the player's language (+ English)
//   t("lobby:create")                   // "Create game" / "게임 만들기" / …
//   t("common:turn", { n: 36 })         // i18next interpolation: "Turn {{n}}"
//
// The language: the one chosen with the switcher (kept in localStorage), else the first of the
// browser's languages that has a catalogue, else English. A key missing in a language falls back to
// English. In the HTML, elements carry their key: data-i18n="ns:key" (text), data-i18n-html (trusted
// markup from the catalogue), data-i18n-title / data-i18n-placeholder / data-i18n-aria-label (attributes);
// translateDom() fills them, and initI18n() does it once for the whole page.

// No form of the site submits natively (each page's script sends it): until a page's script has
// wired a form, pressing its button must not reload the page with the fields in the address.
document.addEventListener(
  "submit",
  (e) => {
    if (!e.target.hasAttribute("action") && !e.target.hasAttribute("method")) e.preventDefault();
  },
  true,
);

export const LANGUAGES = { en: "English", ko: "한국어", es: "Español", de: "Deutsch", fr: "Français" };
export const FALLBACK = "en";
const STORE_KEY = "tessera:lang";
const SCRIPT = "/static/vendor/i18next.min.js";

let loaded = [];
let ready = null;
let markReady;
const whenReady = new Promise((resolve) => (markReady = resolve));

// A promise of i18next once the page's own initI18n() has finished, whichever module asks first.
export function i18nReady() {
  return whenReady;
}

function i18next() {
  return globalThis.i18next;
}

function loadScript(src) {
  if (i18next()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.appendChild(s);
  });
}

function stored() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

// The language to show: ?lang=xx in the address, the stored choice, the browser's languages, English.
export function detectLanguage() {
  const fromUrl = new URLSearchParams(location.search).get("lang");
  const wanted = [fromUrl, stored(), ...(navigator.languages || [navigator.language])];
  for (const w of wanted) {
    if (!w) continue;
    const base = String(w).toLowerCase().split(/[-_]/)[0];
    if (base in LANGUAGES) return base;
  }
  return FALLBACK;
}

async function fetchCatalogue(lng, ns) {
  try {
    const res = await fetch(`/static/locales/${lng}/${ns}.json`);
    if (!res.ok) return null;
    return await res.json();
  } catch {
    return null;
  }
}

async function resourcesFor(lngs, namespaces) {
  const resources = {};
  await Promise.all(
    lngs.flatMap((lng) =>
      namespaces.map(async (ns) => {
        const data = await fetchCatalogue(lng, ns);
        if (data) ((resources[lng] ||= {})[ns] = data);
      }),
    ),
  );
  return resources;
}

// Load i18next, the catalogues of `namespaces` (plus "common") in the player's language and English,
// translate the page's data-i18n elements, and put a language switcher in the page's header.
export function initI18n(namespaces = []) {
  if (ready) return ready;
  ready = (async () => {
    // "refusals": the server's refused requests, which any page can meet (decorate.js refusalText);
    // "board": the words of the board for the keyboard and screen readers (board.js), on any page
    const ns = [...new Set(["common", "board", "refusals", ...namespaces])];
    const lng = detectLanguage();
    const [, resources] = await Promise.all([loadScript(SCRIPT), resourcesFor([...new Set([lng, FALLBACK])], ns)]);
    await i18next().init({
      lng,
      fallbackLng: FALLBACK,
      supportedLngs: Object.keys(LANGUAGES),
      ns,
      defaultNS: ns[ns.length - 1],
      fallbackNS: "common",
      resources,
      interpolation: { escapeValue: false }, // the client puts text with textContent, or escapes itself
      returnNull: false,
    });
    loaded = ns;
    document.documentElement.lang = lng;
    keepTheme();
    translateDom(document);
    mountSwitcher();
    markReady(i18next());
    return i18next();
  })();
  return ready;
}

// Every translated page follows the theme chosen in prefs.js (its switch is on the lobby, game and
// analysis pages): "light" or "dark" on <html>, nothing for the system's own.
function keepTheme() {
  try {
    const theme = JSON.parse(localStorage.getItem("tessera:pref:theme") || '"auto"');
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch {
    /* no storage: the system's theme */
  }
}

// The translation of `key` ("ns:key" or a key of the page's namespace), with i18next's options
// (interpolation values, count for plurals, defaultValue).
export function t(key, options) {
  const i = i18next();
  if (!i || !i.isInitialized) return options && options.defaultValue !== undefined ? options.defaultValue : key;
  return i.t(key, options);
}

// Whether a key exists (in the current language or the English fallback).
export function hasKey(key) {
  const i = i18next();
  return !!(i && i.isInitialized && i.exists(key));
}

export function currentLanguage() {
  const i = i18next();
  return (i && i.isInitialized && i.language) || detectLanguage();
}

// A number written as the page's language writes it ("1,5" in German and French, "1.5" in English);
// opts are Intl.NumberFormat's (maximumFractionDigits …). Not a finite number: returned as it is.
export function fmtNumber(n, opts = {}) {
  const x = Number(n);
  if (n === null || n === undefined || n === "" || !Number.isFinite(x)) return String(n ?? "");
  try {
    return new Intl.NumberFormat(currentLanguage(), opts).format(x);
  } catch {
    return String(x);
  }
}

// A rating as players read it: a whole number without grouping ("1500", not "1,500"), in the page's digits.
export function fmtRating(n) {
  const x = Number(n);
  return Number.isFinite(x) ? fmtNumber(Math.round(x), { useGrouping: false }) : String(n ?? "");
}

// Choose a language: kept in localStorage; the page is shown again in it (reload: every text,
// including those built by scripts, in one consistent language). With {reload: false} the
// catalogues are swapped in place, data-i18n elements re-translated and "tessera:language" dispatched.
export async function setLanguage(lng, { reload = true } = {}) {
  if (!(lng in LANGUAGES)) throw new Error(`unknown language ${lng}; one of ${Object.keys(LANGUAGES).join(", ")}`);
  try {
    localStorage.setItem(STORE_KEY, lng);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
  if (reload) {
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url.toString());
    return;
  }
  const i = i18next();
  const resources = await resourcesFor([lng], loaded);
  for (const [ns, data] of Object.entries(resources[lng] || {})) i.addResourceBundle(lng, ns, data, true, true);
  await i.changeLanguage(lng);
  document.documentElement.lang = lng;
  translateDom(document);
  const sel = document.querySelector(".lang-switch select");
  if (sel) sel.value = lng;
  window.dispatchEvent(new CustomEvent("tessera:language", { detail: lng }));
}

const ATTRS = ["title", "placeholder", "aria-label"];

// Fill the elements under `root` that carry data-i18n keys.
export function translateDom(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-html]")) el.innerHTML = t(el.dataset.i18nHtml);
  for (const attr of ATTRS) {
    const data = `data-i18n-${attr}`;
    for (const el of root.querySelectorAll(`[${data}]`)) el.setAttribute(attr, t(el.getAttribute(data)));
  }
}

// A <select> of the languages, each in its own name.
export function languageSwitcher() {
  const label = document.createElement("label");
  label.className = "lang-switch";
  const sel = document.createElement("select");
  sel.setAttribute("aria-label", t("common:language"));
  sel.title = t("common:language");
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const o = document.createElement("option");
    o.value = code;
    o.textContent = name;
    o.lang = code;
    sel.appendChild(o);
  }
  sel.value = currentLanguage();
  sel.addEventListener("change", () => setLanguage(sel.value));
  label.appendChild(sel);
  return label;
}

// Into the element marked data-lang-switch, else at the end of the page's header.
function mountSwitcher() {
  if (document.querySelector(".lang-switch")) return;
  const host = document.querySelector("[data-lang-switch]") || document.querySelector("header.top");
  if (host) host.appendChild(languageSwitcher());
}
