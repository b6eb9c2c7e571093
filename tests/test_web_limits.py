"""What the web board holds open, through real sockets on loopback: live-update streams are
capped per address and per process (503 with Retry-After beyond), closed when their game
ends and at their maximum age, and a connection that does not finish its request head in
time is closed. Also: the caps fit under the open-files limit, and running out of
descriptors is one line of log a minute, not one per failed accept()."""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time

import aiohttp
import pytest

from bot.storage.sqlite import SqliteStorage
from bot.web.auth import LinkSigner
from bot.web.guard import AcceptErrorFilter, WebLimits, fitted_limits
from bot.web.hub import ChangeHub
from bot.web.run import start
from bot.web.server import WebBoard
from tests.factory import make_service
from tests.test_web_api import NOW, init_data
from tests.test_web_auth import TOKEN
from tests.web_helpers import seats, start_game

#: Generous bound on any single wait below (each normally ends in milliseconds).
PATIENCE = 10.0


async def served(tmp_path, limits: WebLimits):
    hub = ChangeHub()
    inner = SqliteStorage(str(tmp_path / "limits.db"))
    await inner.open()
    service = make_service(
        hub.watch(inner),  # type: ignore[arg-type]
        clock=lambda: NOW,
        render_images=False,
        burst_actions=10**6,
    )
    signer = LinkSigner("limits-secret")
    # A rate limit out of the way: these tests count connections, not requests.
    board = WebBoard(
        service,
        hub,
        signer,
        telegram_token=TOKEN,
        clock=lambda: NOW,
        api_rate=(10**6, 1.0),
        limits=limits,
    )
    runner, port = await start(board, "127.0.0.1", 0)
    game_id = await start_game(service)
    return board, runner, inner, signer, game_id, f"http://127.0.0.1:{port}"


@pytest.fixture
async def streams_board(tmp_path):
    limits = WebLimits(max_streams=100, max_streams_per_address=40, stream_max_age=3600)
    board, runner, inner, signer, game_id, base = await served(tmp_path, limits)
    yield board, signer, game_id, base
    await runner.cleanup()
    await inner.close()


async def open_stream(session, base, signer, game_id, address=None):
    """A live-update stream on its own connection; the response, open (its first state
    read) when the status is 200."""
    url = f"{base}/api/game/{game_id}/events"
    headers = {"X-Forwarded-For": address} if address else {}
    token = signer.stream_token(game_id, None, "en", now=NOW)
    resp = await session.get(url, params={"token": token}, headers=headers)
    if resp.status == 200:
        line = await asyncio.wait_for(resp.content.readline(), PATIENCE)
        assert line.startswith(b"event: state")
    return resp


async def test_streams_beyond_the_caps_get_503_with_retry_after(streams_board):
    board, signer, game_id, base = streams_board
    # Each stream on its own socket (no pooling limit): 101 real connections at the end.
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        mine = [await open_stream(session, base, signer, game_id) for _ in range(40)]
        assert [r.status for r in mine] == [200] * 40
        refused = await open_stream(session, base, signer, game_id)
        assert refused.status == 503
        assert int(refused.headers["Retry-After"]) > 0
        assert refused.headers["X-Content-Type-Options"] == "nosniff"
        # Other addresses (behind the local proxy) still get theirs, up to the process's cap.
        others = [
            await open_stream(session, base, signer, game_id, f"198.51.100.{n}") for n in range(60)
        ]
        assert [r.status for r in others] == [200] * 60
        assert board.streams.open == 100
        full = await open_stream(session, base, signer, game_id, "203.0.113.9")
        assert full.status == 503
        assert "Retry-After" in full.headers
        # A page that goes away gives its place back at once (not at its next ping).
        mine.pop().close()
        deadline = time.monotonic() + PATIENCE
        while board.streams.open > 99 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert board.streams.open == 99
        again = await open_stream(session, base, signer, game_id)
        assert again.status == 200
        for resp in [*mine, *others, again]:
            resp.close()
    deadline = time.monotonic() + PATIENCE
    while board.streams.open and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert board.streams.open == 0


async def read_to_the_end(resp) -> bytes:
    """Everything the server sends until it closes the stream."""
    return await asyncio.wait_for(resp.content.read(), PATIENCE)


async def test_a_stream_is_closed_when_its_game_ends(streams_board):
    board, signer, game_id, base = streams_board
    players = {seat: uid for uid, seat in (await seats(board.service, game_id)).items()}
    me = {"Authorization": init_data(int(players[0]), "P0")}
    them = {"Authorization": init_data(int(players[1]), "P1")}
    async with aiohttp.ClientSession() as session:
        stream = await open_stream(session, base, signer, game_id)
        assert stream.status == 200

        async def act(header, **body) -> dict:
            url = f"{base}/api/game/{game_id}"
            state = await (await session.get(url, headers=header)).json()
            resp = await session.post(
                url + "/action", json={**body, "version": state["version"]}, headers=header
            )
            return await resp.json()

        assert (await act(me, action="resign"))["ok"]
        answer = await act(them, action="accept_resign")
        assert answer["state"]["status"] == "finished"
        rest = await read_to_the_end(stream)
        assert rest.endswith(b"event: end\ndata: over\n\n")
        assert b'"status": "finished"' in rest
        # Opened again (the browser reconnects by itself): the last state, the end, closed.
        again = await open_stream(session, base, signer, game_id)
        assert (await read_to_the_end(again)).endswith(b"event: end\ndata: over\n\n")
    assert board.streams.open == 0


