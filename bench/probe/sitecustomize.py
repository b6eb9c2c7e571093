"""A counting probe for the bot process of a bench: the event loop's turns, the Telegram
rate limiter's slots, the pictures and the web board's actions, every 5 s.

Python imports ``sitecustomize`` at start-up from the path, so
``PYTHONPATH=$PWD/bench/probe PROBE_FILE=/tmp/probe.jsonl python bench/crowd.py …`` (an
absolute path: the bot runs in a folder of its own) loads it into
every Python process of the run; it counts only in ``python -m bot`` (installed at the bot's
first turn of its event loop) and writes one JSON line each 5 s to ``PROBE_FILE``:

* ``lag_mean_ms``, ``lag_max_ms``: how late a 0.1 s sleep wakes (a turn's length, about);
  ``iters_per_s`` turns of the loop, ``ready_mean`` callbacks ready at a turn's start;
  ``cpu_share`` the process's CPU (cores); ``tasks`` asyncio tasks alive;
* ``slots_taken``, ``slots_rank0/1/2`` (urgent, other, background), ``slot_wait_s``,
  ``slot_hold_s``, ``slot_hold_iters``: the rate limiter's slots, sums over the 5 s (divide
  by ``slots_released``), and ``slots_in_flight`` held at the end;
* ``call_counted``, ``call_free`` (with ``_s`` and ``_iters``: their seconds and turns
  summed), ``m_<method>``: the Bot API calls, counted by Telegram's limits or not, by method;
* ``draw``, ``draw_s``, ``draw_iters``: pictures drawn for the chats;
* ``jobs``, ``job_queue_s``, ``job_run_s``, ``job_run_iters``: the chats' send queues;
* ``web_action`` (``_s``, ``_iters``), ``sse_states``, ``relays``, ``service_presses``: the
  web board's actions, the states its live streams sent, the turns relayed to the chats,
  the game service's presses.

It patches private methods of the bot: a diagnostic for benches, never for production.
"""

from __future__ import annotations

import os
import sys
from typing import Any

OUT = os.environ.get("PROBE_FILE")
REPORT_EVERY = 5.0


def _start() -> None:
    import time
    from asyncio import base_events

    loop_counts = {"iters": 0, "iter_time": 0.0, "ready_sum": 0}
    window: dict[str, float] = {}
    slots: dict[int, tuple[float, int]] = {}
    run_once = base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]
    installed = [False]

    def add(name: str, value: float = 1.0) -> None:
        window[name] = window.get(name, 0.0) + value

    def counting_run_once(self: Any) -> None:
        if not installed[0]:
            installed[0] = True
            if sys.argv and sys.argv[0].endswith(os.path.join("bot", "__main__.py")):
                _install(self, add, loop_counts, window, slots)
        ready = len(self._ready)
        began = time.perf_counter()
        run_once(self)
        loop_counts["iters"] += 1
        loop_counts["iter_time"] += time.perf_counter() - began
        loop_counts["ready_sum"] += ready

    base_events.BaseEventLoop._run_once = counting_run_once  # type: ignore[attr-defined]


def _timed(add: Any, counts: dict[str, Any], name: str, work: Any) -> Any:
    """``work`` (a coroutine function) counted as ``name``: calls, seconds and turns."""
    import time

    async def timed(*args: Any, **kwargs: Any) -> Any:
        began, turns = time.perf_counter(), counts["iters"]
        try:
            return await work(*args, **kwargs)
        finally:
            add(name)
            add(f"{name}_s", time.perf_counter() - began)
            add(f"{name}_iters", counts["iters"] - turns)

    return timed


