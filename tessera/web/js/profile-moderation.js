// A profile's block and report controls (/u/<name>, for a logged-in visitor other than the player;
// docs/moderation.md): block or unblock the player (PUT/DELETE /api/blocks/<name>), and report him
// with a reason from the fixed list and a text (POST /api/reports).
import { api } from "./api.js";
import { refusalText } from "./decorate.js";
import { initI18n, t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

async function start() {
  const card = $("moderation-card");
  const parts = location.pathname.split("/");
  if (!card || parts[1] !== "u" || !parts[2]) return;
  const name = decodeURIComponent(parts[2]);
  await initI18n(["moderation"]);
  let me;
  let profile;
  try {
    [me, profile] = await Promise.all([
      api("GET", "/api/session").then((r) => r.account), // null for a guest (no 401)
      api("GET", `/api/users/${encodeURIComponent(name)}`),
    ]);
  } catch {
    return; // a guest, or no such player: nothing to block or report
  }
  if (!me || me.username.toLowerCase() === profile.username.toLowerCase()) return;
  const status = $("moderation-status");
  const blockButton = $("block");
  let blocked = (await api("GET", "/api/blocks")).blocks.some((b) => b.toLowerCase() === profile.username.toLowerCase());
  const showBlock = () => {
    blockButton.textContent = t(blocked ? "moderation:unblock" : "moderation:block");
    blockButton.setAttribute("aria-pressed", String(blocked));
  };
  showBlock();
  blockButton.addEventListener("click", async () => {
    try {
      await api(blocked ? "DELETE" : "PUT", `/api/blocks/${encodeURIComponent(profile.username)}`);
      blocked = !blocked;
      showBlock();
      status.textContent = t(blocked ? "moderation:blocked" : "moderation:unblocked", { name: profile.username });
    } catch (e) {
      status.textContent = refusalText(e);
    }
  });
  $("report-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api("POST", "/api/reports", {
        username: profile.username,
        reason: $("report-reason").value,
        text: $("report-text").value,
      });
      $("report-text").value = "";
      status.textContent = t("moderation:reported", { name: profile.username });
    } catch (e) {
      status.textContent = refusalText(e);
    }
  });
  card.hidden = false;
}

start();
