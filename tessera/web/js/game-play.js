// The game page's moves and requests: a move sent (and sent again when its answer did not come),
// its view applied from the acknowledgement's change, a seat's request (undo, resign, draw, abort),
// a ready-made set-up played step by step.
import { api, ApiError } from "./api.js";
import { refusalText } from "./decorate.js";
import { applyChange } from "./changes.js";
import { receive, socketOpen, viewAfter } from "./game-live.js";
import { gameId, myToken, readView, redraw, showError, ui } from "./game-state.js";

export async function submit(move) {
  const v = ui.view;
  if (!v || ui.busy) return;
  ui.busy = true;
  showError("");
  try {
    const ack = await postMove(move, v.move_number);
    ui.sel = [];
    ui.choice = null;
    // the answer carries the change of this seat's view: applied at once when it starts from the view shown
    const now = ui.view;
    if (ack.change && now && now.you === ack.you && now.version === ack.change.from) {
      try {
        const next = applyChange(now, ack.change.ops);
        next.version = ack.change.version;
        await receive(next);
      } catch {
        /* a change that does not fit: the socket's view (or the read below) brings it */
      }
    }
    // the new view comes by the socket; without one (or if it is slow) it is read here
    const live = socketOpen();
    if (!(live && (await viewAfter(ack.version, 2000)))) {
      await receive(await readView(myToken()));
    }
  } catch (e) {
    showError(refusalText(e)); // a refused move in the player's language (its key and args)
    ui.sel = [];
    ui.choice = null;
    redraw();
  } finally {
    ui.busy = false;
  }
}

// A move whose answer did not come (no connection, storage unavailable: 503, too many requests: 429,
// a proxy's 502/504) is sent again, the same move with the same expected move number, so a retry can
// never play it twice: if the first attempt was stored after all, the server refuses the retry as stale
// (409) and the view read then shows the move played.  Meanwhile the page says "reconnecting".
const RETRY_STATUSES = new Set([0, 429, 502, 503, 504]);
const MOVE_ATTEMPTS = 6;

export async function postMove(move, expected) {
  const body = { token: myToken(), move, expected, view: false, change: true };
  let retried = false;
  for (let attempt = 1; ; attempt++) {
    try {
      const ack = await api("POST", `/api/games/${gameId}/moves`, body);
      if (retried) showError("");
      return ack;
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      if (retried && e.status === 409) {
        const now = await readView(myToken());
        if (now.move_number > expected) return { version: now.version }; // the first attempt was stored
      }
      if (!RETRY_STATUSES.has(e.status) || attempt >= MOVE_ATTEMPTS) throw e;
      retried = true;
      const wait = Math.min(10, e.retryAfter || Math.min(8, 0.5 * 2 ** (attempt - 1)));
      showError(`Reconnecting… (${e.detail}) — your move is sent again in ${Math.ceil(wait)} s.`);
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
  }
}

export async function act(what, token) {
  showError("");
  try {
    const view = await api("POST", `/api/games/${gameId}/${what}`, { token: token || myToken() });
    ui.order = null;
    if (view.draw_answer && view.draw_answer !== "accepted") ui.drawNote = { text: `${view.draw_answer}.`, at: view.version };
    await receive(view);
  } catch (e) {
    showError(refusalText(e));
  }
}

// Play the steps of a ready-made set-up one after the other (each is checked by the server).
export async function placeSetup(moves) {
  for (const m of moves) {
    await submit(m);
    if (ui.error) break;
  }
}
