"""Drawing processes for board pictures, fed straight from the event loop.

A press costs the bot a picture; drawing and encoding it takes a few milliseconds of CPU,
so it runs in separate processes that another core can take. ``concurrent.futures``'
process pool would do, but every picture then passes through two helper threads of the bot
process (a feeder that writes the request, a manager that waits for the answer and wakes the
loop), thread hops that cost CPU on every press. Here each worker is a plain child process
joined to the bot by a socket pair, read and written by the event loop itself, with no
thread in between.

Messages are a 4-byte big-endian length and a pickle: ``(view, format)`` one way, ``(True,
picture bytes)`` or ``(False, error text)`` back. A worker draws one picture at a time, in
the order asked, and exits when its socket closes (the bot stopped, or was killed). The bot
does not wait for an answer before it asks for the next picture: requests are written as
they come and the answers are matched to them in order, as they arrive. A picture so costs
its caller two turns of the event loop, however many are drawn at once: on a loop busy
with other work (a turn of a second or more), pictures asked for one at a time, each a few
turns, came at a fraction of one a second, and every chat's board waited for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
from collections import deque
from typing import Any

from renderers.view import BoardView

_HEADER = struct.Struct(">I")


class DrawingError(RuntimeError):
    """A worker could not draw a picture (the message says why)."""


class _Answers(asyncio.Protocol):
    """The bot's end of a worker's socket: answers matched, in order, to the requests."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pending: deque[asyncio.Future[tuple[bool, Any]]] = deque()
        self.lost = False
        self._buffer = bytearray()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def ask(self, request: Any) -> asyncio.Future[tuple[bool, Any]]:
        """Write ``request``; the future of its answer."""
        assert self.transport is not None
        payload = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        answer = asyncio.get_running_loop().create_future()
        self.pending.append(answer)
        self.transport.write(_HEADER.pack(len(payload)) + payload)
        return answer

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        while len(buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(buffer)
            end = _HEADER.size + size
            if len(buffer) < end:
                return
            body = bytes(memoryview(buffer)[_HEADER.size : end])
            del buffer[:end]
            answer = self.pending.popleft()
            if not answer.done():  # (its caller may have given up: the answer is skipped)
                answer.set_result(pickle.loads(body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        while self.pending:
            answer = self.pending.popleft()
            if not answer.done():
                answer.set_exception(DrawingError(f"the drawing process exited ({exc})"))


class _Worker:
    """One drawing process and the bot's end of its socket."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot.drawing", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        ours.setblocking(False)
        self.sock = ours
        #: The socket as read and written by the event loop (from the first picture on).
        self.answers: _Answers | None = None
        self._joining: asyncio.Future[Any] | None = None

    async def connect(self) -> _Answers:
        """The socket, joined to the running event loop (once, for every caller)."""
        if self.answers is None:
            if self._joining is None:
                loop = asyncio.get_running_loop()
                self._joining = asyncio.ensure_future(
                    loop.create_unix_connection(_Answers, sock=self.sock)
                )
            _transport, self.answers = await asyncio.shield(self._joining)
        return self.answers

    def close(self) -> None:
        """Close the socket (the worker then exits) and reap the process."""
        if self.answers is not None and self.answers.transport is not None:
            with contextlib.suppress(RuntimeError):  # (its event loop closed already)
                self.answers.transport.close()
        self.sock.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class DrawingPool:
    """``processes`` drawing processes; :meth:`draw` gives a picture from one with the fewest
    pictures asked of it (in turn among them)."""

    #: Whether this platform can start them (passing a socket to a child needs POSIX).
    supported = os.name == "posix"

    def __init__(self, processes: int) -> None:
        if processes < 1:
            raise ValueError("a drawing pool needs at least one process")
        self._workers = [_Worker() for _ in range(processes)]
        self._turn = 0  # where the next look for the least busy worker starts

    async def draw(self, view: BoardView, fmt: str) -> bytes:
        """The picture of ``view`` as ``fmt`` (see :func:`renderers.picture.render_picture`)."""
        self._turn = (self._turn + 1) % len(self._workers)
        worker = min(self._workers[self._turn :] + self._workers[: self._turn], key=_load)
        try:
            answers = await worker.connect()
            if answers.lost:
                raise DrawingError("the drawing process exited")
            # A caller that gives up leaves its answer to be read and skipped.
            ok, result = await answers.ask((view, fmt))
        except (OSError, DrawingError) as exc:
            # The process is gone or the stream is broken: start a fresh one in its place.
            if worker in self._workers:
                worker.close()
                self._workers[self._workers.index(worker)] = _Worker()
            if isinstance(exc, DrawingError):
                raise
            raise DrawingError(f"the drawing process failed: {exc}") from exc
        if not ok:
            raise DrawingError(result)
        return result

    def close(self) -> None:
        """Stop every drawing process."""
        for worker in self._workers:
            worker.close()
        self._workers = []


def _load(worker: _Worker) -> int:
    """Pictures asked of ``worker`` and not yet answered."""
    return len(worker.answers.pending) if worker.answers is not None else 0


def _receive(sock: socket.socket, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None at the end of the stream."""
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


def serve(fd: int) -> None:
    """A drawing process: answer requests on socket ``fd`` until it closes; the fonts and
    pieces are loaded first (the process starts with the bot, before anyone waits)."""
    from renderers.picture import render_picture, warm_up

    # Ctrl-C in a console reaches the whole process group: the bot decides when we stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_up()
    with socket.socket(fileno=fd) as sock:
        while (header := _receive(sock, _HEADER.size)) is not None:
            body = _receive(sock, _HEADER.unpack(header)[0])
            if body is None:
                return
            view, fmt = pickle.loads(body)
            try:
                answer: tuple[bool, Any] = (True, render_picture(view, fmt))
            except Exception as exc:  # told to the bot, which logs it with the press
                answer = (False, f"{type(exc).__name__}: {exc}")
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
            with contextlib.suppress(OSError):
                sock.sendall(_HEADER.pack(len(data)) + data)


if __name__ == "__main__":
    serve(int(sys.argv[1]))
