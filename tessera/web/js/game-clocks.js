// The game page's clocks: the time left of each seat (ticking locally between views), the
// first-move countdown, and the player's own clock warnings said aloud.
import { isCorrespondence } from "./deadline.js";
import { t } from "./i18n.js";
import { announce } from "./game-announce.js";
import { mySeats, ui } from "./game-state.js";

export function fmtClock(s) {
  s = Math.max(0, s);
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return `${m}:${String(sec).padStart(2, "0")}` + (s < 10 ? `.${Math.floor((s * 10) % 10)}` : "");
}

export function firstMoveLeft(v, p) {
  const f = v.clock && v.clock.first_move ? v.clock.first_move[p] : null;
  if (f === null || f === undefined) return null;
  return f - (v.status === "active" ? (performance.now() - ui.clockAt) / 1000 : 0);
}

export function clockLeft(v, p) {
  if (!v.clock) return null;
  let left = v.clock.remaining[p];
  if (v.status === "active" && v.clock.running.includes(p)) left -= (performance.now() - ui.clockAt) / 1000;
  return left;
}

// The clock warnings: the player's own clock passing 30 and 10 seconds is said once each.
const warned = new Map(); // seat -> the thresholds already said
export function clockWarnings(v) {
  if (!v || !v.clock || isCorrespondence(v.clock) || v.status !== "active") return;
  for (const s of mySeats) {
    const left = clockLeft(v, s);
    if (left === null || left === undefined) continue;
    const said = warned.get(s) || new Set();
    warned.set(s, said);
    for (const th of [30, 10]) {
      if (left > th + 1) said.delete(th); // the increment gave time back: say it again when it runs low again
      else if (th < v.clock.initial && left <= th && left > 0 && v.clock.running.includes(s) && !said.has(th)) {
        said.add(th);
        announce(t("board:clock_warning", { seconds: th }));
      }
    }
  }
}

// -- clocks tick locally -----------------------------------------------------------------
setInterval(() => {
  const v = ui.view;
  if (!v || !v.clock || v.status !== "active") return;
  for (const node of document.querySelectorAll(".clock[data-seat]")) {
    const left = clockLeft(v, Number(node.dataset.seat));
    node.textContent = fmtClock(left);
    node.classList.toggle("low", left < 10 && v.clock.running.includes(Number(node.dataset.seat)));
  }
  clockWarnings(v);
  for (const node of document.querySelectorAll(".first-move[data-seat]")) {
    node.textContent = t("game:first_move", { time: fmtClock(firstMoveLeft(v, Number(node.dataset.seat)) ?? 0) });
  }
}, 200);
