"""The bot's Telegram rate limiter (bot/telegram/limiter.py), on a virtual clock.

Telegram's limits (see /work/shared/platform-facts.md): about 20 sends or edits a minute in a
group, about one a second in a private chat, about 30 a second in all; answers to button
presses, reads and deletions are not counted. The limiter reads them as sliding windows, makes
a call wait for a free slot, and on a 429 delays only the chat it concerns.

Time here is virtual: the limiter's clock and sleep are a :class:`VirtualTime`, which the test
moves on; nothing sleeps for real.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.telegram.limiter import BACKGROUND, URGENT, SlidingWindowLimiter, chat_key

# PTB's RetryAfter warns about its own retry_after when it is made.
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*retry_after:telegram.warnings.PTBDeprecationWarning"
)

GROUP, OTHER_GROUP, PRIVATE = -100, -200, 7


class VirtualTime:
    """A clock and a sleep for the limiter; :meth:`advance` moves time on, waking sleepers."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, wake))
        await wake

    async def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, waking every sleeper due on the way, in order."""
        target = self.now + seconds
        while True:
            await settle()
            self._sleepers = [(when, f) for when, f in self._sleepers if not f.done()]
            due = [when for when, _ in self._sleepers if when <= target]
            if not due:
                break
            self.now = min(due)
            for when, wake in self._sleepers:
                if when <= self.now:
                    wake.set_result(None)
        self.now = target
        await settle()


async def settle() -> None:
    """Let every task that can run, run (no time passes)."""
    for _ in range(50):
        await asyncio.sleep(0)


class Api:
    """A stand-in for PTB's request callback: records each call made with the time."""

    def __init__(self, limiter: SlidingWindowLimiter, clock: VirtualTime) -> None:
        self.limiter = limiter
        self.clock = clock
        self.made: list[tuple[str, Any, float]] = []
        #: Per chat id, how many of its next calls Telegram refuses with a 429, and how long.
        self.refuse: dict[Any, tuple[int, float]] = {}

    async def call(self, endpoint: str, chat_id: Any = None, **data: Any) -> Any:
        async def callback() -> bool:
            times, seconds = self.refuse.get(chat_id, (0, 0.0))
            if times:
                self.refuse[chat_id] = (times - 1, seconds)
                raise RetryAfter(int(seconds))
            self.made.append((endpoint, chat_id, self.clock.now))
            return True

        if chat_id is not None:
            data["chat_id"] = chat_id
        return await self.limiter.process_request(callback, (), {}, endpoint, data, None)

    def start(self, endpoint: str, chat_id: Any = None, **data: Any) -> asyncio.Task[Any]:
        return asyncio.ensure_future(self.call(endpoint, chat_id, **data))

    def times(self, chat_id: Any = None, endpoint: str | None = None) -> list[float]:
        return [
            at
            for method, chat, at in self.made
            if (chat_id is None or chat == chat_id) and endpoint in (None, method)
        ]


@pytest.fixture
def clock() -> VirtualTime:
    return VirtualTime()


def api_with(clock: VirtualTime, **limits: Any) -> Api:
    return Api(SlidingWindowLimiter(clock=clock, sleep=clock.sleep, **limits), clock)


async def test_a_group_gets_twenty_sends_or_edits_in_any_minute(clock):
    api = api_with(clock)
    calls = [api.start("sendMessage" if n % 2 else "editMessageMedia", GROUP) for n in range(25)]
    await clock.advance(59.9)
    assert api.times(GROUP) == [0.0] * 20  # the rest wait for the minute to pass
    await clock.advance(0.2)
    await asyncio.gather(*calls)
    assert len(api.times(GROUP)) == 25
    assert all(60 <= at <= 60.1 for at in api.times(GROUP)[20:])


async def test_the_window_slides_calls_spread_over_a_minute_free_slots_one_by_one(clock):
    api = api_with(clock)
    for _ in range(20):  # one every 2 s: the window is full at 38 s
        await api.call("editMessageText", GROUP)
        await clock.advance(2.0)
    late = api.start("editMessageText", GROUP)
    await clock.advance(10.0)  # 50 s: the first edit is 50 s old, still in the window
    assert not late.done()
    await clock.advance(11.0)  # 61 s: it has left the window, the next edit fits
    assert late.done()
    assert 60 <= api.times(GROUP)[-1] <= 60.1


