"""Buffers with private state: a ring buffer that drops the oldest items, and an outbox
flushed when it reaches its high-water mark."""

import logging
from typing import List, Optional

from .telemetry import trace

log = logging.getLogger(__name__)

HIGH_WATER = 48


class RingBuffer:
    def __init__(self, size: int = 16):
        if size < 1:
            raise ValueError("size must be positive")
        self.size = size
        self._items: List[int] = []
        self._dropped = 0

    def push(self, item: int) -> None:
        trace("buffers.push")
        if len(self._items) >= self.size:  # lacuna: both=covered
            self._items.pop(0)
            self._dropped += 1
        self._items.append(item)

    def latest(self) -> Optional[int]:
        trace("buffers.latest")
        if not self._items:  # lacuna: both=covered
            return None
        return self._items[-1]

    def health(self) -> str:
        trace("buffers.health")
        if self._dropped > 0:  # lacuna: true=object-creation[RingBuffer._dropped]
            return "lossy"
        return "ok"


class Outbox:
    """Messages waiting to be sent in one batch."""

    def __init__(self, destination: str):
        self.destination = destination
        self._pending: List[str] = []

    def add(self, message: str) -> None:
        trace("buffers.add")
        self._pending.append(message)

    def should_flush(self) -> bool:
        trace("buffers.should_flush")
        if len(self._pending) >= HIGH_WATER:  # lacuna: true=object-creation[Outbox._pending]
            log.info("outbox for %s at its high-water mark", self.destination)
            return True
        return False


class Counter:
    """Counts events per kind; `top` reports the most frequent."""

    def __init__(self):
        self._counts = {}

    def record(self, kind: str) -> None:
        trace("buffers.record")
        self._counts[kind] = self._counts.get(kind, 0) + 1

    def top(self) -> str:
        trace("buffers.top")
        if not self._counts:  # lacuna: both=covered
            return ""
        return max(self._counts, key=lambda k: self._counts[k])
