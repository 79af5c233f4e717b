// The chat panel of the game page (docs/http-api.md, "Chat"). The players talk in the "player" room,
// spectators in the "spectator" room; a player of a game in progress never gets the spectators' room,
// and once the game is over the players read both (a tab each). New messages come by the game's
// WebSocket ({"type": "chat", "message": ...}, handed in by game-live.js through push()); the history is
// read at start, after a reconnection (only what is newer) and when the game ends (new rooms).
// Against the AI or at one screen (hot-seat) a player has no one to talk to: the panel is hidden for
// him until the game ends (spectators still chat among themselves).
// A player mutes a seat (or a spectator's account): the server keeps the mute for his seat, so it
// holds on every device that opens the seat, and leaves the muted author's messages out.
import { api, ApiError } from "./api.js";
import { refusalText } from "./decorate.js";
import { t } from "./i18n.js";

const MAX = 200; // characters per message, as the server counts them (code points, after trimming)

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function length(text) {
  return [...text.trim()].length;
}

// Mount the chat into `host`. `token()` gives this browser's seat token (null: a spectator, or an
// account whose session proves the seat). Returns {push(message), view(view), reload()}.
export function mountChat(host, { gameId, token }) {
  const state = {
    rooms: [], // the rooms this reader may read
    writes: null, // the room he writes in
    room: null, // the tab shown
    messages: new Map(), // id -> message
    muted: [], // [{seat} | {account}]
    status: null, // the game's status last seen
    alone: false, // a player of a game with no one to talk to (against the AI, or hot-seat) while it lasts
    you: null, // the reader's seat (null: a spectator)
    lastId: 0,
    unread: {}, // room -> count of messages arrived while another tab was shown
    loading: null,
  };

  host.hidden = true;
  host.classList.add("chat");
  const box = el("details", "chat-box");
  box.open = true;
  const summary = el("summary", "", t("chat:title"));
  const tabs = el("div", "chat-tabs");
  tabs.setAttribute("role", "tablist");
  const list = el("ol", "chat-list");
  list.setAttribute("aria-live", "polite");
  list.tabIndex = 0; // a scrolled list reached by the keyboard too (its arrows scroll it)
  list.setAttribute("aria-label", t("chat:title"));
  const empty = el("p", "chat-empty hint");
  const form = el("form", "chat-form");
  const input = el("input", "chat-input");
  input.type = "text";
  input.maxLength = MAX * 2; // surrogate pairs count twice in maxLength: the counter is the real limit
  input.autocomplete = "off";
  input.setAttribute("aria-label", t("chat:placeholder"));
  const counter = el("span", "chat-counter");
  const send = el("button", "chat-send", t("chat:send"));
  send.type = "submit";
  const error = el("p", "chat-error error");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const mutedBox = el("p", "chat-muted hint");
  form.append(input, counter, send);
  const note = el("p", "chat-note hint");
  note.setAttribute("role", "status");
  box.append(summary, tabs, list, empty, form, error, mutedBox, note);
  host.replaceChildren(box);

  function seatToken() {
    return token() || undefined;
  }

  function showError(text) {
    error.textContent = text || "";
    error.hidden = !text;
  }

  function updateCounter() {
    const n = length(input.value);
    counter.textContent = t("chat:counter", { n, max: MAX });
    counter.classList.toggle("over", n > MAX);
    send.disabled = n === 0 || n > MAX;
  }

  function isMuted(m) {
    return state.muted.some((x) => (x.seat !== undefined && x.seat === m.seat) || (x.account && x.account === m.account));
  }

  function renderTabs() {
    tabs.replaceChildren();
    tabs.hidden = state.rooms.length < 2;
    for (const room of state.rooms) {
      const b = el("button", "chat-tab" + (room === state.room ? " chosen" : ""), t(`chat:room.${room}`));
      b.type = "button";
      b.dataset.room = room;
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", String(room === state.room));
      if (state.unread[room]) b.append(el("span", "chat-unread", String(state.unread[room])));
      b.addEventListener("click", () => {
        state.room = room;
        state.unread[room] = 0;
        render();
      });
      tabs.append(b);
    }
  }

  function renderMessage(m) {
    const li = el("li", "chat-msg" + (state.you !== null && m.seat === state.you ? " mine" : ""));
    li.dataset.id = m.id;
    const who = el("span", "chat-author", m.seat === null && !m.account ? t("chat:guest") : m.author);
    li.append(who, el("span", "chat-text", m.text));
    const mutable = state.you !== null && !(m.seat === state.you) && (m.seat !== null || m.account);
    if (mutable) {
      const b = el("button", "chat-mute", t("chat:mute"));
      b.type = "button";
      b.title = t("chat:mute_title", { name: who.textContent });
      b.addEventListener("click", () => mute(m.seat !== null ? { seat: m.seat } : { account: m.account }, true));
      li.append(b);
    }
    if (!(state.you !== null && m.seat === state.you) && (m.seat !== null || m.account)) {
      const r = el("button", "chat-report", t("chat:report"));
      r.type = "button";
      r.title = t("chat:report_title", { name: who.textContent });
      r.addEventListener("click", () => report(m));
      li.append(r);
    }
    return li;
  }

  // A chat line reported to the moderators (docs/moderation.md): the server keeps the line itself as
  // the evidence; only an account may report, and only a line written by an account.
  async function report(m) {
    showError("");
    try {
      await api("POST", "/api/reports", { reason: "abuse", game_id: gameId, message_id: m.id });
      note.textContent = t("chat:reported");
    } catch (e) {
      showError(refusalText(e));
    }
  }

  function render() {
    renderTabs();
    const shown = [...state.messages.values()].filter((m) => m.room === state.room && !isMuted(m));
    list.replaceChildren(...shown.map(renderMessage));
    empty.textContent = t(state.room === "player" ? "chat:empty_player" : "chat:empty_spectator");
    empty.hidden = shown.length > 0;
    const writing = state.room === state.writes;
    form.hidden = !writing;
    input.placeholder = t(state.writes === "player" ? "chat:placeholder_player" : "chat:placeholder");
    mutedBox.replaceChildren();
    mutedBox.hidden = state.muted.length === 0;
    if (state.muted.length) {
      mutedBox.append(el("span", "", t("chat:muted") + " "));
      for (const x of state.muted) {
        const name = x.seat !== undefined ? seatName(x.seat) : x.account;
        const b = el("button", "chat-unmute", t("chat:unmute", { name }));
        b.type = "button";
        b.addEventListener("click", () => mute(x, false));
        mutedBox.append(b, " ");
      }
    }
    list.scrollTop = list.scrollHeight;
  }

  let seatNames = [];
  function seatName(seat) {
    return seatNames[seat] || t("chat:seat", { n: seat + 1 });
  }

  function add(m) {
    if (state.messages.has(m.id)) return false;
    state.messages.set(m.id, m);
    state.lastId = Math.max(state.lastId, m.id);
    return true;
  }

  async function reload(full = false) {
    if (state.loading) return state.loading;
    state.loading = (async () => {
      try {
        const q = !full && state.lastId ? `?after=${state.lastId}` : "";
        const h = await api("GET", `/api/games/${encodeURIComponent(gameId)}/chat${q}`, undefined, seatToken());
        if (full) state.messages.clear();
        state.you = h.you;
        state.rooms = h.rooms;
        state.writes = h.writes;
        state.muted = h.muted;
        if (!state.rooms.includes(state.room)) state.room = state.writes;
        for (const m of h.messages) add(m);
        host.hidden = state.alone && state.you !== null;
        render();
      } catch (e) {
        showError(refusalText(e));
      } finally {
        state.loading = null;
      }
    })();
    return state.loading;
  }

  async function mute(target, on) {
    showError("");
    try {
      const body = { ...target };
      const tok = seatToken();
      if (tok) body.token = tok;
      const r = await api("POST", `/api/games/${encodeURIComponent(gameId)}/chat/${on ? "mute" : "unmute"}`, body);
      state.muted = r.muted;
      if (!on) await reload(true); // the server left the muted messages out: read them again
      else render();
    } catch (e) {
      showError(refusalText(e));
    }
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || length(text) > MAX || !state.writes) return;
    showError("");
    send.disabled = true;
    try {
      const body = { room: state.writes, text };
      const tok = seatToken();
      if (tok) body.token = tok;
      const m = await api("POST", `/api/games/${encodeURIComponent(gameId)}/chat`, body);
      add(m);
      input.value = "";
      state.room = state.writes;
      render();
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) showError(t("chat:too_fast", { s: err.retryAfter || 1 }));
      else showError(refusalText(err));
    } finally {
      updateCounter();
    }
  });
  input.addEventListener("input", updateCounter);
  updateCounter();

  return {
    // A message pushed by the socket (the server sends only what this reader may read).
    push(m) {
      if (!add(m) || isMuted(m)) return;
      if (m.room !== state.room && state.rooms.includes(m.room)) state.unread[m.room] = (state.unread[m.room] || 0) + 1;
      render();
    },
    // Every view: the first and a change of status (the game ended: the players now read both rooms) reload.
    view(view) {
      seatNames = view.seats.map((s) => s.name);
      const changed = state.status !== view.status;
      state.status = view.status;
      state.alone = view.mode !== "online" && view.status === "active";
      if (changed) reload(true);
    },
    reload,
  };
}
