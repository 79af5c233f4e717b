// The game page's prompt under the board: a sealed order, the hot-seat curtain, the number or choice
// a clicked path asks for, a turn that goes on, ready-made set-ups, the game's hint, the buttons of
// the moves that are not on the board.
import { escapeHtml } from "./api.js";
import { actionLabel, textOf } from "./decorate.js";
import { t } from "./i18n.js";
import { curtain, renderOrderBuilder } from "./game-order.js";
import { placeSetup, submit } from "./game-play.js";
import { $, actions, button, playerName, redraw, showError, ui } from "./game-state.js";

export function renderPrompt(v, desc, o, b) {
  const box = $("prompt");
  // a number being typed outlives the drawing (a view that arrives, a setting changed): the same
  // question keeps the player's digits, and the focus if he was typing
  const typing = box.querySelector("#number-input");
  const kept = typing && { template: typing.dataset.template, value: typing.value, focused: document.activeElement === typing };
  box.innerHTML = "";
  if (ui.replay !== null || v.status !== "active") return;
  if (desc.order && desc.order.submitted) {
    const p = document.createElement("p");
    p.className = "sealed-order";
    p.innerHTML = `${escapeHtml(t("game:order_sealed"))} <code>${escapeHtml(desc.order.pending || "")}</code>`;
    box.appendChild(p);
    return;
  }
  if (o && b) return renderOrderBuilder(box, o, b);
  if (curtain()) {
    const p = document.createElement("p");
    p.className = "curtain";
    p.textContent = t("game:pass_device", { name: playerName(desc, v.you) });
    const bt = button(t("game:show_orders", { name: playerName(desc, v.you) }), () => {
      ui.revealed = `${v.move_number}|${v.you}`;
      redraw();
    }, "primary");
    bt.id = "reveal";
    p.appendChild(bt);
    box.appendChild(p);
    return;
  }
  // number / choice for the clicked path
  if (ui.choice) {
    const wrap = document.createElement("div");
    wrap.className = "choice";
    const head = document.createElement("div");
    head.textContent = t("game:on_cells", { cells: ui.sel.join(" → ") });
    wrap.appendChild(head);
    for (const a of ui.choice) {
      if (a.number) {
        const [lo, hi] = a.number;
        const input = document.createElement("input");
        input.type = "number";
        input.inputMode = "numeric";
        input.min = lo;
        input.max = hi;
        input.value = Math.min(hi, Math.max(lo, 1));
        input.id = "number-input";
        input.dataset.template = a.template;
        if (kept && kept.template === a.template) input.value = kept.value;
        input.setAttribute("aria-label", t("game:number_range", { lo, hi }));
        // a phone: − / + and a slider, no keyboard needed; the typed value is checked by the server
        const step = (d) => () => {
          const now = parseInt(input.value, 10);
          input.value = String(Math.min(hi, Math.max(lo, (Number.isNaN(now) ? lo : now) + d)));
          slider.value = input.value;
        };
        const minus = button("−", step(-1), "step-btn");
        minus.id = "number-minus";
        minus.setAttribute("aria-label", t("game:one_less"));
        const plus = button("+", step(1), "step-btn");
        plus.id = "number-plus";
        plus.setAttribute("aria-label", t("game:one_more"));
        const slider = document.createElement("input");
        slider.type = "range";
        slider.min = lo;
        slider.max = hi;
        slider.value = input.value;
        slider.id = "number-slider";
        slider.setAttribute("aria-label", t("game:number_range", { lo, hi }));
        slider.addEventListener("input", () => {
          input.value = slider.value;
        });
        input.addEventListener("input", () => {
          slider.value = input.value;
        });
        const ok = button(t("game:place"), () => {
          const n = input.value.trim();
          if (!/^-?\d+$/.test(n)) return showError(t("game:whole_number", { lo, hi }));
          submit(a.template.replace("{n}", String(parseInt(n, 10))));
        }, "primary");
        ok.id = "number-ok";
        input.addEventListener("keydown", (e) => {
          if (e.key === "Enter") ok.click();
        });
        const lab = document.createElement("label");
        lab.className = "number-row";
        lab.textContent = `${t("game:number_label", { lo, hi })} `;
        const row = document.createElement("div");
        row.className = "number-entry";
        row.append(minus, input, plus, ok);
        wrap.append(lab, row, slider);
        if (kept && kept.template === a.template) {
          if (kept.focused) setTimeout(() => input.focus(), 0); // once the prompt is in the page
        } else if (!matchMedia("(pointer: coarse)").matches) setTimeout(() => input.select(), 0);
      } else if (a.choices) {
        const row = document.createElement("div");
        row.className = "choices";
        for (const c of a.choices) {
          const bt = button(String(c), () => submit(a.template.replace("{n}", String(c))), "choice-btn");
          bt.dataset.value = String(c);
          row.appendChild(bt);
        }
        wrap.appendChild(row);
      } else if (a.move !== undefined) {
        wrap.appendChild(button(actionLabel(a), () => submit(a.move), "primary"));
      }
    }
    wrap.appendChild(button(t("game:cancel"), () => {
      ui.sel = [];
      ui.choice = null;
      redraw();
    }));
    box.appendChild(wrap);
  }
  const buttons = actions().filter((a) => !a.path || !a.path.length);
  const lastMove = v.moves[v.moves.length - 1];
  if (!ui.choice && v.to_move === v.you && v.to_move >= 0 && lastMove && lastMove.player === v.you && actions().length) {
    // a multi-step turn (Nymbat, Nibble): the turn goes on until the player ends it
    const p = document.createElement("p");
    p.className = "continue-hint";
    const ends = buttons.filter((a) => /^end\b/i.test(a.label || a.move || ""));
    p.textContent = ends.length
      ? t("game:turn_goes_on_end", { button: actionLabel(ends[0]) })
      : t("game:turn_goes_on");
    box.appendChild(p);
  }
  if (!ui.choice && desc.setups && desc.setups.length && v.to_move === v.you) {
    // ready-made first-turn set-ups (Nymbat): placed in one click, then adjusted with what is left
    const box2 = document.createElement("div");
    box2.className = "setups";
    box2.append(`${t("game:setups")} `);
    for (const s of desc.setups) {
      const bt = button(textOf(s, "label"), () => placeSetup(s.moves), "setup-btn");
      bt.title = textOf(s, "title");
      bt.dataset.setup = s.label;
      box2.appendChild(bt);
    }
    box.appendChild(box2);
  }
  if (!ui.choice && desc.hint && v.to_move === v.you) {
    // the game's own word on what may be done now (Nymbat's breakthrough), where the player looks
    const h = document.createElement("p");
    h.className = "continue-hint game-hint";
    h.id = "game-hint";
    h.textContent = textOf(desc, "hint");
    box.appendChild(h);
  }
  if (buttons.length) {
    const row = document.createElement("div");
    row.className = "action-buttons";
    const groups = new Map();
    for (const a of buttons) {
      const g = a.group || "";
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(a);
    }
    for (const [g, list] of groups) {
      const gdiv = document.createElement("div");
      gdiv.className = "group";
      if (g) gdiv.dataset.group = g;
      if (list.length > 12 && list.every((a) => a.move !== undefined)) {
        const sel = document.createElement("select");
        for (const a of list) {
          const opt = document.createElement("option");
          opt.value = a.move;
          opt.textContent = actionLabel(a);
          sel.appendChild(opt);
        }
        gdiv.append(sel, button(t("game:play"), () => submit(sel.value), "primary"));
      } else {
        for (const a of list) {
          if (a.move !== undefined) {
            const bt = button(actionLabel(a), () => submit(a.move), "action-btn" + (/^end\b/i.test(a.label || a.move) ? " primary" : ""));
            bt.dataset.move = a.move;
            gdiv.appendChild(bt);
          }
        }
      }
      row.appendChild(gdiv);
    }
    box.appendChild(row);
  }
  if (v.to_move === v.you && !actions().length) {
    const p = document.createElement("p");
    p.textContent = t("game:no_move");
    box.appendChild(p);
  }
}

