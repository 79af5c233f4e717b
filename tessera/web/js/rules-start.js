// The rules page's entry: its rulebook (kept out of the HTML: the Content-Security-Policy admits no inline script).
import { startRules } from "/static/js/rules.js";

startRules();
