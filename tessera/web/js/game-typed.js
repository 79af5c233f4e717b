// The game page's typed move (a board for everyone): the form under the board takes a move in the
// game's notation, with an example of one open now.
import { t } from "./i18n.js";
import { curtain } from "./game-order.js";
import { submit } from "./game-play.js";
import { $, mine, mySeats, showError, ui } from "./game-state.js";

// An example of the game's notation for the typed move: one of the moves open now.
export function moveExample(desc, o) {
  if (o) return o.units.map((u) => u.default || (u.choices[0] && u.choices[0].token) || "").filter(Boolean).join(o.separator || " ");
  const a = (desc.actions || []).find((x) => x.move !== undefined || x.template);
  if (!a) return "";
  if (a.move !== undefined) return a.move;
  const n = a.number ? a.number[0] : a.choices ? a.choices[0] : 1;
  return a.template.replace("{n}", String(n));
}

export function renderMoveForm(v, desc, o) {
  const form = $("move-form");
  form.hidden = !(v.status === "active" && mySeats.length && ui.replay === null && !curtain() && !(desc.order && desc.order.submitted));
  if (form.hidden) return;
  const example = mine(v) ? moveExample(desc, o) : "";
  $("move-help").textContent = example ? t("board:move_help", { example }) : t("board:move_help_plain");
}

export async function playTyped(e) {
  e.preventDefault();
  const input = $("move-input");
  const move = input.value.trim().replace(/\s+/g, " ");
  if (!move) return showError(t("board:move_empty"));
  if (!mine(ui.view)) return showError(t("board:not_your_turn"));
  ui.kbd = false;
  await submit(move);
  if (!ui.error) input.value = ""; // a refused move stays, to be mended
  input.focus();
}
