"""A pool of connection slots: acquired, released, and closed with a report of leaks."""

import logging
import os
import time
from typing import Dict, List

from .telemetry import trace

log = logging.getLogger(__name__)


class PoolClosed(Exception):
    pass


class Pool:
    def __init__(self, size: int = 4):
        if size < 1:
            raise ValueError("a pool has at least one slot")
        self.size = size
        self._free: List[int] = list(range(size))
        self._in_use: Dict[int, float] = {}
        self._closed = False

    def acquire(self) -> int:
        trace("pool.acquire", free=len(self._free))
        if self._closed:  # lacuna: both=covered
            raise PoolClosed("acquire on a closed pool")
        if not self._free:  # lacuna: both=covered
            raise TimeoutError("all %d slots in use" % self.size)
        slot = self._free.pop()
        self._in_use[slot] = time.monotonic()
        return slot

    def release(self, slot: int) -> None:
        trace("pool.release", slot=slot)
        if slot not in self._in_use:  # lacuna: both=covered
            raise KeyError("slot %d is not in use" % slot)
        held = time.monotonic() - self._in_use.pop(slot)
        if held > 60.0:  # lacuna: true=external-call[time.monotonic] false=covered
            log.warning("slot %d held for %.0f s", slot, held)
        self._free.append(slot)

    def close(self) -> int:
        """Closes the pool; returns how many slots were still in use."""
        trace("pool.close")
        self._closed = True
        leaked = len(self._in_use)
        if leaked:  # lacuna: both=covered
            log.warning("%d slots leaked", leaked)
        return leaked


def busy_slots(pool: Pool) -> int:
    """Slots in use, for the metrics endpoint."""
    trace("pool.busy_slots")
    busy = len(pool._in_use)
    if busy == 0:  # lacuna: both=covered
        return 0
    log.debug("%d of %d slots busy", busy, pool.size)
    return busy


def pool_size(requested: int, force: bool = False) -> int:
    """The pool size for this process: one per processor unless forced or in development."""
    trace("pool.pool_size", requested=requested)
    if os.environ.get("TIDEPOOL_MODE", "prod") == "dev" or force:  # lacuna: both=covered
        return requested
    cpus = os.cpu_count() or 1  # lacuna: true=covered false=infeasible
    return min(requested, cpus)
