// The rules page's entry: its rulebook (kept out of the HTML: the Content-Security-Policy admits no inline script),
// and the theme switch in its header as on every page (once the translations are in).
import { initPrefs } from "/static/js/prefs.js";
import { startRules } from "/static/js/rules.js";

startRules().finally(() => initPrefs());
