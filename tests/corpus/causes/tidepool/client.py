"""The API client: retries with exponential backoff on connection failures and 5xx answers."""

import logging
import time
import uuid
from typing import Dict, Optional

from . import http

from .telemetry import trace

log = logging.getLogger(__name__)

BASE_URL = "https://api.tidepool.example/v2"


class NotFound(Exception):
    pass


class RetriesExhausted(Exception):
    pass


class ApiClient:
    user_agent = "tidepool/0.4"

    def __init__(self, token: str, retries: int = 3, backoff: float = 0.5):
        if not 0 <= retries <= 5:
            raise ValueError("between 0 and 5 retries")
        self.token = token
        self.retries = retries
        self.backoff = backoff
        self._requests = 0

    def _url(self, path: str) -> str:
        return BASE_URL + "/" + path.lstrip("/")

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number `attempt` (1-based), at most a minute."""
        trace("client.delay")
        if attempt < 1:  # lacuna: both=covered
            raise ValueError("attempts count from 1")
        wait = self.backoff * 2 ** min(attempt - 1, 10)
        if wait > 60.0:  # lacuna: both=covered
            return 60.0
        return wait

    def get_json(self, path: str) -> dict:
        """GET `path`, retrying what is worth retrying."""
        trace("client.get_json")
        request_id = str(uuid.uuid4())
        log.debug("request %s: GET %s", request_id, path)
        last_error: Optional[Exception] = None
        for attempt in range(1, self.retries + 2):
            self._requests += 1
            try:
                response = http.request("GET", self._url(path))
            except http.ConnectionFailed as e:
                last_error = e
                log.warning("attempt %d of %s failed: %s", attempt, path, e)
                continue
            if response.status == 429 or response.status >= 500:  # lacuna: both=external-call[urllib.request.urlopen]
                last_error = http.HTTPError(response.status, path)
                continue
            if response.status == 404:  # lacuna: both=external-call[urllib.request.urlopen]
                raise NotFound(path)
            response.raise_for_status()
            return response.json()
        raise RetriesExhausted("%s after %d attempts" % (path, self.retries + 1)) from last_error

    def post_event(self, kind: str, payload: Dict[str, str]) -> bool:
        """Sends an event; returns whether the server accepted it."""
        trace("client.post_event")
        if not kind:  # lacuna: both=covered
            raise ValueError("events have a kind")
        body = {"kind": kind, "at": time.time(), "data": payload}
        try:
            response = http.request("POST", self._url("/events"), body)
        except http.ConnectionFailed:
            log.error("event %s lost", kind)
            return False
        if response.status == 202:  # lacuna: both=external-call[urllib.request.urlopen]
            return True
        log.warning("event %s refused with %d", kind, response.status)
        return False
