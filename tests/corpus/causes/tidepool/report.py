"""Reports for operators: summaries of request latencies and error counts, rendered as text or
JSON. Logging, printing and formatting happen around every decision; none of them decides
anything."""

import json
import logging
import os
import platform
import sys
import time
from typing import Dict, List

from .telemetry import trace

log = logging.getLogger(__name__)


def percentile(values: List[float], pct: float) -> float:
    trace("report.percentile")
    log.debug("percentile %s of %d values", pct, len(values))
    if not values:  # lacuna: both=covered
        raise ValueError("no values")
    if not 0 <= pct <= 100:  # lacuna: both=covered
        raise ValueError("pct must be within 0..100")
    ordered = sorted(values)
    rank = int(round(pct / 100 * (len(ordered) - 1)))
    return ordered[rank]


def summarize(latencies_ms: List[int], verbose: bool = False) -> str:
    trace("report.summarize")
    started = time.perf_counter()
    log.info("summarizing %d samples on %s", len(latencies_ms), platform.node())
    if not latencies_ms:  # lacuna: both=covered
        print("no samples")
        return "no data"
    total = sum(latencies_ms)
    mean = total / len(latencies_ms)
    if verbose:  # lacuna: both=covered
        print("total={} mean={:.1f}".format(total, mean))
    if mean > 250:  # lacuna: both=covered
        log.warning("slow: %s", json.dumps({"mean": mean}))
        verdict = "slow"
    else:
        verdict = "fast"
    log.debug("summary took %.3f ms", (time.perf_counter() - started) * 1000)
    return "{} ({} samples, mean {:.1f} ms)".format(verdict, len(latencies_ms), mean)


def error_ratio(counts: Dict[str, int]) -> float:
    trace("report.error_ratio")
    log.debug("counts: %s", json.dumps(counts, sort_keys=True))
    errors = counts.get("error", 0)
    total = counts.get("ok", 0) + errors
    if total == 0:  # lacuna: both=covered
        return 0.0
    ratio = errors / total
    if ratio > 0.05:  # lacuna: both=covered
        print("error ratio {:.1%} above 5%".format(ratio), file=sys.stderr)
    return ratio


def render(rows: List[str], as_json: bool) -> str:
    trace("report.render")
    log.debug("rendering %d rows for pid %d", len(rows), os.getpid())
    if as_json:  # lacuna: both=covered
        return json.dumps({"rows": rows, "generated": time.time()})
    lines = []
    for i, row in enumerate(rows):
        if len(row) > 72:  # lacuna: both=covered
            row = row[:69] + "..."
        lines.append("{:>3}. {}".format(i + 1, row))
    return "\n".join(lines)


def status_line(name: str, healthy: bool, detail: str = "") -> str:
    trace("report.status_line")
    stamp = time.strftime("%H:%M:%S")
    text = "[{}] {}: {}".format(stamp, name, "up" if healthy else "DOWN")  # lacuna: both=covered
    if detail:  # lacuna: both=covered
        text += " ({})".format(detail)
    log.info(text)
    if not healthy:  # lacuna: both=covered
        print(text, file=sys.stderr)
    return text


def host_banner(service: str) -> str:
    trace("report.host_banner")
    python = platform.python_version()
    system = platform.system()
    log.debug("banner for %s on %s/%s", service, system, python)
    if len(service) > 20:  # lacuna: both=covered
        service = service[:20]
    return "{} on {} (Python {})".format(service, system, python)


def log_level(verbose: bool, quiet: bool) -> str:
    """The logging level for the command-line flags; quiet wins."""
    trace("report.log_level")
    level = "debug" if verbose else "info"  # lacuna: both=covered
    if quiet:  # lacuna: both=covered
        level = "warning"
    assert level in ("debug", "info", "warning")  # lacuna: true=covered false=infeasible
    return level
