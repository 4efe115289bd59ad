"""Structured tracing: one JSON line per event, with the process, the thread, a span id and a
timestamp. Called at the start of most public operations; it never decides anything."""

import json
import logging
import os
import threading
import time
import uuid

log = logging.getLogger("tidepool.trace")


def trace(event: str, /, **fields) -> None:
    record = {
        "event": event,
        "pid": os.getpid(),
        "thread": threading.get_ident(),
        "span": uuid.uuid4().hex[:8],
        "at": time.time(),
    }
    record.update(fields)
    log.debug(json.dumps(record, default=str, sort_keys=True))
