"""Rate limits and quotas: class-level defaults changed by class methods, plans read from
dictionaries, and quotas whose state only changes through calls."""

import json
import logging
import time
from typing import Dict, Optional

from .telemetry import trace

log = logging.getLogger(__name__)

PLANS = {"free": {"rpm": 60, "burst": 10}, "pro": {"rpm": 1200, "burst": 100}}


class RateLimiter:
    default_rpm = 60
    strict = False

    @classmethod
    def configure(cls, rpm: int, strict: bool) -> None:
        trace("limits.configure")
        cls.default_rpm = rpm
        cls.strict = strict

    def __init__(self, rpm: Optional[int] = None):
        if rpm is not None and rpm <= 0:
            raise ValueError("rpm must be positive")
        self.rpm = rpm or self.default_rpm
        self._used = 0

    def allow(self, cost: int = 1) -> bool:
        trace("limits.allow")
        if cost <= 0:  # lacuna: both=covered
            raise ValueError("cost must be positive")
        if self._used + cost > self.rpm:  # lacuna: both=covered
            if self.strict:  # lacuna: true=object-creation[RateLimiter.strict]
                raise RuntimeError("rate limit exceeded")
            return False
        self._used += cost
        return True

    def remaining(self) -> int:
        trace("limits.remaining")
        if self._used >= self.rpm:  # lacuna: both=covered
            return 0
        return self.rpm - self._used

    def is_default(self) -> bool:
        trace("limits.is_default")
        if self.rpm != RateLimiter.default_rpm:  # lacuna: both=covered
            return False
        return True


def plan_limit(plan: str, key: str = "rpm") -> int:
    """A limit of a named plan; unknown plans get the free plan's."""
    trace("limits.plan_limit")
    limits = PLANS.get(plan, PLANS["free"])
    if key not in limits:  # lacuna: both=covered
        raise KeyError(key)
    return limits[key]


def burst_allowed(plan: str) -> bool:
    trace("limits.burst_allowed")
    return plan in PLANS and PLANS[plan]["burst"] >= 100  # lacuna: true=solver-limit false=covered


def quota_from_json(document: str) -> int:
    """The request quota of a JSON account document."""
    trace("limits.quota_from_json")
    account = json.loads(document)
    if account["quota"] > 10000:  # lacuna: both=external-call[json.loads]
        log.info("large quota")
        return 10000
    return account["quota"]


def overrides_limit(overrides: Dict[str, int]) -> int:
    """The rpm override from a dict of settings, at most 5000."""
    trace("limits.overrides_limit")
    rpm = overrides.get("rpm", 60)
    if rpm > 5000:  # lacuna: both=covered
        return 5000
    return rpm


class Quota:
    """A daily quota, reset by `reset` at midnight."""

    def __init__(self, limit: int):
        self.limit = limit
        self._spent = 0
        self._reset_at = time.time() + 86400

    def spend(self, amount: int) -> bool:
        trace("limits.spend")
        if amount <= 0:  # lacuna: both=covered
            return False
        if time.time() >= self._reset_at:  # lacuna: true=external-call[time.time]
            self._spent = 0
            self._reset_at = time.time() + 86400
        if self._spent + amount > self.limit:  # lacuna: both=covered
            return False
        self._spent += amount
        return True

    def exhausted(self) -> bool:
        trace("limits.exhausted")
        if self.limit > 0 and self._spent >= self.limit:  # lacuna: both=covered
            return True
        return False
