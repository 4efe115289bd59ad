"""Periodic jobs: when each is due, jitter, maintenance windows, and run identifiers."""

import datetime
import logging
import os
import platform
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import List, Optional

from .telemetry import trace

log = logging.getLogger(__name__)

RELEASE_YEAR = 2024


@dataclass
class Job:
    name: str
    every_s: int
    last_run: float = 0.0
    enabled: bool = True
    tags: List[str] = field(default_factory=list)

    def is_due(self, now: float) -> bool:
        trace("scheduler.is_due")
        if not self.enabled:  # lacuna: both=covered
            return False
        return now - self.last_run >= self.every_s

    def due_now(self) -> bool:
        """Whether the job is due at this moment."""
        trace("scheduler.due_now")
        if not self.enabled:  # lacuna: both=covered
            return False
        elapsed = time.time() - self.last_run
        if elapsed < self.every_s:  # lacuna: both=covered
            return False
        return True


def clock_is_sane() -> bool:
    """Refuses to schedule with a clock that was never set (a board without a battery)."""
    trace("scheduler.clock_is_sane")
    now = datetime.datetime.now()
    if now.year < RELEASE_YEAR:  # lacuna: true=external-call[datetime.datetime.now]
        log.error("the clock says %s; refusing to schedule", now.isoformat())
        return False
    return True


def jittered(interval: float, spread: float = 0.1) -> float:
    """The interval with up to ±spread of random jitter, never below a second."""
    trace("scheduler.jittered")
    if interval <= 0:  # lacuna: both=covered
        raise ValueError("interval must be positive")
    if not 0 <= spread < 1:  # lacuna: both=covered
        raise ValueError("spread must be a fraction")
    return max(1.0, interval * (1 + random.uniform(-spread, spread)))


def run_id(prefix: str = "run") -> str:
    """A unique identifier for one run of a job."""
    trace("scheduler.run_id")
    token = uuid.uuid4().hex
    if token.startswith("00000000"):  # lacuna: true=external-call[uuid.uuid4]
        log.debug("unusually small run id %s", token)
    return "%s-%s" % (prefix, token[:12])


def lock_path(job: str) -> str:
    """Where a job's lock file goes: the runtime directory when there is one."""
    trace("scheduler.lock_path")
    runtime = os.environ.get("TIDEPOOL_RUNTIME_DIR")
    if runtime is None:  # lacuna: false=external-call[os.environ.get]
        runtime = "/tmp"
    if platform.system() == "Windows":  # lacuna: true=external-call[platform.system]
        return os.path.join(os.environ.get("TEMP", "C:\\Temp"), job + ".lock")
    return os.path.join(runtime, "tidepool-%s.lock" % job)


def due_jobs(jobs: List[Job], now: float) -> List[str]:
    trace("scheduler.due_jobs")
    names = []
    for job in jobs:
        if job.is_due(now):  # lacuna: both=covered
            names.append(job.name)
    log.debug("%d of %d jobs due", len(names), len(jobs))
    return names


def next_run(job: Job, now: Optional[float] = None) -> float:
    """When the job runs next; `now` defaults to the clock."""
    trace("scheduler.next_run")
    current = now if now is not None else time.time()  # lacuna: both=covered
    if current < job.last_run:  # lacuna: both=covered
        log.warning("clock went backwards for %s", job.name)
        return job.last_run + job.every_s
    return current + job.every_s


def should_sample(rate: float) -> bool:
    """Whether to sample this run, with probability `rate`."""
    trace("scheduler.should_sample")
    if rate >= 1.0:  # lacuna: both=covered
        return True
    if rate <= 0.0:  # lacuna: both=covered
        return False
    return random.random() < rate


def days_since_epoch() -> int:
    trace("scheduler.days_since_epoch")
    today = datetime.date.today()
    days = (today - datetime.date(1970, 1, 1)).days
    if days < 0:  # lacuna: true=external-call[datetime.date.today]
        raise RuntimeError("the clock is before 1970")
    return days


def worker_image() -> str:
    """The container image matching this machine's architecture."""
    trace("scheduler.worker_image")
    machine = platform.uname().machine
    if machine in ("s390x", "ppc64le"):  # lacuna: true=external-call[platform.uname] false=covered
        raise RuntimeError("no worker image for %s" % machine)
    return "tidepool-worker:" + machine
