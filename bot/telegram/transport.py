"""python-telegram-bot's HTTP transport on aiohttp.

PTB talks to the Bot API through a :class:`telegram.request.BaseRequest`; its default one
uses httpx. Under load, httpx and its connection pool cost the bot about four times the CPU
of aiohttp for the same requests (0.8 ms against 0.12 ms for a small call, 1.3 ms against
0.33 ms for a board upload, measured against a local server), and the Telegram adapter is
the bot's busiest part. aiohttp is already here (discord.py is built on it), so this class
plugs it into PTB's documented extension point; everything above it (retries, flood limits,
parsing of answers) is PTB's own.

One thing it trims, through PTB's hook for reading answers (:meth:`AiohttpRequest.
parse_json_payload`): the inline keyboard of every message in Telegram's answers. Each
button press brings the pressed board back with its whole keyboard, and each edit of a
board answers with the edited message and its keyboard again; PTB would build an object
for every button of both, about half the cost of parsing a press, and the bot never reads
a keyboard back (it knows what it sent). Everything else of the answers is PTB's as usual.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData
from yarl import URL

from bot import metrics

#: The class of PTB's "not given" timeout markers (its module is private).
_NotGiven = type(BaseRequest.DEFAULT_NONE)
#: A timeout as PTB passes it: seconds, None (no limit) or "not given".
Timeout = float | None | object


class _Collected:
    """A stream for aiohttp's multipart writer that keeps what it is given."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    async def write(self, chunk: bytes | bytearray | memoryview) -> None:
        self.chunks.append(bytes(chunk))


async def _in_one_piece(form: aiohttp.FormData) -> tuple[bytes, str]:
    """A multipart form (an upload: a board picture) as one body and its content type.

    aiohttp writes a multipart body to the socket part by part, boundary by boundary: about
    twenty ``send`` calls for a board, each a system call and, on a network, a packet of
    its own. A body in one piece goes out with its headers in one call. The encoding
    itself is aiohttp's.
    """
    writer = form()
    collected = _Collected()
    await writer.write(collected)  # type: ignore[arg-type]
    return b"".join(collected.chunks), writer.content_type


def _drop_keyboards(message: Any) -> None:
    """Drop the inline keyboard of a message (and of the message it replies to)."""
    if isinstance(message, dict) and "message_id" in message:
        message.pop("reply_markup", None)
        _drop_keyboards(message.get("reply_to_message"))


class AiohttpRequest(BaseRequest):
    """A Bot API transport over one :class:`aiohttp.ClientSession`.

    ``connections`` caps the keep-alive connections (requests beyond them wait for one, for
    at most ``pool_timeout`` seconds). Timeouts have PTB's meaning and defaults: a call may
    pass its own (``getUpdates`` lengthens the read timeout by its long-poll time). A write
    timeout bounds the whole request, as aiohttp has no separate one for sending.
    """

    def __init__(
        self,
        connections: int = 64,
        *,
        connect_timeout: float | None = 5.0,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        media_write_timeout: float | None = 20.0,
        pool_timeout: float | None = 30.0,
    ) -> None:
        self._connections = max(1, connections)
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._media_write_timeout = media_write_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        #: (scheme, host) -> (proxy, its auth), read from the environment once per host.
        self._proxies: dict[tuple[str, str], tuple[URL | None, aiohttp.BasicAuth | None]] = {}

    @staticmethod
    def parse_json_payload(payload: bytes) -> Any:
        """Telegram's answer as PTB reads it, without the messages' inline keyboards (see
        the module's docstring): in a message given as the result (a send or an edit), and
        in the messages of updates (a pressed message, a message replied to)."""
        data = BaseRequest.parse_json_payload(payload)
        result = data.get("result") if isinstance(data, dict) else None
        if isinstance(result, dict):
            _drop_keyboards(result)
        elif isinstance(result, list):
            for update in result:
                if isinstance(update, dict):
                    for part in update.values():
                        if isinstance(part, dict):  # a message, or a press and its message
                            _drop_keyboards(part)
                            _drop_keyboards(part.get("message"))
        return data

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout, in seconds."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the session (again, after a shutdown)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections),
                headers={"User-Agent": self.USER_AGENT},
                # Not trust_env: with it aiohttp re-reads the proxy variables and ~/.netrc on
                # every request, the latter through a thread (two thread hops and a file
                # parse per Bot API call). The proxy is looked up once per host instead
                # (:meth:`_proxy`); the Bot API needs no netrc login (the token is the URL).
                trust_env=False,
            )
            self._proxies.clear()

    def _proxy(self, url: str) -> tuple[URL | None, aiohttp.BasicAuth | None]:
        """The proxy for ``url`` from HTTP(S)_PROXY / NO_PROXY, as httpx (PTB's default)
        and aiohttp's ``trust_env`` honour them: where Telegram is reached through a proxy,
        set it there. Read once per scheme and host."""
        parsed = URL(url)
        key = (parsed.scheme, parsed.host or "")
        found = self._proxies.get(key)
        if found is None:
            try:
                found = get_env_proxy_for_url(parsed)
            except LookupError:
                found = (None, None)
            self._proxies[key] = found
        return found

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def _timeout(
        self,
        files: bool,
        read: Timeout,
        write: Timeout,
        connect: Timeout,
        pool: Timeout,
    ) -> aiohttp.ClientTimeout:
        def pick(value: Timeout, default: float | None) -> float | None:
            return default if isinstance(value, _NotGiven) else value  # type: ignore[return-value]

        read_s = pick(read, self._read_timeout)
        write_s = pick(write, self._media_write_timeout if files else self._write_timeout)
        connect_s = pick(connect, self._connect_timeout)
        pool_s = pick(pool, self._pool_timeout)
        parts = (read_s, write_s, connect_s, pool_s)
        return aiohttp.ClientTimeout(
            # aiohttp's "connect" includes the wait for a free pooled connection.
            connect=None if connect_s is None or pool_s is None else connect_s + pool_s,
            sock_connect=connect_s,
            sock_read=read_s,
            total=None if None in parts else sum(p for p in parts if p is not None),
        )

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        write_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        connect_timeout: Timeout = BaseRequest.DEFAULT_NONE,
        pool_timeout: Timeout = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Send one request; its HTTP status and body. Transport failures become PTB's
        :class:`~telegram.error.TimedOut` or :class:`~telegram.error.NetworkError`."""
        if self._session is None or self._session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        data: Any = fields
        headers = None
        if files:
            form = aiohttp.FormData()
            for name, value in (fields or {}).items():
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            data, content_type = await _in_one_piece(form)
            headers = {"Content-Type": content_type}
        timeout = self._timeout(
            bool(files), read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        proxy, proxy_auth = self._proxy(url)
        # The Bot API method is the URL's last part (the token before it stays out).
        api_method = url.rsplit("/", 1)[-1]
        try:
            async with self._session.request(
                method,
                url,
                data=data,
                headers=headers,
                timeout=timeout,
                proxy=proxy,
                proxy_auth=proxy_auth,
            ) as answer:
                body = await answer.read()
        except TimeoutError as exc:  # aiohttp's timeouts are asyncio's (and the builtin)
            metrics.API_CALLS.labels("telegram", api_method, "network").inc()
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            metrics.API_CALLS.labels("telegram", api_method, "network").inc()
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc
        metrics.API_CALLS.labels("telegram", api_method, metrics.api_result(answer.status)).inc()
        if answer.status == 429:
            metrics.RATE_LIMITED.labels("telegram").inc()
        return answer.status, body
