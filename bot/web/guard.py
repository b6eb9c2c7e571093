"""Limits on what the web board holds open: live-update streams, slow requests, descriptors.

Every open connection costs a file descriptor. Live-update streams (Server-Sent Events) stay
open for as long as a page is, so they are counted per address and per process (503 with
``Retry-After`` beyond), and closed when their game ends and after a maximum age (the page
opens a new one by itself). A connection must send a complete request head within
``header_timeout`` of opening (or of its previous answer), else it is closed: aiohttp counts
a connection still waiting for a complete request as idle, so its keep-alive timeout is that
limit. The caps are sized below the process's descriptor limit; running out of descriptors,
and malformed requests, are logged once a minute instead of once each with a traceback.
"""

from __future__ import annotations

import errno
import logging
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from aiohttp.http_exceptions import HttpProcessingError

log = logging.getLogger(__name__)

#: Descriptors kept for everything but streams: the database, the bots' connections, files,
#: the listening socket and ordinary requests.
RESERVED_DESCRIPTORS = 128
#: What a refused stream is told to wait (seconds).
BUSY_RETRY_AFTER = 15


@dataclass(frozen=True)
class WebLimits:
    """How much of this process the web board may hold (``WEB_MAX_STREAMS``,
    ``WEB_MAX_STREAMS_PER_ADDRESS``, ``WEB_STREAM_MAX_AGE``, ``WEB_HEADER_TIMEOUT``: see
    ``.env.example``)."""

    #: Live-update streams open at once in this process, and from one address.
    max_streams: int = 2000
    max_streams_per_address: int = 16
    #: Seconds after which a stream is closed (the page reconnects with a fresh token).
    stream_max_age: float = 900.0
    #: Seconds a connection may take to send a complete request head (also how long an
    #: idle kept-alive connection stays open), and to send a request's body.
    header_timeout: float = 10.0

    @classmethod
    def from_env(cls, get: Callable[[str], str | None]) -> WebLimits:
        """The limits the environment sets (``get``: its lookup); defaults for the rest."""
        default = cls()
        return cls(
            max_streams=int(get("WEB_MAX_STREAMS") or default.max_streams),
            max_streams_per_address=int(
                get("WEB_MAX_STREAMS_PER_ADDRESS") or default.max_streams_per_address
            ),
            stream_max_age=float(get("WEB_STREAM_MAX_AGE") or default.stream_max_age),
            header_timeout=float(get("WEB_HEADER_TIMEOUT") or default.header_timeout),
        )

    def fitted(self, descriptors: int) -> WebLimits:
        """These limits with the stream cap below ``descriptors`` (the soft RLIMIT_NOFILE):
        streams get at most half of what is left after :data:`RESERVED_DESCRIPTORS`."""
        room = max(1, (descriptors - RESERVED_DESCRIPTORS) // 2)
        streams = min(self.max_streams, room)
        return replace(
            self,
            max_streams=streams,
            max_streams_per_address=min(self.max_streams_per_address, streams),
        )


class StreamSlots:
    """Counts open streams per address and in all; :meth:`take` refuses beyond the caps."""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self.open = 0
        self.opened = 0  # in all, since start
        self._by_address: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """One more stream for ``address``; False (nothing taken) when a cap is reached."""
        held = self._by_address.get(address, 0)
        if self.open >= self.limits.max_streams or held >= self.limits.max_streams_per_address:
            return False
        self.open += 1
        self.opened += 1
        self._by_address[address] = held + 1
        return True

    def give_back(self, address: str) -> None:
        """The stream of ``address`` has closed."""
        self.open -= 1
        held = self._by_address.pop(address, 1) - 1
        if held > 0:
            self._by_address[address] = held


def raise_descriptor_limit() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one where allowed; ``(soft, hard)``
    as they are afterwards (an unlimited hard limit is left as it is: the kernel would
    refuse it, and the soft one is what counts)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            log.warning("could not raise the open-files limit from %s to %s", soft, hard)
    return soft, hard


def fitted_limits(limits: WebLimits) -> WebLimits:
    """``limits`` below this process's open-files limit, raised to its hard limit first;
    one line of log says what they are."""
    soft, hard = raise_descriptor_limit()
    fitted = limits if soft == resource.RLIM_INFINITY else limits.fitted(soft)
    log.info(
        "web board: %s open files allowed (hard limit %s); live updates: %d at most, "
        "%d per address, closed after %.0f s; request heads within %.0f s",
        "unlimited" if soft == resource.RLIM_INFINITY else soft,
        "unlimited" if hard == resource.RLIM_INFINITY else hard,
        fitted.max_streams,
        fitted.max_streams_per_address,
        fitted.stream_max_age,
        fitted.header_timeout,
    )
    return fitted


_OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class LineAMinute(logging.Filter):
    """Lets one short line through per ``every`` seconds for records that :meth:`reason`
    recognises (with how many were dropped since), and every other record unchanged."""

    #: The line (``%s``: the reason, ``%d``: how many more since the last one) and its level.
    text = "%s; %d more since the last line"
    level = logging.WARNING

    def __init__(self, every: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every = every
        self.clock = clock
        self._last: float | None = None
        self._dropped = 0

    def reason(self, record: logging.LogRecord) -> str | None:
        """What the record is about, in a few words; None: not one of those."""
        raise NotImplementedError

    def filter(self, record: logging.LogRecord) -> bool:
        reason = self.reason(record)
        if reason is None:
            return True
        now = self.clock()
        if self._last is not None and now - self._last < self.every:
            self._dropped += 1
            return False
        record.msg, record.args = self.text, (reason, self._dropped)
        record.exc_info = None
        record.exc_text = None
        record.levelno, record.levelname = self.level, logging.getLevelName(self.level)
        self._last, self._dropped = now, 0
        return True


class AcceptErrorFilter(LineAMinute):
    """On asyncio's logger: "socket.accept() out of system resource" comes once per failed
    accept(), with a traceback, for as long as descriptors lack (gigabytes of log in
    minutes)."""

    text = "accept() failed (%s): new connections wait; %d more since the last line"

    def reason(self, record: logging.LogRecord) -> str | None:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return None
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, OSError):
            return exc.strerror if exc.errno in _OUT_OF_DESCRIPTORS else None
        return "out of resources"


class MalformedRequestFilter(LineAMinute):
    """On aiohttp's server logger: a request that is not HTTP (a bad request line, a header
    over 8 KiB, a bad character) is answered 400 and logged with a traceback at ERROR, one
    per request, for anyone to fill the log with. Errors of the handlers pass unchanged."""

    text = "malformed requests answered 400 (the last: %s); %d more since the last line"
    level = logging.INFO

    def reason(self, record: logging.LogRecord) -> str | None:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError):
            return None
        remote = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        return f"{type(exc).__name__} from {remote}"


_installed: list[logging.Filter] = []


def quiet_floods() -> None:
    """Install :class:`AcceptErrorFilter` on asyncio's logger and
    :class:`MalformedRequestFilter` on aiohttp's server logger (once per process)."""
    if not _installed:
        _installed.extend((AcceptErrorFilter(), MalformedRequestFilter()))
        logging.getLogger("asyncio").addFilter(_installed[0])
        logging.getLogger("aiohttp.server").addFilter(_installed[1])
