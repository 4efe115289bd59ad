"""A small HTTP client in the style of `requests`, over `urllib`: a response type, one
`request` function, and the errors callers catch."""

import json
import logging
import urllib.error
import urllib.request
from typing import Dict, Optional

from .telemetry import trace

log = logging.getLogger(__name__)


class ConnectionFailed(Exception):
    """The server could not be reached."""


class HTTPError(Exception):
    def __init__(self, status: int, url: str):
        super().__init__("HTTP %d for %s" % (status, url))
        self.status = status


class Response:
    def __init__(self, status: int, body: str = "", url: str = ""):
        self.status = status
        self.body = body
        self.url = url

    def ok(self) -> bool:
        trace("http.ok")
        return 200 <= self.status < 400

    def raise_for_status(self) -> None:
        trace("http.raise_for_status")
        if self.status >= 400:  # lacuna: both=covered
            raise HTTPError(self.status, self.url)

    def json(self) -> dict:
        trace("http.json")
        if not self.body:  # lacuna: both=covered
            return {}
        return json.loads(self.body)


def request(method: str, url: str, body: Optional[dict] = None, timeout: float = 10.0) -> Response:
    """Sends one request; HTTP errors become responses, network errors `ConnectionFailed`."""
    trace("http.request")
    data = None
    if body is not None:  # lacuna: both=covered
        data = json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Accept", "application/json")
    log.debug("%s %s", method, url)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as raw:
            return Response(raw.status, raw.read().decode("utf-8"), url)
    except urllib.error.HTTPError as e:
        return Response(e.code, "", url)
    except (urllib.error.URLError, OSError) as e:
        raise ConnectionFailed(str(e)) from e
