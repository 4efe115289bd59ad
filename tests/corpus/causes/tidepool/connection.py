"""A connection's life cycle as a state machine: idle → open → closing → closed."""

import enum
import logging
from typing import List

from .telemetry import trace

log = logging.getLogger(__name__)


class State(enum.Enum):
    IDLE = "idle"
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


class ProtocolError(Exception):
    pass


class Connection:
    max_frame = 4096

    def __init__(self, host: str, port: int = 5432):
        if not host:
            raise ValueError("a host is needed")
        if not 0 < port < 65536:
            raise ValueError("bad port %d" % port)
        self.host = host
        self.port = port
        self._state = State.IDLE
        self._sent = 0
        self._pending: List[str] = []

    def open(self) -> None:
        trace("connection.open")
        if self._state is not State.IDLE:  # lacuna: true=covered
            raise ProtocolError("cannot open a %s connection" % self._state.value)
        log.info("connecting to %s:%d", self.host, self.port)
        self._state = State.OPEN

    def send(self, frame: str) -> int:
        trace("connection.send")
        if self._state is not State.OPEN:  # lacuna: false=covered
            raise ProtocolError("not open")
        if len(frame) > self.max_frame:  # lacuna: both=covered
            raise ValueError("frame too large")
        self._pending.append(frame)
        self._sent += len(frame)
        return len(frame)

    def flush(self) -> int:
        """Writes the pending frames; returns how many."""
        trace("connection.flush")
        count = len(self._pending)
        if count == 0:  # lacuna: false=object-creation[Connection._pending]
            return 0
        log.debug("flushing %d frames to %s", count, self.host)
        self._pending.clear()
        return count

    def close(self) -> None:
        trace("connection.close")
        if self._state is State.CLOSED:  # lacuna: true=covered
            return
        if self._pending:  # lacuna: true=object-creation[Connection._pending]
            self.flush()
        self._state = State.CLOSED

    def describe(self) -> str:
        trace("connection.describe")
        if self._state is State.OPEN:  # lacuna: true=covered
            return "%s:%d (open, %d bytes sent)" % (self.host, self.port, self._sent)
        return "%s:%d (%s)" % (self.host, self.port, self._state.value)


def parse_address(address: str, default_port: int = 5432) -> tuple:
    """`host[:port]` → (host, port)."""
    trace("connection.parse_address")
    host, sep, port = address.partition(":")
    if not host:  # lacuna: both=covered
        raise ValueError("empty host")
    if not sep:  # lacuna: both=covered
        return host, default_port
    if not port.isdigit():  # lacuna: true=covered false=solver-limit
        raise ValueError("bad port in %r" % address)
    return host, int(port)
