"""A file-backed key-value store: one JSON document per key under a root directory."""

import json
import logging
import os
import shutil
from pathlib import Path

from .telemetry import trace

log = logging.getLogger(__name__)

MIN_FREE_BYTES = 50 * 1024 * 1024
ROOT = "/var/lib/tidepool/store"


def path_for(key: str, root: str = ROOT) -> Path:
    if not key or "/" in key:  # lacuna: both=covered
        raise ValueError("bad key %r" % key)
    return Path(root) / (key + ".json")


def load(key: str) -> dict:
    trace("store.load", key=key)
    path = path_for(key)
    if not path.exists():  # lacuna: false=external-call[pathlib.PosixPath.exists]
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():  # lacuna: both=external-call[pathlib.PosixPath.exists]
        log.warning("empty document for %s", key)
        return {}
    return json.loads(text)


def has_room(root: str = ROOT) -> bool:
    """Whether the store's disk has room for more documents."""
    trace("store.has_room", root=root)
    usage = shutil.disk_usage("/")
    if usage.free < MIN_FREE_BYTES:  # lacuna: true=external-call[shutil.disk_usage]
        log.error("less than %d bytes free", MIN_FREE_BYTES)
        return False
    return True


def writable(root: str = ROOT) -> bool:
    if not os.access(root, os.W_OK):  # lacuna: false=external-call[os.access]
        log.warning("%s is not writable", root)
        return False
    return True


def document_size(key: str) -> int:
    path = path_for(key)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return -1
    if size > 1024 * 1024:  # lacuna: both=external-call[pathlib.PosixPath.stat]
        log.warning("%s is larger than a megabyte", path)
    return size


def merge(base: dict, update: dict) -> dict:
    """`update` over `base`, one level deep; None deletes a key."""
    trace("store.merge", keys=len(update))
    out = dict(base)
    for key, value in update.items():
        if value is None:  # lacuna: both=solver-limit
            out.pop(key, None)
        else:
            out[key] = value
    return out


def backup_name(key: str, generation: int) -> str:
    if generation < 0:  # lacuna: both=covered
        raise ValueError("generations count from 0")
    name = os.path.join(ROOT, "backups", "%s.%d.json" % (key, generation))
    log.debug("backup %s", name)
    if generation > 9:  # lacuna: both=covered
        log.info("old generation %d of %s", generation, key)
    return name


def save(key: str, document: dict) -> int:
    """Writes a document; returns the bytes written."""
    trace("store.save", key=key)
    path = path_for(key)
    data = json.dumps(document, sort_keys=True)
    with open(path, "w", encoding="utf-8") as fh:
        written = fh.write(data)
    if written != len(data):  # lacuna: both=external-call[open]
        raise IOError("short write to %s" % path)
    return written
