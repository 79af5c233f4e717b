// The game page's side panel: the status line, the seats (names, connection dots, clocks, scores),
// the game's table of values per player, and the AI's thinking indicator.
import { applyStyles } from "./styles.js";
import { escapeHtml } from "./api.js";
import { decorations, panelRows, safeGlyph, statusText } from "./decorate.js";
import { correspondenceHtml, isCorrespondence } from "./deadline.js";
import { currentLanguage, t } from "./i18n.js";
import { safePalette } from "./prefs.js";
import { clockLeft, firstMoveLeft, fmtClock } from "./game-clocks.js";
import { $, mySeats, playerName, seatName, SIMULTANEOUS, ui } from "./game-state.js";

const tr = t; // where a local "t" (the AI's report) hides the translation function

export function currentLocale() {
  return currentLanguage();
}

export function renderStatus(v, desc) {
  const status = statusText(desc);
  let text = status;
  if (ui.replay !== null) {
    text = t("game:replay_status", { n: ui.replay, total: v.moves.length });
    if (v.status === "active") text += ` — ${t("game:replay_back")}`;
  }
  else if (v.status === "active" && v.you !== null) {
    if (v.to_move === v.you) text = `${status} — ${t("game:your_turn")}`;
    else if (v.to_move === SIMULTANEOUS) {
      const o = desc.order;
      text = o && o.submitted ? t("game:order_sealed_waiting") : t("game:give_orders");
    } else if (v.to_move >= 0) {
      const s = v.seats[v.to_move];
      text = status + (s && s.kind === "ai" ? "" : ` — ${t("game:waiting_opponent")}`);
    }
  }
  $("status").textContent = text;
  $("status").dataset.turn = v.status === "active" && (v.to_move === v.you || (v.to_move === SIMULTANEOUS && desc.order && !desc.order.submitted)) ? "yours" : "";
}

export function seatLabel(desc, s) {
  const raw = desc.players && desc.players[s.seat] && desc.players[s.seat].name;
  return s.name === raw ? playerName(desc, s.seat) : `${playerName(desc, s.seat)}: ${seatName(s)}`;
}

export function renderSeats(v, desc) {
  const rows = v.seats.map((s) => {
    const p = s.seat;
    const color = (desc.players[p] && desc.players[p].color) || "#888";
    // the AI's default name already says its level: do not say it twice
    const who = s.kind === "ai" ? (s.name.includes(`AI level ${s.level}`) ? "" : t("game:ai_level", { level: s.level })) : s.claimed ? "" : t("game:seat_free");
    const you = (mySeats.includes(p) ? ` (${mySeats.length > 1 ? t("game:here") : t("game:you")})` : "") +
      (desc.players[p] && desc.players[p].resigned ? ` (${t("game:resigned")})` : ""); // four-player games go on without him
    const here = mySeats.includes(p) && document.body.dataset.conn === "online"; // hot-seat: every seat is here
    const conn = s.kind === "ai" ? "ai" : s.connected || here ? "on" : "off";
    const score = desc.scores ? `<span class="score" title="${escapeHtml(t("game:score"))}">${desc.scores[p]}</span>` : "";
    let clock = isCorrespondence(v.clock) ? correspondenceHtml(v, p) : v.clock ? `<span class="clock${v.clock.running.includes(p) ? " running" : ""}" data-seat="${p}">${fmtClock(clockLeft(v, p))}</span>` : "";
    // lichess-style: a player's clock starts with his first move; until then a countdown, then the game is aborted
    if (v.clock && !isCorrespondence(v.clock) && v.status === "active" && firstMoveLeft(v, p) !== null) {
      clock += `<span class="first-move" data-seat="${p}" title="${escapeHtml(t("game:first_move_title"))}">${escapeHtml(t("game:first_move", { time: fmtClock(firstMoveLeft(v, p)) }))}</span>`;
    }
    const sealed = v.sealed ? `<span class="sealed">${escapeHtml(t(v.sealed[p] ? "game:seat_sealed" : s.kind === "ai" ? "game:seat_thinking" : "game:seat_to_order"))}</span>` : "";
    const turn = v.status === "active" && (v.to_move === p || v.to_move === SIMULTANEOUS) ? " to-move" : "";
    return `<div class="seat${turn}" data-seat="${p}">
      <span class="swatch" data-bg="${escapeHtml(color)}"></span>
      <span class="name">${escapeHtml(seatLabel(desc, s))}${you}</span>
      <span class="who">${escapeHtml(who)}</span>
      <span class="dot dot-${conn}" title="${escapeHtml(t(conn === "on" ? "game:dot.on" : conn === "off" ? "game:dot.off" : "game:dot.ai"))}"></span>
      ${sealed}${score}${clock}
    </div>`;
  });
  $("seats").innerHTML = rows.join("");
  applyStyles($("seats"));
}

