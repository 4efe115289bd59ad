"""Deadlines: timeouts turned into points in time, and what is left of them. Every decision
here reads the clock, and every one can still be decided by the timeout given."""

import logging
import time

from .telemetry import trace

log = logging.getLogger(__name__)


def remaining(timeout_s: float) -> float:
    """Seconds left of a timeout started now, at least 0."""
    trace("deadline.remaining", timeout=timeout_s)
    if timeout_s <= 0:  # lacuna: both=covered
        return 0.0
    deadline = time.monotonic() + timeout_s
    left = deadline - time.monotonic()
    if left < 0.5:  # lacuna: both=covered
        log.warning("less than half a second left")
        return 0.0
    return left


def expired(started_at: float, timeout_s: float) -> bool:
    """Whether a timeout started at `started_at` (a `time.time()` stamp) has run out."""
    now = time.time()
    if now - started_at > timeout_s:  # lacuna: both=covered
        return True
    return False


def backoff_until(attempt: int, base_s: float = 1.0) -> float:
    """The wall-clock time of the next attempt."""
    if attempt > 8:  # lacuna: both=covered
        attempt = 8
    return time.time() + base_s * 2 ** attempt


def budget_left(spent_ms: int, budget_ms: int = 1000) -> int:
    started = time.perf_counter()
    left = budget_ms - spent_ms
    log.debug("budget check took %.3f ms", (time.perf_counter() - started) * 1000)
    if left <= 0:  # lacuna: both=covered
        return 0
    return left
