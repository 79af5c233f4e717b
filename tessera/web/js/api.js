// Small helpers over the JSON API (docs/http-api.md).
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, detail, retryAfter = null, key = null, args = null) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.key = key; // a refusal's catalogue key and arguments (decorate.js refusalText), where the server gave them
    this.args = args;
    this.retryAfter = retryAfter; // seconds, from a 429 or 503 answer's Retry-After header
  }
}

export async function api(method, path, body = undefined, token = undefined) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Seat-Token"] = token;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // no answer at all (server down, network lost): say so in words, not "TypeError: Failed to fetch"
    throw new ApiError(0, t("common:no_connection"));
  }
  let data = null;
  const text = await res.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    const detail = data && typeof data === "object" && "detail" in data ? data.detail : `HTTP ${res.status}`;
    const after = Number(res.headers.get("Retry-After"));
    const keyed = data && typeof data === "object" && typeof data.key === "string";
    throw new ApiError(
      res.status,
      typeof detail === "string" ? detail : JSON.stringify(detail),
      after > 0 ? after : null,
      keyed ? data.key : null,
      keyed ? data.args || {} : null,
    );
  }
  return data;
}

// The signed-in account ({"username", …}; null for a guest), asked once per page.
let account = null;
export function whoAmI() {
  if (account === null) {
    // GET /api/session answers a guest 200 with null (no 401 in a guest's console)
    account = api("GET", "/api/session").then((r) => r.account).catch((e) => {
      if (e instanceof ApiError && e.status === 401) return null;
      account = null; // another failure (the network): asked again next time
      return null;
    });
  }
  return account;
}

// Seat tokens of a game kept in this browser: {seat: token}, plus invite links.
export function loadSeats(gameId) {
  try {
    return JSON.parse(localStorage.getItem(`tessera:game:${gameId}`) || "{}");
  } catch {
    return {};
  }
}

export function saveSeats(gameId, data) {
  const old = loadSeats(gameId);
  const merged = {
    tokens: { ...(old.tokens || {}), ...(data.tokens || {}) },
    invites: { ...(old.invites || {}), ...(data.invites || {}) },
  };
  try {
    localStorage.setItem(`tessera:game:${gameId}`, JSON.stringify(merged));
  } catch {
    /* private mode: the link in the address bar still works */
  }
  return merged;
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
