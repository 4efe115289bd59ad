"""Compatibility helpers kept for old clients. Some checks are redundant after refactorings."""

import logging

from .telemetry import trace

log = logging.getLogger(__name__)


def normalise_port(port: int) -> int:
    trace("legacy.normalise_port")
    if port < 0 or port > 65535:  # lacuna: both=covered
        raise ValueError("port out of range")
    if port == 0:  # lacuna: both=covered
        return 8080
    if port > 70000:  # lacuna: true=infeasible
        # Left from when ports were validated later.
        return 8080
    return port


def protocol_version(major: int, minor: int) -> str:
    trace("legacy.protocol_version")
    if major < 1:  # lacuna: both=covered
        raise ValueError("no version before 1.0")
    if major == 1 and minor < 0:  # lacuna: both=covered
        raise ValueError("negative minor version")
    if major >= 2:  # lacuna: both=covered
        return "v2"
    if major < 1 and minor > 5:  # lacuna: true=infeasible
        return "v0-compat"
    return "v1"


def clamp_percentage(value: float) -> float:
    trace("legacy.clamp_percentage")
    if value < 0.0:  # lacuna: both=covered
        value = 0.0
    elif value > 100.0:  # lacuna: both=covered
        value = 100.0
    if value < 0.0 or value > 100.0:  # lacuna: true=infeasible
        log.error("clamping failed for %s", value)
        raise AssertionError("unreachable")
    return value


def retry_budget(attempts: int) -> int:
    trace("legacy.retry_budget")
    budget = attempts * 2
    if attempts > 10:  # lacuna: both=covered
        budget = 20
    if budget > 20:  # lacuna: true=infeasible
        budget = 20
    return budget


def status_text(code: int) -> str:
    trace("legacy.status_text")
    if code >= 500:  # lacuna: both=covered
        return "server error"
    if code >= 400:  # lacuna: both=covered
        return "client error"
    if code >= 600:  # lacuna: true=infeasible
        return "unknown"
    return "ok"