export function renderPanelTable(desc) {
  // one value per player: a column per player, headed by his name and colour; a single value spans them
  const n = (desc.players || []).length;
  const rowsIn = panelRows(desc);
  const deco = decorations(desc, { safePalette: safePalette() });
  const colour = (c) => deco.recolor.get(String(c || "").toLowerCase()) || c;
  const perPlayer = rowsIn.some((r) => r.values.length === n && n > 1);
  const head = perPlayer
    ? `<tr class="players"><th></th>${desc.players
        .map((p, i) => `<th scope="col"><span class="swatch small" data-bg="${escapeHtml(p.color || "#888")}"></span>${escapeHtml(playerName(desc, i))}</th>`)
        .join("")}</tr>`
    : "";
  const rows = rowsIn.map((r) => {
    const glyph = r.color && safePalette() ? safeGlyph(desc, r.color) : "";
    const sw = r.color ? `<span class="swatch small" data-bg="${escapeHtml(colour(r.color))}"></span>${glyph ? `<span class="glyph">${glyph}</span> ` : ""}` : "";
    const span = perPlayer && r.values.length === 1 ? ` colspan="${n}"` : "";
    return `<tr><th>${sw}${escapeHtml(r.label)}</th>${r.values.map((x) => `<td${span}>${escapeHtml(x)}</td>`).join("")}</tr>`;
  });
  $("panel-table").innerHTML = head + rows.join("");
  applyStyles($("panel-table"));
}

// -- the AI's thinking indicator: elapsed time against its budget for the turn, steps chosen, search depth --
export function onThinking(info) {
  ui.thinking = info;
  ui.thinkingAt = performance.now();
  renderThinking();
}

export function aiToMove(v) {
  if (!v || v.status !== "active") return null;
  if (v.to_move >= 0) return v.seats[v.to_move] && v.seats[v.to_move].kind === "ai" ? v.to_move : null;
  if (v.to_move === SIMULTANEOUS && v.sealed) {
    const s = v.seats.find((x) => x.kind === "ai" && !v.sealed[x.seat]);
    return s ? s.seat : null;
  }
  return null;
}

export function renderThinking() {
  const box = $("thinking");
  const v = ui.view;
  const p = aiToMove(v);
  if (p === null || ui.replay !== null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const t = ui.thinking && ui.thinking.player === p ? ui.thinking : null;
  const since = t ? ui.thinkingAt : ui.clockAt;
  const elapsed = (t ? t.elapsed : 0) + (performance.now() - since) / 1000;
  const loc = currentLocale();
  const parts = [tr("game:thinking.text", { name: playerName(v.render, p), seconds: elapsed.toFixed(1) })];
  if (t && t.budget) parts[0] += ` ${tr("game:thinking.budget", { seconds: t.budget < 1 ? t.budget.toFixed(2) : t.budget.toFixed(1) })}`;
  const detail = [];
  if (t && t.steps && t.steps.length) detail.push(tr("game:thinking.steps", { count: t.steps.length, steps: t.steps.join(" ") }));
  const st = t && t.stats ? t.stats : {};
  if (st.depth) detail.push(tr("game:thinking.depth", { depth: st.depth }));
  if (st.iterations) detail.push(tr("game:thinking.simulations", { n: st.iterations.toLocaleString(loc) }));
  if (st.nodes) detail.push(tr("game:thinking.positions", { n: st.nodes.toLocaleString(loc) }));
  $("thinking-text").textContent = parts[0];
  $("thinking-detail").textContent = detail.join(" · ");
  const bar = $("thinking-bar");
  bar.max = 1;
  bar.value = t && t.budget ? Math.min(1, elapsed / t.budget) : 0;
  bar.hidden = !(t && t.budget);
}
setInterval(renderThinking, 200);
