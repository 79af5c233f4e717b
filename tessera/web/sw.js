// tessera's service worker: shows the Web Push notifications the server sends ("your turn",
// "challenge received", "game over") and opens the game when one is clicked. Served from the
// site's root (/sw.js) so that its scope covers every page.
//
// A push's payload is JSON: {kind, title, body, url, game_id?}, written by the server in the
// subscriber's language; it says whose turn it is, never what was played.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function payloadOf(event) {
  if (!event.data) return {};
  try {
    return event.data.json();
  } catch {
    return { body: event.data.text() };
  }
}

async function showPush(data) {
  const url = typeof data.url === "string" && data.url.startsWith("/") ? data.url : "/";
  // The game's own page open and in view already shows the move and plays its sound.
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const onIt = windows.some((c) => c.visibilityState === "visible" && c.focused && new URL(c.url).pathname === url);
  if (data.game_id && onIt) return;
  await self.registration.showNotification(String(data.title || "tessera"), {
    body: String(data.body || ""),
    tag: data.game_id ? `tessera-game-${data.game_id}` : `tessera-${data.kind || "note"}`,
    renotify: true,
    data: { url, kind: data.kind || null },
  });
}

self.addEventListener("push", (event) => event.waitUntil(showPush(payloadOf(event))));

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((c) => new URL(c.url).pathname === url);
      if (open) return open.focus();
      return self.clients.openWindow(url);
    })(),
  );
});

// The push service renewed the subscription: the new one is sent to the server (for the account
// whose session this browser holds; a guest's seats are sent again by the next page it opens).
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(
    (async () => {
      const old = event.oldSubscription;
      const fresh =
        event.newSubscription ||
        (old && old.options && (await self.registration.pushManager.subscribe(old.options)));
      if (old) {
        await fetch("/api/notify/push/unsubscribe", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ endpoint: old.endpoint }),
        }).catch(() => {});
      }
      if (fresh) {
        await fetch("/api/notify/push/subscribe", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ subscription: fresh.toJSON(), tokens: [] }),
        }).catch(() => {});
      }
    })(),
  );
});
