// The game page's controls of a seat during the game: undo (asked and answered), resign, abort, draw
// offers (made and answered), and the invitation links of free seats or the button to join.
import { api, escapeHtml, loadSeats } from "./api.js";
import { refusalText } from "./decorate.js";
import { t } from "./i18n.js";
import { act } from "./game-play.js";
import { $, button, gameId, mySeats, playerName, redraw, seatName, showError, tokens, ui } from "./game-state.js";

export function renderControls(v) {
  const box = $("controls");
  box.innerHTML = "";
  if (v.status !== "active" || ui.replay !== null) return;
  if (!mySeats.length) {
    // spectators see a pending draw offer too (it is pushed to every viewer)
    if (v.draw_offer !== null && v.draw_offer !== undefined) {
      const p = document.createElement("div");
      p.className = "undo-request";
      p.id = "draw-offer";
      p.textContent = t("game:draw.offers", { name: seatName(v.seats[v.draw_offer]) });
      box.appendChild(p);
    }
    return;
  }
  renderDrawOffer(v, box);
  renderUndoRequest(v, box);
  const undo = button(v.mode === "online" ? t("game:ask_undo") : t("game:undo_button"), () => act("undo"));
  undo.id = "undo";
  undo.disabled = !v.moves.length;
  const resign = button(ui.resignArmed ? t("game:really_resign") : t("game:resign"), () => {
    if (!ui.resignArmed) {
      ui.resignArmed = true;
      redraw();
      setTimeout(() => {
        ui.resignArmed = false;
        redraw();
      }, 4000);
    } else {
      ui.resignArmed = false;
      act("resign");
    }
  }, ui.resignArmed ? "danger" : "");
  resign.id = "resign";
  box.append(undo, resign);
  if (v.abortable) {
    // until every seat has moved (the server's rule, any game): the game ends with no result
    const abort = button(t("game:abort"), () => act("abort"));
    abort.id = "abort";
    abort.title = t("game:abort_title");
    box.append(abort);
  }
  if (v.draws && (v.draw_offer === null || v.draw_offer === undefined)) {
    const offer = button(t("game:draw.offer"), () => act("draw"));
    offer.id = "offer-draw";
    box.append(offer);
  }
}

// Undo requests (online): every other human seat still in the game answers (v.undo_waiting);
// AI seats agree by themselves.  This screen answers for the first of its seats still asked.
export function renderUndoRequest(v, box) {
  const asker = v.undo_request;
  if (asker === null || asker === undefined) return;
  const waiting = v.undo_waiting || [];
  const p = document.createElement("div");
  p.className = "undo-request";
  p.id = "undo-request";
  const answerer = mySeats.find((s) => s !== asker && waiting.includes(s));
  const names = waiting.map((s) => seatName(v.seats[s])).join(", ");
  const many = v.seats.length > 2;
  if (answerer !== undefined) {
    const as = mySeats.length > 1 ? ` ${t("game:undo.answer_as", { name: seatName(v.seats[answerer]) })}` : "";
    p.textContent = `${many ? t("game:undo.asks", { name: seatName(v.seats[asker]) }) : t("game:undo.opponent_asks")}${as} `;
    const yes = button(t("game:accept"), () => act("undo/accept", tokens[answerer]), "primary");
    yes.id = "undo-accept";
    const no = button(t("game:decline"), () => act("undo/decline", tokens[answerer]));
    no.id = "undo-decline";
    p.append(yes, no);
  } else if (mySeats.includes(asker)) {
    p.textContent = many
      ? t("game:undo.you_asked_all", { names: names || t("game:the_others") })
      : t("game:undo.you_asked");
  } else {
    p.textContent = t("game:undo.other_asked", { name: seatName(v.seats[asker]), names: names || t("game:the_others") });
  }
  box.appendChild(p);
}

// Draw offers (games whose rules allow a draw): the opponent answers, or lets it lapse by moving.
export function renderDrawOffer(v, box) {
  const offer = v.draw_offer;
  if (offer !== null && offer !== undefined) {
    const p = document.createElement("div");
    p.className = "undo-request";
    p.id = "draw-offer";
    const answerer = mySeats.find((s) => s !== offer); // online: my seat; hot-seat: the other player
    if (answerer !== undefined) {
      p.textContent = `${mySeats.length > 1 ? t("game:draw.offers_to", { name: seatName(v.seats[offer]), to: seatName(v.seats[answerer]) }) : t("game:draw.offers", { name: seatName(v.seats[offer]) })} `;
      const yes = button(t("game:draw.accept"), () => act("draw/accept", tokens[answerer]), "primary");
      yes.id = "draw-accept";
      const no = button(t("game:decline"), () => act("draw/decline", tokens[answerer]));
      no.id = "draw-decline";
      p.append(yes, no);
      p.append(document.createTextNode(` ${t("game:draw.move_declines")}`));
    } else {
      p.textContent = t("game:draw.you_offered");
    }
    box.appendChild(p);
  } else if (ui.drawNote && ui.drawNote.at === v.version) {
    const p = document.createElement("div");
    p.className = "undo-request";
    p.id = "draw-offer";
    p.textContent = ui.drawNote.text;
    box.appendChild(p);
  }
}

export function renderInvite(v) {
  const box = $("invite");
  box.innerHTML = "";
  const free = v.seats.filter((s) => s.kind === "human" && !s.claimed);
  if (v.status !== "active" || !free.length) return;
  const invites = loadSeats(gameId).invites || {};
  for (const s of free) {
    if (invites[s.seat]) {
      const url = new URL(invites[s.seat], location.origin).href;
      const div = document.createElement("div");
      div.className = "invite";
      div.innerHTML = `${escapeHtml(t("game:invite", { name: playerName(v.render, s.seat) }))} <input readonly value="${escapeHtml(url)}" id="invite-${s.seat}">`;
      div.appendChild(button(t("game:copy"), () => navigator.clipboard && navigator.clipboard.writeText(url)));
      box.appendChild(div);
    }
  }
  if (!mySeats.length && v.public) {
    box.appendChild(button(t("game:join"), async () => {
      try {
        const r = await api("POST", `/api/games/${gameId}/join`);
        location.replace(r.link);
        location.reload();
      } catch (e) {
        showError(refusalText(e));
      }
    }, "primary"));
  }
}
