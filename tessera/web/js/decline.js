// Declining a challenge with a reason, in the page (no window.prompt): a small form under the
// challenge's line with the reasons a challenger is told in his own language (the keys of the
// server's DECLINE_REASONS, as lichess's), or none, then "Decline" or "Keep".
//
//   const reason = await askDeclineReason(li);  // a reason key, "" for none, or null when kept

import { escapeHtml } from "./api.js";
import { declineText, loadBotCatalogue } from "./bots.js";
import { t } from "./i18n.js";

export const DECLINE_KEYS = ["generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "variant"];

let forms = 0;

export async function askDeclineReason(host) {
  await loadBotCatalogue();
  const old = host.querySelector(".decline-form");
  if (old) old.remove();
  const id = `decline-reason-${++forms}`;
  const form = document.createElement("form");
  form.className = "decline-form";
  const options = [`<option value="">${escapeHtml(t("account:decline_no_reason"))}</option>`]
    .concat(DECLINE_KEYS.map((k) => `<option value="${k}">${escapeHtml(declineText(k))}</option>`))
    .join("");
  form.innerHTML =
    `<label for="${id}">${escapeHtml(t("account:decline_reason"))}</label> ` +
    `<select id="${id}" name="reason">${options}</select> ` +
    `<button type="submit" class="decline-confirm">${escapeHtml(t("account:decline"))}</button> ` +
    `<button type="button" class="decline-keep">${escapeHtml(t("account:decline_keep"))}</button>`;
  host.appendChild(form);
  form.querySelector("select").focus();
  return new Promise((resolve) => {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const reason = form.reason.value;
      form.remove();
      resolve(reason);
    });
    form.querySelector(".decline-keep").addEventListener("click", () => {
      form.remove();
      resolve(null);
    });
  });
}