def _install(
    loop: Any, add: Any, counts: dict[str, Any], window: dict[str, float], slots: Any
) -> None:
    import asyncio
    import json
    import time

    from bot.service import service as game_service
    from bot.telegram import limiter as rate
    from bot.telegram import outbox
    from bot.web import relay
    from bot.web import server as web

    limiter = rate.SlidingWindowLimiter
    take_slot, release, process = limiter._take_slot, limiter._release, limiter.process_request

    async def counted_take(self: Any, chat: Any, queue: int = rate.OTHER_RANK) -> Any:
        began, turns = time.perf_counter(), counts["iters"]
        slot = await take_slot(self, chat, queue)
        add("slot_wait_s", time.perf_counter() - began)
        add("slot_wait_iters", counts["iters"] - turns)
        add("slots_taken")
        add(f"slots_rank{queue}")
        slots[id(slot)] = (time.perf_counter(), counts["iters"])
        return slot

    def counted_release(self: Any, slot: Any, chat: Any, *, counted_by_telegram: bool) -> None:
        taken = slots.pop(id(slot), None)
        if taken is not None:
            add("slot_hold_s", time.perf_counter() - taken[0])
            add("slot_hold_iters", counts["iters"] - taken[1])
            add("slots_released")
        release(self, slot, chat, counted_by_telegram=counted_by_telegram)

    async def counted_process(
        self: Any,
        callback: Any,
        args: Any,
        kwargs: Any,
        endpoint: str,
        data: Any,
        rate_limit_args: Any,
    ) -> Any:
        kind = "call_counted" if endpoint in rate.COUNTED_METHODS else "call_free"
        add(f"m_{endpoint}")
        timed = _timed(add, counts, kind, callback)
        return await process(self, timed, args, kwargs, endpoint, data, rate_limit_args)

    limiter._take_slot = counted_take  # type: ignore[method-assign]
    limiter._release = counted_release  # type: ignore[method-assign]
    limiter.process_request = counted_process  # type: ignore[method-assign]

    post = outbox.Outbox.post

    def counted_post(self: Any, chat: Any, job: Any) -> None:
        posted = time.perf_counter()

        async def timed() -> None:
            add("job_queue_s", time.perf_counter() - posted)
            await _timed(add, counts, "job_run", job)()
            add("jobs")

        post(self, chat, timed)

    outbox.Outbox.post = counted_post  # type: ignore[method-assign]
    web.WebBoard._carry_out = _timed(add, counts, "web_action", web.WebBoard._carry_out)  # type: ignore[method-assign]
    send_state = web.WebBoard._send_state

    async def counted_state(self: Any, *args: Any) -> None:
        add("sse_states")
        await send_state(self, *args)

    web.WebBoard._send_state = counted_state  # type: ignore[method-assign]
    deliver = relay.deliver

    async def counted_relay(*args: Any, **kwargs: Any) -> None:
        add("relays")
        await deliver(*args, **kwargs)

    relay.deliver = web.relay.deliver = counted_relay  # type: ignore[assignment]
    drawn = game_service.GameService.drawn

    async def counted_drawn(self: Any, view: Any) -> Any:
        if view.picture_due is None:
            return await drawn(self, view)
        return await _timed(add, counts, "draw", drawn)(self, view)

    game_service.GameService.drawn = counted_drawn  # type: ignore[method-assign]
    press = game_service.GameService.press

    async def counted_press(self: Any, *args: Any, **kwargs: Any) -> Any:
        add("service_presses")
        return await press(self, *args, **kwargs)

    game_service.GameService.press = counted_press  # type: ignore[method-assign]

    async def report() -> None:
        lags: list[float] = []
        last, cpu, turns = time.perf_counter(), time.process_time(), counts["iters"]
        counts.update(iter_time=0.0, ready_sum=0)
        while True:
            began = time.perf_counter()
            await asyncio.sleep(0.1)
            lags.append(time.perf_counter() - began - 0.1)
            now = time.perf_counter()
            if now - last < REPORT_EVERY:
                continue
            span, used, done = now - last, time.process_time() - cpu, counts["iters"] - turns
            line: dict[str, Any] = {
                "t": round(time.time(), 1),
                "cpu_share": round(used / span, 3),
                "iters_per_s": round(done / span, 1),
                "ready_mean": round(counts["ready_sum"] / max(1, done), 1),
                "lag_mean_ms": round(sum(lags) / len(lags) * 1000, 1),
                "lag_max_ms": round(max(lags) * 1000, 1),
                "slots_in_flight": len(slots),
                "tasks": len(asyncio.all_tasks()),
                **{name: round(value, 3) for name, value in sorted(window.items())},
            }
            with open(str(OUT), "a") as out:
                out.write(json.dumps(line) + "\n")
            window.clear()
            lags.clear()
            last, cpu, turns = now, time.process_time(), counts["iters"]
            counts.update(iter_time=0.0, ready_sum=0)

    loop.call_soon(lambda: loop.create_task(report()))


if OUT:
    _start()
