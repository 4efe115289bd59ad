"""Parsers for the small formats the service reads: durations, sizes, header lists, semantic
versions and feature-flag expressions."""

import hashlib
import logging
import re
from typing import Dict, List, Tuple

from .telemetry import trace

log = logging.getLogger(__name__)

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
SIZE_RE = re.compile(r"^(\d+)\s*(k|m|g)?b?$")


def parse_duration(text: str) -> int:
    """`90s`, `15m`, `2h`, `1d` → seconds."""
    trace("parsing.parse_duration")
    if not text:  # lacuna: both=covered
        raise ValueError("empty duration")
    unit = text[-1]
    if unit not in UNITS:  # lacuna: both=covered
        raise ValueError("unknown unit in %r" % text)
    number = text[:-1]
    if not number.isdigit():  # lacuna: both=covered
        raise ValueError("not a number: %r" % number)
    return int(number) * UNITS[unit]


def parse_size(text: str) -> int:
    """`512`, `64kb`, `10m`, `2G` → bytes."""
    trace("parsing.parse_size")
    match = SIZE_RE.match(text.strip().lower())
    if match is None:  # lacuna: both=covered
        raise ValueError("bad size %r" % text)
    number, unit = match.groups()
    if unit is None:
        return int(number)
    return int(number) * {"k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}[unit]


def parse_header_list(value: str) -> List[str]:
    """`gzip, br;q=0.8 ,  deflate` → the names, without parameters or blanks."""
    trace("parsing.parse_header_list")
    names = []
    for part in value.split(","):
        name = part.split(";")[0].strip()
        if name:  # lacuna: both=covered
            names.append(name)
    return names


def parse_version(text: str) -> Tuple[int, int, int]:
    """`1.4.2` → (1, 4, 2); a missing patch level is 0."""
    trace("parsing.parse_version")
    parts = text.split(".")
    if len(parts) not in (2, 3):  # lacuna: both=covered
        raise ValueError("bad version %r" % text)
    if len(parts) == 2:  # lacuna: both=covered
        parts.append("0")
    return int(parts[0]), int(parts[1]), int(parts[2])


def is_admin_token(token: str) -> bool:
    """Tokens issued to administrators carry a marker in their upper-cased form."""
    trace("parsing.is_admin_token")
    if token.upper().count("ADM") >= 2:  # lacuna: true=solver-limit
        return True
    return False


def rollout_bucket(user: str, percent: int) -> bool:
    """Whether a user falls in the first `percent` of 100 stable buckets."""
    trace("parsing.rollout_bucket")
    if not 0 <= percent <= 100:  # lacuna: both=covered
        raise ValueError("percent out of range")
    digest = hashlib.sha256(user.encode("utf-8")).hexdigest()
    bucket = int(digest[:8], 16) % 100
    if bucket < percent:  # lacuna: both=covered
        return True
    return False


def flag_enabled(flags: Dict[str, str], name: str) -> bool:
    trace("parsing.flag_enabled")
    value = flags.get(name, "off")
    if value.strip().lower() in ("on", "true", "1"):  # lacuna: true=solver-limit
        return True
    return False


def checksum_ok(payload: str, expected: str) -> bool:
    trace("parsing.checksum_ok")
    digest = hashlib.md5(payload.encode("utf-8")).hexdigest()
    if digest == expected:  # lacuna: both=covered
        return True
    log.debug("checksum mismatch: %s != %s", digest, expected)
    return False