async def test_a_private_chat_gets_a_short_burst_then_about_one_a_second(clock):
    api = api_with(clock)
    calls = [api.start("sendPhoto", PRIVATE) for _ in range(6)]
    await clock.advance(10.0)
    await asyncio.gather(*calls)
    times = api.times(PRIVATE)
    assert times[:3] == [0.0] * 3  # a burst of three
    assert all(3 <= at <= 3.1 for at in times[3:])  # then three in any three seconds


async def test_all_chats_together_get_thirty_a_second(clock):
    api = api_with(clock)
    calls = [api.start("sendMessage", 1000 + n) for n in range(40)]
    await clock.advance(0.5)
    assert len(api.made) == 30
    await clock.advance(1.0)
    await asyncio.gather(*calls)
    assert all(1 <= at <= 1.1 for at in api.times()[30:])


async def test_calls_that_are_not_sends_or_edits_pass_at_once_with_the_group_full(clock):
    api = api_with(clock)
    for _ in range(20):
        await api.call("sendMessage", GROUP)
    waiting = api.start("sendMessage", GROUP)
    await settle()
    assert not waiting.done()
    # Answers to presses, reads, deletions, chat actions: none of them waits.
    await api.call("answerCallbackQuery", callback_query_id="1", text="Pick where it goes")
    await api.call("getChatMember", GROUP, user_id=11)
    await api.call("deleteMessage", GROUP, message_id=5)
    await api.call("sendChatAction", GROUP, action="upload_photo")
    await api.call("getUpdates", timeout=10)
    assert [method for method, _, at in api.made[20:] if at == 0.0] == [
        "answerCallbackQuery",
        "getChatMember",
        "deleteMessage",
        "sendChatAction",
        "getUpdates",
    ]
    waiting.cancel()


async def test_a_press_in_another_group_is_answered_while_the_first_group_waits(clock):
    api = api_with(clock)
    for _ in range(20):
        await api.call("editMessageMedia", GROUP)
    first_group_board = api.start("editMessageMedia", GROUP)
    await settle()
    # Meanwhile a player presses in another group: the press is answered and its board
    # edited at once.
    await api.call("answerCallbackQuery", callback_query_id="2")
    await api.call("editMessageReplyMarkup", OTHER_GROUP)
    await api.call("sendMessage", PRIVATE)
    assert api.times(OTHER_GROUP) == api.times(PRIVATE) == [0.0]
    assert api.times(endpoint="answerCallbackQuery") == [0.0]
    assert not first_group_board.done()
    first_group_board.cancel()


async def test_a_429_delays_only_its_own_chat_and_the_call_is_retried(clock):
    api = api_with(clock)
    api.refuse[GROUP] = (1, 5.0)  # Telegram refuses the next call in GROUP: retry after 5 s
    refused = api.start("editMessageMedia", GROUP)
    await settle()
    queued = api.start("sendMessage", GROUP)  # behind it in the same chat
    await api.call("answerCallbackQuery", callback_query_id="3")
    await api.call("editMessageMedia", OTHER_GROUP)
    await api.call("sendMessage", PRIVATE)
    assert [chat for _, chat, _ in api.made] == [None, OTHER_GROUP, PRIVATE]  # all at 0
    await clock.advance(4.9)
    assert not refused.done()
    assert not queued.done()
    await clock.advance(0.2)
    assert await refused
    assert await queued
    assert all(5 <= at <= 5.1 for at in api.times(GROUP))


async def test_a_chat_still_flooded_after_the_retries_gets_the_429(clock):
    api = api_with(clock, max_retries=2)
    api.refuse[GROUP] = (10, 1.0)
    call = api.start("sendMessage", GROUP)
    await clock.advance(10.0)
    with pytest.raises(RetryAfter):
        await call
    assert api.refuse[GROUP][0] == 10 - 3  # one try and two retries


