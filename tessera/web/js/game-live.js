// The game page's connection: the WebSocket that brings the views (whole, then changes), its
// reconnection and keep-alive, receive() that takes a new view in (sounds, announcements, redraw),
// and the wait for a view at least as new as a move's acknowledgement.
import { show as showRematch } from "./rematch.js";
import { refusalText } from "./decorate.js";
import { ViewStream } from "./changes.js";
import { t } from "./i18n.js";
import { playSound } from "./prefs.js";
import { announceView } from "./game-announce.js";
import { onThinking, renderSeats } from "./game-panel.js";
import { $, gameId, mine, mySeats, readView, redraw, showError, SIMULTANEOUS, tokens, ui, wsToken } from "./game-state.js";

let ws = null;
let retry = 0;
let chat = null; // the chat panel (chat.js), mounted by game.js's start()
// the socket's views: the whole view once, then changes (light moves, docs/render.md); a gap asks it again
const stream = new ViewStream(
  (view) => receive(view),
  () => {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "refresh" }));
  },
);

export function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const tok = wsToken();
  const url = `${proto}://${location.host}/api/games/${encodeURIComponent(gameId)}/ws?changes=1`;
  // the seat token travels as a subprotocol, never in the URL (which access logs write)
  ws = tok ? new WebSocket(url, ["tessera.seat", `seat.${tok}`]) : new WebSocket(url);
  setConn("connecting");
  stream.reset();
  ws.onopen = () => {
    retry = 0;
    setConn("online");
    if (ui.error === t("common:no_connection")) showError("");
    if (chat) chat.reload(); // messages posted while the socket was closed
  };
  ws.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.type === "state") stream.state(msg.view);
    else if (msg.type === "change") stream.change(msg);
    else if (msg.type === "pong") stream.behind(msg.version);
    else if (msg.type === "presence") presence(msg.connected);
    else if (msg.type === "ai") onThinking(msg.thinking);
    else if (msg.type === "chat" && chat) chat.push(msg.message);
    else if (msg.type === "error") showError(msg.detail);
    else if (msg.type === "rematch") showRematch(msg.rematch); // this seat's own view of a rematch offer
  };
  ws.onclose = () => {
    setConn("offline");
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, 300 * 2 ** retry);
  };
}
// A seat's connection came or went: only the dots of the seats panel change.
export function presence(connected) {
  const v = ui.view;
  if (!v || !ui.shown) return;
  for (const s of v.seats) s.connected = s.seat < connected.length && connected[s.seat];
  renderSeats(v, ui.shown);
}
export function setConn(s) {
  const node = $("conn");
  node.textContent = s === "online" ? t("game:conn.live") : s === "connecting" ? t("game:conn.connecting") : t("game:conn.reconnecting");
  node.className = "conn conn-" + s;
  document.body.dataset.conn = s;
}
setInterval(() => {
  if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "ping" }));
}, 25000);

// In hot-seat this browser holds every seat: show the view of the seat that must act.
export function wantedSeat(view) {
  if (mySeats.length < 2 || view.status !== "active") return view.you;
  if (view.to_move >= 0) return view.to_move;
  if (view.to_move === SIMULTANEOUS && view.sealed) {
    const p = mySeats.find((s) => !view.sealed[s]);
    return p === undefined ? view.you : p;
  }
  return view.you;
}

export async function receive(view) {
  // views can arrive out of order (a POST answer after a push of the next move): keep the newest
  if (ui.view && view.version < ui.view.version) return;
  const want = wantedSeat(view);
  if (want !== view.you && want !== null && tokens[want] !== undefined) {
    try {
      view = await readView(tokens[want]);
      if (ui.view && view.version < ui.view.version) return;
    } catch (e) {
      showError(refusalText(e));
    }
  }
  const old = ui.view;
  if (!old || old.move_number !== view.move_number || old.you !== view.you || old.status !== view.status) {
    ui.sel = [];
    ui.choice = null;
    ui.orderWhy = "";
  }
  soundFor(old, view);
  ui.view = view;
  ui.clockAt = performance.now();
  // looking back during a game stays where the player is until he returns (▶| or the last move)
  if (ui.replay !== null && ui.replay >= view.moves.length) ui.replay = null;
  if (ui.replay === null) ui.shown = view.render;
  document.title = `${view.title} — tessera`;
  if (chat) chat.view(view);
  redraw();
  announceView(old, view);
  viewArrived();
  window.dispatchEvent(new CustomEvent("tessera:view", { detail: { id: view.id, version: view.version } })); // notify.js
}

// Sounds: the end of the game, the player's turn coming back to him, any other move.
export function soundFor(old, view) {
  if (!old || view.version <= old.version) return;
  if (old.status === "active" && view.status !== "active") return playSound("end");
  if (view.move_number === old.move_number) return;
  const lastMove = view.moves[view.moves.length - 1];
  const byOther = lastMove && !mySeats.includes(lastMove.player);
  if (mine(view) && (byOther || !mine(old) || mySeats.length > 1)) return playSound("turn");
  playSound("move");
}

// A move is answered by its acknowledgement and the change of the seat's view (applied in submit());
// the socket brings the change too (rendered once
// for this browser). submit() waits for a view at least as new as the acknowledged version.
const awaited = [];
export function viewArrived() {
  for (let i = awaited.length - 1; i >= 0; i--) {
    if (ui.view && ui.view.version >= awaited[i].version) awaited.splice(i, 1)[0].resolve(true);
  }
}
export function viewAfter(version, ms) {
  if (ui.view && ui.view.version >= version) return Promise.resolve(true);
  return new Promise((resolve) => {
    const w = { version, resolve };
    awaited.push(w);
    setTimeout(() => {
      const i = awaited.indexOf(w);
      if (i >= 0) awaited.splice(i, 1)[0].resolve(false);
    }, ms);
  });
}

// Whether the socket is open now (a move's view may then come by it).
export function socketOpen() {
  return !!ws && ws.readyState === 1;
}

export function setChat(panel) {
  chat = panel;
}
