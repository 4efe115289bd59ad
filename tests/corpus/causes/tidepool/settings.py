"""Settings of a deployment: built-in defaults, a system-wide file, a user file and TIDEPOOL_*
environment variables, each overriding the one before."""

import json
import logging
import os
from typing import Dict

from .telemetry import trace

log = logging.getLogger(__name__)

SYSTEM_FILE = "/etc/tidepool/settings.json"
DEFAULTS = {"workers": 4, "timeout": 30, "debug": False, "region": "eu-west-1"}
ENV_PREFIX = "TIDEPOOL_"


def system_settings() -> dict:
    """The system-wide settings, or none when the file is absent."""
    trace("settings.system_settings")
    if os.path.exists(SYSTEM_FILE):  # lacuna: true=external-call[os.path.exists]
        with open(SYSTEM_FILE, encoding="utf-8") as fh:
            return json.load(fh)
    log.debug("no system settings at %s", SYSTEM_FILE)
    return {}


def load_file(path: str) -> dict:
    """One settings file; unknown keys are dropped with a warning."""
    trace("settings.load_file")
    if not path.endswith(".json"):  # lacuna: both=covered
        raise ValueError("settings files are JSON documents: %r" % path)
    if not os.path.isfile(path):  # lacuna: false=external-call[os.path.isfile]
        log.info("%s not found; using the defaults", path)
        return dict(DEFAULTS)
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):  # lacuna: both=external-call[os.path.isfile]
        raise ValueError("settings must be a JSON object")
    settings = dict(DEFAULTS)
    for key, value in data.items():  # lacuna: both=external-call[os.path.isfile]
        if key in DEFAULTS:  # lacuna: both=external-call[os.path.isfile]
            settings[key] = value
        else:
            log.warning("unknown setting %r ignored", key)
    return settings


def env_settings(environ: Dict[str, str]) -> dict:
    """Settings given in the environment: `TIDEPOOL_WORKERS=8` and the like."""
    trace("settings.env_settings")
    found = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX):  # lacuna: both=solver-limit
            continue
        key = name[len(ENV_PREFIX):]
        if key == "WORKERS":  # lacuna: both=solver-limit
            found["workers"] = int(raw)
        elif key == "DEBUG":  # lacuna: both=solver-limit
            found["debug"] = raw in ("1", "true", "yes")
        else:
            log.warning("ignoring unknown variable %s", name)
    return found


def debug_enabled() -> bool:
    """Whether debugging output was asked for, by the environment or the system file."""
    trace("settings.debug_enabled")
    flag = os.environ.get("TIDEPOOL_DEBUG", "")
    if flag.lower() in ("1", "true", "yes"):  # lacuna: true=external-call[os.environ.get]
        return True
    return bool(system_settings().get("debug", False))


def worker_count(requested: int) -> int:
    """Workers to start: the request, capped by the machine's processors."""
    trace("settings.worker_count")
    if requested < 1:  # lacuna: both=covered
        raise ValueError("at least one worker is needed")
    cpus = os.cpu_count() or 1  # lacuna: false=infeasible
    log.info("%d processors available", cpus)
    if requested > cpus:  # lacuna: both=covered
        log.warning("capping %d workers to %d processors", requested, cpus)
        return cpus
    return requested


def region(overrides: Dict[str, str]) -> str:
    """The region to deploy to: an override, or the default."""
    trace("settings.region")
    chosen = overrides.get("region", DEFAULTS["region"])
    if chosen not in ("eu-west-1", "us-east-1", "ap-south-1"):  # lacuna: both=covered
        raise ValueError("unknown region %s" % chosen)
    return chosen


def feature_flags() -> dict:
    """Flags given as a JSON object in TIDEPOOL_FLAGS; beta features need `"beta": true`."""
    trace("settings.feature_flags")
    data = json.loads(os.environ.get("TIDEPOOL_FLAGS", "{}"))
    if data.get("beta"):  # lacuna: true=external-call[os.environ.get]
        log.info("beta features on")
        data.setdefault("preview", True)
    return data


RELEASE_FILE = "/etc/tidepool/release"


def _read_release() -> str:
    try:
        with open(RELEASE_FILE, encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def release_channel() -> str:
    """`beta` when the installed release says so, else `stable`."""
    trace("settings.release_channel")
    release = _read_release()
    if release.startswith("beta"):  # lacuna: true=external-call[open] false=covered
        return "beta"
    return "stable"