async def test_a_call_under_way_fills_its_slot_and_counts_from_its_answer(clock):
    """Telegram counts a call somewhere between its sending and its answer (a photo upload
    can take a while): the limiter counts it from the answer, to be safe."""
    limiter = SlidingWindowLimiter(group=1, group_period=60, clock=clock, sleep=clock.sleep)
    answered = asyncio.Event()
    made: list[float] = []

    async def slow_upload() -> bool:
        await answered.wait()
        return True

    async def quick_edit() -> bool:
        made.append(clock.now)
        return True

    upload = asyncio.ensure_future(
        limiter.process_request(slow_upload, (), {}, "sendPhoto", {"chat_id": GROUP}, None)
    )
    edit = asyncio.ensure_future(
        limiter.process_request(quick_edit, (), {}, "editMessageText", {"chat_id": GROUP}, None)
    )
    await clock.advance(100.0)
    assert not made  # the upload is still under way: its slot is taken
    answered.set()
    await upload
    await clock.advance(59.9)
    assert not made  # a minute from the upload's answer (at 100 s), not from its sending
    await clock.advance(0.2)
    await edit
    assert 160 <= made[0] <= 160.1


async def test_scale_runs_the_windows_faster(clock):
    api = api_with(clock, scale=10)
    calls = [api.start("sendMessage", GROUP) for _ in range(21)]
    await clock.advance(5.9)  # 59 Telegram seconds
    assert len(api.made) == 20
    await clock.advance(0.2)
    await asyncio.gather(*calls)
    assert 6.0 <= api.times(GROUP)[-1] <= 6.01


def test_groups_are_told_from_private_chats_by_their_ids():
    assert chat_key(-1001234) == ("group", -1001234)
    assert chat_key("-42") == ("group", -42)
    assert chat_key("@tavla_channel") == ("group", "@tavla_channel")
    assert chat_key(12345) == ("private", 12345)
    assert chat_key(None) is None


async def test_idle_chats_are_forgotten_but_a_full_window_is_kept(clock, monkeypatch):
    monkeypatch.setattr("bot.telegram.limiter.FORGET_AT", 10)
    api = api_with(clock)
    for _ in range(20):
        await api.call("sendMessage", GROUP)
    for n in range(25):  # many private chats, one message each, a second apart
        await api.call("sendMessage", 1000 + n)
        await clock.advance(1.0)
    assert len(api.limiter._windows) <= 10  # not 27: the idle private chats were dropped
    late = api.start("sendMessage", GROUP)
    await clock.advance(30.0)
    assert not late.done()  # 55 s: the group's full window was kept
    await clock.advance(6.0)
    assert late.done()


async def test_a_429_on_an_uncounted_call_makes_that_call_wait_and_no_other(clock):
    api = api_with(clock)
    api.refuse[GROUP] = (1, 2.0)
    member = api.start("getChatMember", GROUP, user_id=11)
    await settle()
    await api.call("sendMessage", GROUP)
    assert api.times(GROUP) == [0.0]  # the group's sends go on
    await clock.advance(1.9)
    assert not member.done()  # the refused call waits its retry_after before trying again
    await clock.advance(0.2)
    assert await member
    assert api.times(GROUP, "getChatMember") == [2.0]


async def test_chats_take_turns_at_the_bots_limit_however_much_one_has_queued(clock):
    """With the bot's 30 a second used up, one group with 20 sends queued and 39 groups
    with one each: the next second's 30 slots go to 30 different chats, one each (in the
    order they came), not 20 to the group that queued most."""
    api = api_with(clock)
    for n in range(30):
        await api.call("sendMessage", 5000 + n)
    busy = [api.start("editMessageMedia", GROUP) for _ in range(20)]
    others = [api.start("editMessageMedia", -1000 - n) for n in range(39)]
    await clock.advance(1.05)
    second = [chat for _, chat, at in api.made if at >= 1.0]
    assert len(second) == 30
    assert second.count(GROUP) == 1
    assert second[1:] == [-1000 - n for n in range(29)]
    await clock.advance(20.0)
    await asyncio.gather(*busy, *others)
    # The other ten groups came before the busy group's second send.
    order = [chat for _, chat, _ in api.made[30:]]
    assert order.index(-1038) < order.index(GROUP, 1)


