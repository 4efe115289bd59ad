"""Incoming webhooks: signature checks with a tolerance on timestamps, and dispatch of events to
the handlers subscribed to them."""

import hashlib
import hmac
import json
import logging
import time
from typing import Dict, List

from .telemetry import trace

log = logging.getLogger(__name__)

TOLERANCE_S = 300


def signature(secret: str, body: str, timestamp: int) -> str:
    message = ("%d.%s" % (timestamp, body)).encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def verify(secret: str, body: str, timestamp: int, given: str) -> bool:
    """Whether `given` signs `body` at `timestamp`, a timestamp at most five minutes away."""
    trace("webhooks.verify")
    if not secret:  # lacuna: both=covered
        raise ValueError("no webhook secret configured")
    if abs(time.time() - timestamp) > TOLERANCE_S:  # lacuna: both=covered
        log.warning("stale webhook stamped %d", timestamp)
        return False
    expected = signature(secret, body, timestamp)
    if not hmac.compare_digest(expected, given):  # lacuna: true=covered false=external-call[hmac.compare_digest]
        log.warning("bad signature")
        return False
    return True


class Dispatcher:
    def __init__(self, max_handlers: int = 8):
        self.max_handlers = max_handlers
        self._handlers: Dict[str, List[str]] = {}
        self._delivered = 0

    def subscribe(self, event: str, handler: str) -> None:
        trace("webhooks.subscribe", event=event)
        if len(self._handlers.get(event, [])) >= self.max_handlers:  # lacuna: both=covered
            raise RuntimeError("too many handlers for %s" % event)
        self._handlers.setdefault(event, []).append(handler)

    def dispatch(self, payload: str) -> int:
        """Delivers one event; returns to how many handlers."""
        trace("webhooks.dispatch", size=len(payload))
        event = json.loads(payload)
        kind = event.get("type", "")
        if not kind:  # lacuna: both=external-call[json.loads]
            log.info("event without a type")
            return 0
        handlers = self._handlers.get(kind, [])
        if not handlers:  # lacuna: both=external-call[json.loads]
            log.info("no handler for %s", kind)
            return 0
        self._delivered += len(handlers)
        return len(handlers)

    def stats(self) -> str:
        if self._delivered == 0:  # lacuna: true=covered false=object-creation[Dispatcher._delivered]
            return "idle"
        return "%d deliveries" % self._delivered

    def handlers_for(self, event: str) -> List[str]:
        found = self._handlers.get(event)
        if found is None:
            return []
        return list(found)
