// The game page's shared state (game.js and its game-*.js modules): the game's id, this browser's
// seats and their tokens, what is shown (`ui`), and the small helpers every part uses.
import { api, saveSeats } from "./api.js";
import { colourName, textOf } from "./decorate.js";
import { t } from "./i18n.js";

export const SIMULTANEOUS = -2;
export const gameId = decodeURIComponent(location.pathname.split("/")[2] || "");
export const $ = (id) => document.getElementById(id);

// -- seat tokens from the link (#seat=1&t=TOKEN or #t0=..&t1=..) and this browser's storage --
export function tokensFromHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const tokens = {};
  if (params.get("t") && params.get("seat") !== null) tokens[params.get("seat")] = params.get("t");
  for (const [k, v] of params) {
    const m = /^t(\d+)$/.exec(k);
    if (m) tokens[m[1]] = v;
  }
  return tokens;
}
const stored = saveSeats(gameId, { tokens: tokensFromHash() });
export const tokens = stored.tokens; // {seat: token}
export const mySeats = Object.keys(tokens).map(Number).sort();

export const ui = {
  view: null, // the last view from the server
  shown: null, // the render description on the board
  sel: [], // cells clicked so far
  choice: null, // actions waiting for a number/choice
  order: null, // order builder {moveNumber, tokens: {unit: token}, current}
  replay: null, // null: live; else the move number shown
  replayTarget: null, // the move number a replay click asked for, until its position arrives
  busy: false,
  clockAt: 0,
  resignArmed: false,
  revealed: null, // hot-seat: "moveNumber|seat" whose secret order builder is shown
  error: "",
  thinking: null, // the AI's last progress report {player, budget, elapsed, steps, stats} and when it came
  thinkingAt: 0,
  drawNote: null, // an AI's answer to a draw offer {text, at: the view version it answers}
  orderWhy: "", // why the last click in the order builder did nothing
  kbd: false, // the last press on the board came from the keyboard: the focus goes back to it after a move
};

export function wsToken() {
  return mySeats.length ? tokens[mySeats[0]] : null;
}

// Views come by the WebSocket: a "state" message when it opens (also after a reconnection, so
// nothing pushed meanwhile is missed) and after every change. readView() is the one fallback, a
// GET of the same view, used only where the socket cannot bring it: at page start (before it
// opens), after a move whose view it did not bring within 2 s, and for a hot-seat seat other than
// the one the socket follows.
export function readView(token) {
  return api("GET", `/api/games/${gameId}`, undefined, token || undefined);
}

export function myToken() {
  const v = ui.view;
  if (v && v.you !== null && tokens[v.you] !== undefined) return tokens[v.you];
  return wsToken();
}

// Whether the view waits for a move of one of this browser's seats.
export function mine(view) {
  if (view.status !== "active" || view.you === null) return false;
  if (view.to_move === view.you) return true;
  return view.to_move === SIMULTANEOUS && !!view.sealed && mySeats.some((s) => !view.sealed[s]);
}

export function actions() {
  if (ui.replay !== null || !ui.view || ui.view.status !== "active") return [];
  return ui.shown.actions || [];
}

export function playerName(desc, p) {
  const seat = desc.players && desc.players[p];
  if (seat && seat.name_key) return textOf(seat, "name"); // the seat's name by its key
  return seat && seat.name ? colourName(seat.name) : t("game:player_n", { n: p });
}

// A seat's name: the game's colour name, with the player's own name when he gave one
// ("AI level 2" in the player's language).
export function seatName(s) {
  return String(s.name).replace(/AI level (\d+)/, (_, l) => t("game:ai_level", { level: l }));
}

export function button(label, onclick, cls = "") {
  const b = document.createElement("button");
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener("click", onclick);
  return b;
}

export function showError(text) {
  ui.error = text;
  const e = $("error");
  e.textContent = text;
  e.hidden = !text;
}

// The page is drawn again by game.js's renderAll (registered there): the parts call redraw().
let drawer = () => {};
export function onRedraw(fn) {
  drawer = fn;
}
export function redraw() {
  drawer();
}