async def test_a_board_that_asks_to_move_goes_before_other_sends(clock):
    """Calls marked urgent (a player waits for the board) take the bot's next slots before
    calls that came earlier; the others go once they have waited ten seconds at most."""
    api = api_with(clock, overall=2, overall_period=1.0)
    for n in range(2):
        await api.call("sendMessage", 5000 + n)
    notices = [api.start("sendMessage", -1000 - n) for n in range(30)]
    await settle()
    token = URGENT.set(True)
    try:
        boards = [api.start("editMessageMedia", -2000 - n) for n in range(30)]
    finally:
        URGENT.reset(token)
    await clock.advance(3.05)
    # The first three seconds' six slots: boards only.
    assert [chat for _, chat, at in api.made[2:]] == [-2000 - n for n in range(6)]
    await clock.advance(9.0)
    # At ten seconds the first notice has waited too long and goes, then boards again.
    times = {chat: at for _, chat, at in api.made}
    assert 10.0 <= times[-1000] <= 10.1
    assert -1001 not in times or times[-1001] >= 10.0
    await clock.advance(60.0)
    await asyncio.gather(*notices, *boards)
    assert backlog_is_empty(api.limiter)


def marked(var: Any, api: Api, chats: list[int]) -> list[asyncio.Task[Any]]:
    """Board edits to ``chats`` made with ``var`` (URGENT, BACKGROUND) set."""
    token = var.set(True)
    try:
        return [api.start("editMessageMedia", chat) for chat in chats]
    finally:
        var.reset(token)


async def test_background_calls_take_the_slots_the_others_leave(clock):
    """The chat boards of games followed on the web (BACKGROUND) wait behind the boards that
    ask a player to move and the other sends that came after them, and go as soon as none
    waits; they do not count in a chat's backlog (a board sent now goes before them)."""
    api = api_with(clock, overall=2, overall_period=1.0)
    for n in range(2):
        await api.call("sendMessage", 5000 + n)
    followed = marked(BACKGROUND, api, [-3000 - n for n in range(4)])
    await settle()
    assert api.limiter.backlog(GROUP) == 0.0
    notices = [api.start("sendMessage", -1000 - n) for n in range(3)]
    boards = marked(URGENT, api, [-2000 - n for n in range(5)])
    await clock.advance(10.0)
    await asyncio.gather(*followed, *notices, *boards)
    order = [chat for _, chat, _ in api.made[2:]]
    assert order == [
        *(-2000 - n for n in range(5)),
        *(-1000 - n for n in range(3)),
        *(-3000 - n for n in range(4)),
    ]


async def test_a_background_call_goes_within_a_minute_however_busy_the_bot(clock):
    """Boards that ask to move come faster than the bot may send, without end: a board of a
    game followed on the web still goes, once it has waited a minute."""
    api = api_with(clock, overall=2, overall_period=1.0)
    for n in range(2):
        await api.call("sendMessage", 5000 + n)
    followed = marked(BACKGROUND, api, [-3000])[0]
    boards: list[asyncio.Task[Any]] = []
    for second in range(70):
        boards += marked(URGENT, api, [-2000 - 3 * second - n for n in range(3)])
        await clock.advance(1.0)
    assert followed.done()
    assert 60.0 <= api.times(-3000)[0] <= 61.1
    for task in boards:
        task.cancel()
    await asyncio.gather(*boards, return_exceptions=True)


