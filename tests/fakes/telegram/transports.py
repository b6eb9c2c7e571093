"""The two transports: in-process (:class:`FakeRequest`) and HTTP (:class:`FakeBotAPI`)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import hdrs, web
from telegram.request import BaseRequest, RequestData

from tests.fakes.telegram.fake import FakeTelegram
from tests.fakes.telegram.forms import FormError, header_value, parse_form
from tests.fakes.telegram.records import ApiError, UploadedFile
from tests.fakes.telegram.text import decode_params


class FakeRequest(BaseRequest):
    """A ``BaseRequest`` answering in-process from a :class:`FakeTelegram` (no sockets).

    Works with the default ``base_url`` (``https://api.telegram.org/bot``) or any other."""

    def __init__(self, fake: FakeTelegram | None = None, *, read_timeout: float | None = 5.0):
        self.fake = fake if fake is not None else FakeTelegram()
        self._read_timeout = read_timeout

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        params = decode_params(request_data.json_parameters) if request_data else {}
        files: dict[str, UploadedFile] = {}
        if request_data is not None:
            for name, (filename, content, content_type) in request_data.multipart_data.items():
                if isinstance(content, bytes):
                    data = content
                else:  # a file handle: read it, and rewind it for a retry of the request
                    start = content.tell() if content.seekable() else None
                    data = content.read()
                    if start is not None:
                        content.seek(start)
                files[name] = UploadedFile(filename, data, content_type)
        reply = await self.fake.handle_url(method, url, params, files)
        if reply.drop:
            raise ConnectionResetError("fake Bot API dropped the connection")
        return reply.status, reply.body


class FakeBotAPI(FakeTelegram):
    """The fake served over HTTP on 127.0.0.1 (a free port), for end-to-end tests.

    ``async with FakeBotAPI() as fake:`` (or ``await fake.start()`` / ``await fake.stop()``),
    then ``ApplicationBuilder().token(...).base_url(fake.base_url)
    .base_file_url(fake.base_file_url)``."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, **kwargs: Any):
        super().__init__(**kwargs)
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        if self._runner is None:
            raise RuntimeError("FakeBotAPI is not started")
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    async def start(self) -> FakeBotAPI:
        self._closing = False
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        self._runner = runner
        self.port = runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        await self.aclose()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> FakeBotAPI:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        params = decode_params(request.query)
        files: dict[str, UploadedFile] = {}
        refused: str | None = None  # a body Telegram could not read: its 400, no call
        if request.can_read_body:
            kind, extra = header_value(request.headers.get(hdrs.CONTENT_TYPE, ""))
            if kind == "application/json":
                try:
                    body = json.loads(await request.read())
                except ValueError as exc:
                    refused = f"Bad Request: can't parse JSON: {exc}"
                else:
                    if isinstance(body, dict):
                        params.update(body)
            elif kind == "multipart/form-data":
                try:
                    raw, files = parse_form(await request.read(), extra.get("boundary", ""))
                except FormError as exc:
                    refused = f"Bad Request: can't parse the request: {exc}"
                else:
                    params.update(decode_params(raw))
            else:
                form = await request.post()
                params.update(decode_params({name: str(value) for name, value in form.items()}))
        if refused is not None:
            reply = self._error_reply(ApiError(400, refused))
        else:
            reply = await self.handle_url(request.method, request.path, params, files)
        if reply.drop and request.transport is not None:
            request.transport.abort()  # the client sees the connection closed, no answer
        return web.Response(status=reply.status, body=reply.body, content_type=reply.content_type)
