"""An in-memory cache whose entries expire after a time to live, with hit statistics."""

import logging
import time
from typing import Dict, Optional, Tuple

from .telemetry import trace

log = logging.getLogger(__name__)


class TTLCache:
    """Maps keys to values for `ttl` seconds; holds at most `capacity` entries."""

    def __init__(self, capacity: int = 128, ttl: float = 300.0):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        if ttl < 1.0:
            raise ValueError("entries must live at least a second")
        self.capacity = capacity
        self.ttl = ttl
        self._entries: Dict[str, Tuple[float, str]] = {}
        self._hits = 0
        self._misses = 0

    def put(self, key: str, value: str) -> None:
        trace("cache.put")
        if len(self._entries) >= self.capacity:  # lacuna: true=covered
            oldest = min(self._entries, key=lambda k: self._entries[k][0])
            log.debug("evicting %r", oldest)
            del self._entries[oldest]
        self._entries[key] = (time.monotonic() + self.ttl, value)

    def get(self, key: str) -> Optional[str]:
        trace("cache.get")
        entry = self._entries.get(key)
        if entry is None:
            self._misses += 1
            return None
        expires_at, value = entry
        if time.monotonic() >= expires_at:  # lacuna: true=external-call[time.monotonic]
            log.debug("entry %r expired", key)
            del self._entries[key]
            self._misses += 1
            return None
        self._hits += 1
        return value

    def hit_rate(self) -> float:
        trace("cache.hit_rate")
        total = self._hits + self._misses
        if total == 0:  # lacuna: both=covered
            return 0.0
        return self._hits / total

    def purge_expired(self) -> int:
        """Drops every expired entry; returns how many."""
        trace("cache.purge_expired")
        if not self._entries:  # lacuna: both=covered
            return 0
        now = time.monotonic()
        expired = [k for k, (at, _) in self._entries.items() if at <= now]  # lacuna: true=external-call[time.monotonic] false=covered
        for key in expired:  # lacuna: true=external-call[time.monotonic] false=covered
            del self._entries[key]
        if expired:  # lacuna: true=external-call[time.monotonic] false=covered
            log.info("purged %d entries", len(expired))
        return len(expired)


def memoize_key(func_name: str, args: Tuple[int, ...]) -> str:
    """The cache key of a call: stable across processes, unlike `hash`."""
    trace("cache.memoize_key")
    if not args:  # lacuna: both=covered
        return func_name
    parts = [func_name]
    for a in args:
        if a < 0:  # lacuna: both=covered
            parts.append("m%d" % -a)
        else:
            parts.append(str(a))
    return ":".join(parts)