async def test_many_background_calls_take_a_tenth_of_the_slots_while_people_wait(clock):
    """Hundreds of games followed on the web, each with a board waiting for its chat, would
    alone fill the bot's slots: those that have waited a minute take one slot in ten while
    boards that ask a player to move wait, not every slot (the chats' people come first)."""
    api = api_with(clock, overall=2, overall_period=1.0)
    for n in range(2):
        await api.call("sendMessage", 5000 + n)
    followed = marked(BACKGROUND, api, [-3000 - n for n in range(200)])
    boards: list[asyncio.Task[Any]] = []
    for second in range(120):
        boards += marked(URGENT, api, [-2000 - 3 * second - n for n in range(3)])
        await clock.advance(1.0)
    late = [chat for _, chat, at in api.made if 61.0 <= at < 121.0]
    assert len(late) >= 100
    background = sum(1 for chat in late if chat <= -3000)
    assert 1 <= background <= len(late) // 10 + 1
    for task in [*boards, *followed]:
        task.cancel()
    await asyncio.gather(*boards, *followed, return_exceptions=True)


async def test_a_chat_with_a_board_to_send_hurries_its_background_call(clock):
    """A group's board of a game followed on the web waits behind other chats' boards; a
    board that asks a player to move in that same group (another game, played in the chat)
    would queue behind it: the group's waiting call moves to the urgent queue instead."""
    api = api_with(clock, overall=2, overall_period=1.0)
    for n in range(2):
        await api.call("sendMessage", 5000 + n)
    followed = marked(BACKGROUND, api, [GROUP])[0]
    await clock.advance(0.5)  # (the bot's slots of this second are taken)
    boards = marked(URGENT, api, [-2000 - n for n in range(6)])
    await settle()
    api.limiter.hurry(GROUP, urgent=True)
    await clock.advance(10.0)
    await asyncio.gather(followed, *boards)
    order = [chat for _, chat, _ in api.made[2:]]
    assert order == [GROUP, *(-2000 - n for n in range(6))]  # it came first of them


def backlog_is_empty(limiter: SlidingWindowLimiter) -> bool:
    return limiter.backlog(GROUP) == 0.0


async def test_the_backlog_says_how_long_a_chats_next_send_would_wait(clock):
    """In Telegram seconds: the chat's full window, its own queued sends at the chat's rate,
    and the other chats' calls queued for the bot's window."""
    api = api_with(clock, scale=10)  # a minute lasts six seconds
    assert api.limiter.backlog(GROUP) == 0.0
    for _ in range(20):
        await api.call("sendMessage", GROUP)
    await clock.advance(1.0)  # ten Telegram seconds later
    assert api.limiter.backlog(GROUP) == pytest.approx(50.0, abs=0.2)
    assert api.limiter.backlog(GROUP, queued=2) == pytest.approx(56.0, abs=0.2)
    assert api.limiter.backlog(OTHER_GROUP) == 0.0
    for n in range(30):
        await api.call("sendMessage", 5000 + n)
    waiting = [api.start("sendMessage", 6000 + n) for n in range(15)]
    await settle()
    assert api.limiter.backlog(OTHER_GROUP) == pytest.approx(0.5, abs=0.01)  # 15 at 30 a second
    await clock.advance(1.0)
    await asyncio.gather(*waiting)


async def test_a_slot_taken_ahead_serves_the_next_call_and_is_given_back_unused(clock):
    """``reserved`` waits for a chat's turn and keeps it for the call made inside (which does
    not queue again); a turn taken and not used is given back, uncounted."""
    api = api_with(clock, overall=2)
    api.start("sendMessage", OTHER_GROUP)
    api.start("sendMessage", OTHER_GROUP + 1)
    await clock.advance(0.1)  # the bot's two calls of this second are made

    async def reserve_then_send() -> None:
        async with api.limiter.reserved(GROUP):
            await api.call("editMessageText", GROUP)

    async def reserve_only() -> None:
        async with api.limiter.reserved(PRIVATE):
            pass

    sent = asyncio.ensure_future(reserve_then_send())
    given_back = asyncio.ensure_future(reserve_only())
    later = api.start("sendMessage", OTHER_GROUP + 2)
    await clock.advance(1.0)
    await sent
    await given_back
    # The edit went in the first free slot; the unused turn did not count: the send queued
    # after both went in the same second.
    assert api.times(GROUP) == [pytest.approx(1.01)]
    await later
    assert api.times(OTHER_GROUP + 2)[0] < 2.0