async def test_a_stream_is_closed_at_its_maximum_age(tmp_path):
    limits = WebLimits(stream_max_age=0.3)
    board, runner, inner, signer, game_id, base = await served(tmp_path, limits)
    try:
        async with aiohttp.ClientSession() as session:
            began = time.monotonic()
            stream = await open_stream(session, base, signer, game_id)
            assert stream.status == 200
            rest = await read_to_the_end(stream)
            lasted = time.monotonic() - began
            # The game goes on: the page is told to open a new stream (with a fresh token).
            assert rest.endswith(b"event: renew\ndata: age\n\n")
            assert b"event: end" not in rest
            assert 0.3 <= lasted < PATIENCE
        assert board.streams.open == 0
    finally:
        await runner.cleanup()
        await inner.close()


async def test_connections_that_do_not_finish_their_request_head_in_time_are_closed(tmp_path):
    # Long enough that the well-behaved request below, sharing this loop with 300 sockets,
    # sends its head in time on a loaded machine; short beside PATIENCE.
    limits = WebLimits(header_timeout=2.0)
    _board, runner, inner, _signer, game_id, base = await served(tmp_path, limits)
    port = int(base.rsplit(":", 1)[1])
    try:
        began = time.monotonic()
        sockets = []
        for n in range(300):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if n % 3:  # a request head that never ends, or nothing at all
                writer.write(f"GET /api/game/{game_id} HTTP/1.1\r\nHost: x\r\nX-A: ".encode())
                await writer.drain()
            sockets.append((reader, writer))
        # A well-behaved request meanwhile is answered.
        async with aiohttp.ClientSession() as session, session.get(f"{base}/api/layout") as resp:
            assert resp.status == 200
        closed = await asyncio.wait_for(
            asyncio.gather(*(reader.read() for reader, _ in sockets)), PATIENCE
        )
        waited = time.monotonic() - began
        assert all(data in (b"",) or data.startswith(b"HTTP/1.1 4") for data in closed)
        assert waited < PATIENCE
        for _, writer in sockets:
            writer.close()
    finally:
        await runner.cleanup()
        await inner.close()


async def test_malformed_requests_are_answered_400_without_a_traceback_each(tmp_path, caplog):
    _board, runner, inner, _signer, _game_id, base = await served(tmp_path, WebLimits())
    port = int(base.rsplit(":", 1)[1])
    caplog.set_level(logging.DEBUG, logger="aiohttp.server")
    try:
        heads = (
            b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
            b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
        )
        for n in range(150):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(heads[n % len(heads)])
            answer = await asyncio.wait_for(reader.read(), PATIENCE)
            assert answer.startswith((b"HTTP/1.0 400", b"HTTP/1.1 400"))
            assert b"\r\nServer: Tavla\r\n" in answer  # no aiohttp or Python version
            writer.close()
    finally:
        await runner.cleanup()
        await inner.close()
    logged = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(logged) <= 1, [r.getMessage()[:80] for r in logged]
    assert all(r.levelno < logging.WARNING and r.exc_info is None for r in logged)


def test_the_caps_fit_under_the_open_files_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        # A soft limit below the hard one is raised to it; the caps fit below.
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
        fitted = fitted_limits(WebLimits(max_streams=5000, max_streams_per_address=1000))
        now_soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        assert now_soft == hard
        assert fitted.max_streams <= max(1, hard - 128)
        # Where the limit stays low, so do the caps.
        small = WebLimits(max_streams=5000, max_streams_per_address=1000).fitted(512)
        assert small.max_streams == (512 - 128) // 2
        assert small.max_streams_per_address == small.max_streams
        assert WebLimits(max_streams=50).fitted(hard).max_streams == min(50, (hard - 128) // 2)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_running_out_of_descriptors_logs_a_line_a_minute_not_a_flood():
    now = [0.0]
    guard = AcceptErrorFilter(every=60.0, clock=lambda: now[0])
    logger = logging.getLogger("test-asyncio-accept")
    logger.propagate = False
    lines: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record)

    logger.addHandler(Keep())
    logger.addFilter(guard)
    try:
        error = OSError(errno.EMFILE, "Too many open files")
        for step in range(10_000):  # asyncio logs one per failed accept(), with a traceback
            now[0] = step * 0.01
            try:
                raise error
            except OSError:
                logger.error(
                    "socket.accept() out of system resource\nsocket: <socket>", exc_info=True
                )
        logger.error("something else")  # other errors pass untouched
    finally:
        logger.removeFilter(guard)
        logger.handlers.clear()
    accept_lines = [r for r in lines if "accept()" in r.getMessage()]
    assert len(accept_lines) == 2  # at 0 s and at 60 s, of 100 s
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in accept_lines)
    assert "5999 more" in accept_lines[1].getMessage()
    assert lines[-1].getMessage() == "something else"
