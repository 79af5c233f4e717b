// The learn page's entry: its lessons (kept out of the HTML: the Content-Security-Policy admits no inline script),
// and the theme switch in its header as on every page (once the translations are in).
import { startLearn } from "/static/js/learn.js";
import { initPrefs } from "/static/js/prefs.js";

startLearn().finally(() => initPrefs());
