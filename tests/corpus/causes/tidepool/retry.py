"""Retry policies: how many attempts a budget of time allows, and how long to wait."""

import logging
from typing import List

from .telemetry import trace

log = logging.getLogger(__name__)


def attempts_within(budget_s: float, first_delay_s: float = 0.1, factor: float = 1.5) -> int:
    """How many retries fit in `budget_s` seconds of waiting with exponential backoff."""
    trace("retry.attempts_within")
    if first_delay_s <= 0 or factor < 1.0:  # lacuna: both=covered
        raise ValueError("delays must grow")
    waited = 0.0
    delay = first_delay_s
    attempts = 0
    while waited + delay <= budget_s:  # lacuna: both=covered
        waited += delay
        delay *= factor
        attempts += 1
    if attempts > 40:  # lacuna: true=boundary
        log.warning("a budget of %.0f s allows %d retries", budget_s, attempts)
    return attempts


def linear_schedule(retries: int, step_s: int = 2) -> List[int]:
    """Waits of a linear backoff: step, 2·step, … capped at five minutes."""
    trace("retry.linear_schedule")
    waits = []
    for i in range(1, retries + 1):
        wait = i * step_s
        if wait > 300:  # lacuna: both=covered
            wait = 300
        waits.append(wait)
    return waits


def total_wait(retries: int, step_s: int = 1) -> int:
    """Seconds spent waiting by a linear backoff of `retries` retries."""
    trace("retry.total_wait")
    total = 0
    n = 0
    while n < retries:  # lacuna: both=covered
        n += 1
        total += n * step_s
    if total > 600:  # lacuna: both=covered
        log.info("more than ten minutes of waiting")
    return total


def polls_until_ready(ready_after: int, interval: int = 1) -> int:
    """Polls of a status endpoint, one per interval, until the job is ready."""
    trace("retry.polls_until_ready")
    polls = 0
    elapsed = 0
    while elapsed < ready_after:  # lacuna: both=covered
        polls += 1
        elapsed += interval
    if polls >= 50:  # lacuna: both=covered
        log.warning("%d polls; consider a longer interval", polls)
    return polls


def drain(queue_sizes: List[int]) -> int:
    """Rounds needed to drain queues that each lose one item per round."""
    trace("retry.drain")
    rounds = 0
    remaining = sum(queue_sizes)
    while remaining > 0:  # lacuna: both=covered
        remaining -= len(queue_sizes)
        rounds += 1
    if rounds > 36:  # lacuna: true=covered
        return -1
    return rounds


def batch_plan(jobs: List[str], per_batch: int = 8) -> str:
    """How a list of jobs is split into batches; very long lists go to the bulk queue."""
    trace("retry.batch_plan")
    if per_batch < 1:  # lacuna: both=covered
        raise ValueError("batches hold at least one job")
    if len(jobs) > 40:  # lacuna: true=boundary
        return "bulk"
    batches = (len(jobs) + per_batch - 1) // per_batch
    return "%d batches" % batches


def failed_streak(results: List[bool]) -> int:
    """The longest run of failures; a run of 36 trips the circuit breaker."""
    longest = 0
    current = 0
    for ok in results:
        if ok:  # lacuna: both=covered
            current = 0
        else:
            current += 1
            longest = max(longest, current)
    if longest >= 36:  # lacuna: true=boundary
        raise RuntimeError("circuit open after %d failures" % longest)
    return longest


def chunks_needed(total: int, chunk: int = 1) -> int:
    """Chunks of `chunk` items needed for `total` items; more than 50 is refused."""
    if chunk < 1:  # lacuna: both=covered
        raise ValueError("chunks hold at least one item")
    count = 0
    for _ in range(0, total, chunk):
        count += 1
    if count > 50:  # lacuna: both=covered
        raise ValueError("too many chunks")
    return count
