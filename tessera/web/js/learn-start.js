// The learn page's entry: its lessons (kept out of the HTML: the Content-Security-Policy admits no inline script).
import { startLearn } from "/static/js/learn.js";

startLearn();
