"""Drawing processes for board pictures, fed straight from the event loop.

A press costs the bot a picture; drawing and encoding it takes a few milliseconds of CPU,
so it runs in separate processes that another core can take. ``concurrent.futures``'
process pool would do, but every picture then passes through two helper threads of the bot
process (a feeder that writes the request, a manager that waits for the answer and wakes the
loop), thread hops that cost CPU on every press. Here each worker is a plain child process
joined to the bot by a socket pair; the event loop writes the request and reads the answer
itself (``loop.sock_sendall`` / ``sock_recv_into``), with no thread in between.

Messages are a 4-byte big-endian length and a pickle: ``(view, format)`` one way, ``(True,
picture bytes)`` or ``(False, error text)`` back. A worker serves one picture at a time and
exits when its socket closes (the bot stopped, or was killed).
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
from typing import Any

from renderers.view import BoardView

_HEADER = struct.Struct(">I")


class DrawingError(RuntimeError):
    """A worker could not draw a picture (the message says why)."""


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

    def close(self) -> None:
        """Close the socket (the worker then exits) and reap the process."""
        self.sock.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def _read_exactly(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytes:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = await loop.sock_recv_into(sock, view[got:])
        if n == 0:
            raise DrawingError("the drawing process exited")
        got += n
    return bytes(buffer)


class DrawingPool:
    """``processes`` drawing processes; :meth:`draw` gives a picture from whichever is free."""

    #: Whether this platform can start them (passing a socket to a child needs POSIX).
    supported = os.name == "posix"

    def __init__(self, processes: int) -> None:
        if processes < 1:
            raise ValueError("a drawing pool needs at least one process")
        self._workers = [_Worker() for _ in range(processes)]
        self._idle: asyncio.Queue[_Worker] | None = None

    async def draw(self, view: BoardView, fmt: str) -> bytes:
        """The picture of ``view`` as ``fmt`` (see :func:`renderers.picture.render_picture`)."""
        if self._idle is None:  # made here: the queue belongs to the running loop
            self._idle = asyncio.Queue()
            for worker in self._workers:
                self._idle.put_nowait(worker)
        worker = await self._idle.get()
        # Shielded: a caller that gives up must not leave half an answer in the socket.
        ok, result = await asyncio.shield(self._exchange(worker, (view, fmt)))
        if not ok:
            raise DrawingError(result)
        return result

    async def _exchange(self, worker: _Worker, request: Any) -> tuple[bool, Any]:
        loop = asyncio.get_running_loop()
        assert self._idle is not None
        try:
            payload = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
            await loop.sock_sendall(worker.sock, _HEADER.pack(len(payload)) + payload)
            (size,) = _HEADER.unpack(await _read_exactly(loop, worker.sock, _HEADER.size))
            answer = pickle.loads(await _read_exactly(loop, worker.sock, size))
        except (OSError, DrawingError) as exc:
            # The process is gone or the stream is broken: start a fresh one in its place.
            worker.close()
            index = self._workers.index(worker)
            worker = self._workers[index] = _Worker()
            if isinstance(exc, DrawingError):
                raise
            raise DrawingError(f"the drawing process failed: {exc}") from exc
        finally:
            self._idle.put_nowait(worker)
        return answer

    def close(self) -> None:
        """Stop every drawing process."""
        for worker in self._workers:
            worker.close()
        self._workers = []


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
    """A drawing process: answer requests on socket ``fd`` until it closes."""
    from renderers.picture import render_picture

    # Ctrl-C in a console reaches the whole process group: the bot decides when we stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
