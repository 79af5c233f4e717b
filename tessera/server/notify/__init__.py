"""Notifications: games waiting for you, Web Push and e-mail digests (docs/notifications.md).

:func:`install` makes the pieces on the app's match service and subscribes the
:class:`~tessera.server.notify.notifier.Notifier` to its events; the app includes
:data:`~tessera.server.notify.routes.router`, and starts and stops the digest sender with its
lifespan (:meth:`Notifications.start`, :meth:`Notifications.stop`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tessera.server.events import AccountChanged, Changed
from tessera.server.match.service import MatchService
from tessera.server.notify.mail import DigestSender, check_mail_settings
from tessera.server.notify.notifier import Listening, Notifier
from tessera.server.notify.push import Pusher, available
from tessera.server.notify.routes import router
from tessera.server.notify.store import NotifyStore

__all__ = ["Notifications", "install", "router"]


@dataclass
class Notifications:
    """The notification pieces of one app."""

    store: NotifyStore
    pusher: Pusher | None
    notifier: Notifier
    digests: DigestSender

    def start(self) -> None:
        """On the event loop, at start-up: the periodic digest sender (when SMTP is configured), and
        an error in the log if e-mail is configured without the site origin its links need."""
        check_mail_settings()
        self.digests.start()

    async def stop(self) -> None:
        """At shutdown: the digest sender, then the notifier (after its queued work)."""
        await self.digests.stop()
        self.notifier.close()


def install(service: MatchService, listeners: Sequence[Listening] | None = None) -> Notifications:
    """The notifications of ``service``, subscribed to its events (``listeners``: what has accounts'
    live pages or streams open in this process, see :class:`Notifier`)."""
    store = NotifyStore(service.storage)
    pusher = Pusher(store) if available() else None
    notifier = Notifier(service, store, pusher, listeners)
    service.events.subscribe(notifier.on_event, Changed, AccountChanged)
    return Notifications(store, pusher, notifier, DigestSender(service, store))
