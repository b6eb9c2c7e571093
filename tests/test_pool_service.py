# ruff: noqa: F811  (the storage fixtures come from tests/test_storage.py)
"""The pool through the game service: /play pairs two strangers, each plays in their own
chat (here a Telegram player against a Discord player), both boards follow every press, and
nothing identifying crosses over. No chat library: views are taken as the adapters get them
(the asker's as the answer, the other's through the platform's outlet)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.i18n import translate_lines
from bot.service import actions as A
from bot.service.mentions import mentions_in
from bot.service.seats import quiet_now
from bot.service.service import Actor, GameService, Place
from bot.service.views import MessageRef, View
from bot.storage.base import GameStatus, Storage, StorageError
from bot.storage.pool import PoolTransaction
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from core.notation import format_play
from tests.factory import Clock, find, make_service

# The storage on both databases: test_storage's fixtures.
from tests.test_storage import Target, db_path, storage, target  # noqa: F401  (fixtures)

# Handles and ids unlike the names, so that a search for them finds only a leak.
ALI = Actor("telegram", "tg1001", "Ali", "alihandle", "tr")
VELI = Actor("discord", "dc2002", "Veli", "velihandle", "en")
AYSE = Actor("telegram", "tg3003", "Ayşe", "aysehandle", "ru")
CEM = Actor("telegram", "tg4004", "Cem", "cemhandle", "tr")
DENIZ = Actor("discord", "dc5005", "Deniz", "denizhandle", "en")
HOME = {
    "tg1001": Place("telegram", "tg1001", private=True),
    "dc2002": Place("discord", "dcdm9002", private=True),  # a DM channel
    "tg3003": Place("telegram", "tg3003", private=True),
    "tg4004": Place("telegram", "tg4004", private=True),
    "dc5005": Place("discord", "dcdm9005", private=True),
}


@dataclass
class Inbox:
    """Every view one player received, and their newest board."""

    views: list[View] = field(default_factory=list)
    board: View | None = None
    #: When each view came (the test's clock).
    at: list[float] = field(default_factory=list)


@dataclass
class World:
    service: GameService
    clock: Clock
    inbox: dict[str, Inbox]
    ids: itertools.count = field(default_factory=lambda: itertools.count(100))
    #: Chats whose messages are lost on the way (the bot stopped before sending them).
    lost: set[tuple[str, str]] = field(default_factory=set)
    #: Open: the count edits' pause passes at once; closed, it lasts until opened.
    gate: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.gate.set()

    async def take(self, actor: Actor, views: list[View]) -> None:
        """Views shown to ``actor``: as an adapter does, boards posted or edited are
        confirmed, posted waiting messages reported."""
        box = self.inbox[actor.user_id]
        place = HOME[actor.user_id]
        for view in views:
            box.views.append(view)
            box.at.append(self.clock.now)
            ref = view.message
            if ref is None or not view.edit:
                ref = MessageRef(next(self.ids), chat_id=place.chat_id, channel_id=place.chat_id)
            if view.posted is not None:
                await view.posted(ref)
            if view.game_id is not None and view.version is not None:
                box.board = view
                await self.service.board_shown(view.game_id, view.version, ref)

    async def run(self, actor: Actor, command: str, args: str = "") -> list[View]:
        views = await self.service.command(actor, HOME[actor.user_id], command, args)
        await self.take(actor, views)
        await self.delivered()
        return views

    async def run_quietly(self, actor: Actor, command: str, args: str = "") -> list[View]:
        """A command answered, without waiting for what it set going in the background."""
        views = await self.service.command(actor, HOME[actor.user_id], command, args)
        await self.take(actor, views)
        return views

    async def press(self, actor: Actor, data: str) -> list[View]:
        box = self.inbox[actor.user_id]
        pressed = box.board.message if box.board is not None else None
        views = await self.service.press(actor, HOME[actor.user_id], data, message=pressed)
        await self.take(actor, views)
        await self.delivered()
        return views

    async def delivered(self) -> None:
        await self.service.settle()


async def make_world(storage: Storage) -> World:
    """A service on ``storage`` (open) whose outlets deliver into each player's inbox."""
    clock = Clock()
    service = make_service(
        storage,
        clock=clock,
        burst_actions=10**6,
        render_images=False,
        repair_after=float("inf"),
    )
    actors = {a.user_id: a for a in (ALI, VELI, AYSE, CEM, DENIZ)}
    inbox = {key: Inbox() for key in actors}
    w = World(service, clock, inbox)

    async def sleep(seconds: float) -> None:
        """The count edits' pause, on the test's clock (held while ``w.gate`` is closed)."""
        await w.gate.wait()
        clock.now += seconds

    service.pool.counts.sleep = sleep
    by_chat = {(p.platform, p.chat_id): actors[key] for key, p in HOME.items()}

    def outlet(platform: str):
        async def deliver(view: View) -> None:
            assert view.chat is not None
            assert view.chat[0] == platform
            if view.chat in w.lost:
                return  # the bot stopped before this chat's message went out
            await w.take(by_chat[view.chat], [view])

        return deliver

    service.outlets["telegram"] = outlet("telegram")
    service.outlets["discord"] = outlet("discord")
    return w


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    storage = SqliteStorage(str(tmp_path / "pool.db"))
    await storage.open()
    yield await make_world(storage)
    await storage.close()


@pytest.fixture
async def both_world(storage: Storage) -> World:
    """The world on SQLite and on PostgreSQL (when ``TAVLA_TEST_POSTGRES_URL`` is set)."""
    return await make_world(storage)


def text(views: list[View], lang: str = "en") -> str:
    return "\n".join(translate_lines(v.lines, lang) for v in views)


PREFERENCE = (A.TAKE, A.RESIGN_DECLINE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


async def play_out(w: World, game_id: int) -> None:
    """Both players press the buttons on their own boards until the game ends; after every
    press both boards show the game's newest version."""
    seat_actor = {0: ALI, 1: VELI}
    for _ in range(3000):
        record = await w.service.storage.get_game(game_id)
        assert record is not None
        if record.status is not GameStatus.ACTIVE:
            return
        match = Match.from_dict(record.match)
        actor = seat_actor[match.game.awaiting]
        board = w.inbox[actor.user_id].board
        assert board is not None
        data = next((find(board, code) for code in PREFERENCE if find(board, code)), None)
        assert data, text([board])
        await w.press(actor, data)
        record = await w.service.storage.get_game(game_id)
        versions = {w.inbox[a.user_id].board.version for a in (ALI, VELI)}
        shown = record.settings.state_version or record.version
        # Both boards in step: each shows the game as it stands (a checker picked changes
        # only the picker's buttons).
        assert all(v >= shown for v in versions), (versions, record.version)
    raise AssertionError("the game never ended")


async def test_two_strangers_on_two_platforms_play_a_whole_game(world: World) -> None:
    w = world
    waiting = await w.run(ALI, "play")
    assert find(waiting[-1], A.POOL), text(waiting)
    assert "Looking for an opponent" in text(waiting)
    answer = await w.run(VELI, "play", "tavla 1 fast")
    assert "Opponent found: Ali" in text(answer)
    # Ali's waiting message was edited: he learns Veli's name and rating.
    assert "Rakip bulundu: Veli" in text(w.inbox["tg1001"].views, "tr")
    ali_board, veli_board = w.inbox["tg1001"].board, w.inbox["dc2002"].board
    assert ali_board is not None
    assert veli_board is not None
    assert ali_board.game_id == veli_board.game_id
    # Each board from its own side, in its player's language.
    assert ali_board.board.viewer != veli_board.board.viewer
    assert ali_board.lang == "tr"
    assert veli_board.lang == "en"
    await play_out(w, ali_board.game_id)
    record = await w.service.storage.get_game(ali_board.game_id)
    assert record.status is GameStatus.FINISHED
    assert record.rated
    # No rematch between strangers: the finished board offers to block instead.
    final = w.inbox["dc2002"].board
    assert not find(final, A.REMATCH)
    block = next(b.action for row in final.buttons for b in row if b.action.endswith("plk"))
    blocked = await w.press(VELI, block)
    assert "never be paired again" in text(blocked)
    assert await w.service.storage.pool.blocked(*record.seats)
    top = await w.service.command(ALI, HOME["tg1001"], "top", "pool")
    assert "Veli" in text(top)
    assert "Ali" in text(top)
    # Nothing identifying crossed over: not the other's platform id, handle or chat.
    for me, other in ((ALI, VELI), (VELI, ALI)):
        received = w.inbox[me.user_id].views
        for lang in ("en", "tr", "ru"):
            seen = text(received, lang)
            for secret in (other.user_id, other.username, HOME[other.user_id].chat_id):
                assert secret not in seen
        for view in received:
            assert not [m for m in mentions_in(view.lines) if m.user_id == other.user_id]
            if view.chat is not None:
                assert view.chat == (HOME[me.user_id].platform, HOME[me.user_id].chat_id)


async def test_cancel_and_a_blocked_player_is_never_paired_again(world: World) -> None:
    w = world
    waiting = await w.run(ALI, "play")
    cancelled = await w.press(ALI, find(waiting[-1], A.POOL))
    assert "left the pool" in text(cancelled)
    await w.run(ALI, "play", "uzun")
    await w.run(VELI, "play", "uzun")
    game_id = w.inbox["tg1001"].board.game_id
    await w.run(ALI, "resign")
    # "Yes, resign" on Ali's board, then Veli accepts on his.
    for _ in range(3):
        record = await w.service.storage.get_game(game_id)
        if record.status is not GameStatus.ACTIVE:
            break
        yes = find(w.inbox["tg1001"].board, A.RESIGN)
        accept = find(w.inbox["dc2002"].board, A.RESIGN_ACCEPT)
        await (w.press(VELI, accept) if accept else w.press(ALI, yes))
    record = await w.service.storage.get_game(game_id)
    assert record.status is GameStatus.FINISHED
    blocked = await w.run(VELI, "block")
    assert "Ali" in text(blocked)
    assert "blocked" in text(blocked)
    report = await w.run(ALI, "report", "rude phrases")
    assert "report" in text(report)
    reports = await w.service.storage.pool.reports()
    assert reports[0].game_id == game_id
    # Both look again for the same game: never paired with each other.
    await w.run(ALI, "play", "turkish 3")
    again = await w.run(VELI, "play", "turkish 3")
    assert "Looking for an opponent" in text(again)
    ayse = await w.run(AYSE, "play", "turkish 3")
    assert "Opponent found" in text(ayse)


async def test_play_words_and_refusals(world: World) -> None:
    w = world
    refused = await w.service.command(ALI, Place("telegram", "-5", private=False), "play")
    assert "private chat" in text(refused)
    bad = await w.run(ALI, "play", "chess")
    assert "chess" in text(bad)
    games = await w.run(ALI, "games")
    assert "no pool game" in text(games)


async def test_fixed_phrases_reach_the_opponent_in_their_language(world: World) -> None:
    w = world
    await w.run(AYSE, "play")
    await w.run(ALI, "play")
    menu = await w.run(ALI, "say")
    phrase = find(menu[-1], A.POOL)
    assert phrase, text(menu)
    sent = await w.press(ALI, phrase)
    assert "Sent" in text(sent)
    got = w.inbox["tg3003"].views[-1]
    assert got.lang == "ru"
    assert "Ali" in text([got], "ru")
    assert "Удачи" in text([got], "ru")


async def press_counting_notices(w: World, game_id: int) -> int:
    """One press by the player to act, on their own board; how many turn notices came."""
    record = await w.service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    actor = {0: ALI, 1: VELI}[match.game.awaiting]
    board = w.inbox[actor.user_id].board
    data = next((find(board, c) for c in PREFERENCE if find(board, c)), None)
    before = {a.user_id: len(w.inbox[a.user_id].views) for a in (ALI, VELI)}
    await w.press(actor, data)
    told = 0
    for other in (ALI, VELI):
        new = w.inbox[other.user_id].views[before[other.user_id] :]
        told += sum("Your turn in game" in text([v]) for v in new)
    return told


async def test_a_daily_game_tells_the_player_when_it_is_their_turn(world: World) -> None:
    w = world
    await w.run(ALI, "play", "daily")
    await w.run(VELI, "play", "daily")
    game_id = w.inbox["tg1001"].board.game_id
    games = await w.run(VELI, "games")
    assert f"#{game_id}" in text(games)
    told = 0
    for _ in range(30):
        told += await press_counting_notices(w, game_id)
        w.clock.now += 60  # a minute a press: at most one notice an hour a game
    assert told == 2  # one each in the first hour (30 presses, half an hour)


async def test_the_rounds_expire_offer_the_computer_and_count(world: World) -> None:
    w = world
    waiting = await w.run(ALI, "play", "uzun 3")
    await w.run(VELI, "play", "turkish")
    w.clock.now += 61
    views = await w.service.tick()
    offers = [v for v in views if find(v, A.POOL) and "computer" in text([v])]
    assert len(offers) == 2
    computer = next(b.action for row in offers[0].buttons for b in row if b.action.endswith("b"))
    who = ALI if offers[0].chat == ("telegram", "tg1001") else VELI
    game = await w.press(who, computer)
    assert any(v.game_id for v in game)  # a game against the computer meanwhile
    w.clock.now += 3600
    views = await w.service.tick()
    assert sum("Nobody came" in text([v]) for v in views) == 2
    assert await w.service.storage.pool.entry(1) is None
    assert "Looking" in text(waiting)


async def test_typed_moves_board_and_a_claim_from_either_chat(world: World) -> None:
    w = world
    await w.run(ALI, "play")
    await w.run(VELI, "play")
    game_id = w.inbox["tg1001"].board.game_id
    # /board in Veli's own chat: his board, from his side.
    shown = await w.run(VELI, "board")
    mine = [v for v in shown if v.game_id == game_id and v.version is not None]
    assert mine
    assert mine[-1].board.viewer == w.inbox["dc2002"].board.board.viewer
    # Whoever is to move types it in their own chat.
    record = await w.service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    mover = {0: ALI, 1: VELI}[match.game.awaiting]
    assert match.game.legal_plays(), "the first roll is played at once"
    typed = await w.service.text(
        mover, HOME[mover.user_id], format_play(match.game.legal_plays()[0])
    )
    await w.take(mover, typed)
    await w.delivered()
    after = await w.service.storage.get_game(game_id)
    assert after.version > record.version, text(typed)
    # The one to act walks away: the other claims the game from their own chat.
    record = await w.service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    slow = {0: ALI, 1: VELI}[match.game.awaiting]
    other = VELI if slow is ALI else ALI
    w.clock.now += 3600
    views = await w.service.tick()
    claims = [v for v in views if find(v, A.CLAIM)]
    assert {v.chat for v in claims} == {(HOME[other.user_id].platform, HOME[other.user_id].chat_id)}
    claimed = await w.press(other, find(claims[0], A.CLAIM))
    assert any(v.game_id == game_id for v in claimed), text(claimed)
    record = await w.service.storage.get_game(game_id)
    assert record.status is GameStatus.FINISHED
    slow_user = await w.service.storage.find_user(slow.platform, slow.user_id)
    assert await w.service.storage.pool.left_in_a_row(slow_user.id) == 1


def test_quiet_nights_by_the_players_own_time() -> None:
    midnight_utc = 1_800_000_000 - 1_800_000_000 % 86400
    assert not quiet_now(None, midnight_utc)  # no time set: never quiet
    assert quiet_now(0, midnight_utc)
    assert quiet_now(3, midnight_utc + 20 * 3600)  # 23:00 at UTC+3
    assert not quiet_now(3, midnight_utc + 6 * 3600)  # 9:00 at UTC+3
    assert quiet_now(-5, midnight_utc + 12 * 3600)  # 7:00 at UTC-5


async def test_no_turn_notice_at_night_for_a_player_who_set_their_time(world: World) -> None:
    w = world
    for actor in (ALI, VELI):  # both at UTC+3 (Ali's Istanbul, Veli's Moscow)
        settings = await w.run(actor, "settings")
        plus = next(
            b.action for row in settings[-1].buttons for b in row if b.action.endswith("zp")
        )
        for _ in range(3):
            await w.press(actor, plus)
    ali = await w.service.storage.find_user("telegram", "tg1001")
    assert ali.prefs.utc_offset == 3
    day = w.clock.now - w.clock.now % 86400
    w.clock.now = day + 21 * 3600  # midnight at UTC+3
    await w.run(ALI, "play", "daily")
    await w.run(VELI, "play", "daily")
    game_id = w.inbox["tg1001"].board.game_id
    told = 0
    for _ in range(10):
        told += await press_counting_notices(w, game_id)
    assert told == 0


async def test_a_press_from_the_web_board_updates_both_chats(world: World) -> None:
    """The web board presses with the game's own place (the first seat's chat), whoever
    the player is: every seat's copy then goes out through the outlets."""
    w = world
    await w.run(ALI, "play")
    await w.run(VELI, "play")
    game_id = w.inbox["tg1001"].board.game_id
    for _ in range(6):
        record = await w.service.storage.get_game(game_id)
        match = Match.from_dict(record.match)
        actor = {0: ALI, 1: VELI}[match.game.awaiting]
        board = w.inbox[actor.user_id].board
        data = next((find(board, c) for c in PREFERENCE if find(board, c)), None)
        page = Place(record.platform, record.chat_id, private=True)
        answer = await w.service.press(actor, page, data)
        await w.delivered()
        if actor is VELI:  # not his chat: nothing to show there, both copies delivered
            assert not [v for v in answer if v.version is not None]
        record = await w.service.storage.get_game(game_id)
        want = record.settings.state_version or record.version
        for other in (ALI, VELI):
            if actor is ALI and other is ALI:
                continue  # Ali's own copy is the answer, shown by the page's relay
            assert w.inbox[other.user_id].board.version >= want


async def test_a_pairing_whose_game_cannot_start_leaves_both_waiting(
    both_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pairing and the game it starts are one transaction: when the game's creation fails
    after the pairing (here its last step, where each seat plays), neither entry is lost and
    no half-made game is left; the rounds pair the two once the game can start."""
    w = both_world
    storage = w.service.storage

    async def broken(self: PoolTransaction, seats: list) -> None:
        raise StorageError("the database went away")

    await w.run(ALI, "play")
    monkeypatch.setattr(PoolTransaction, "add_seat_chats", broken)
    answer = await w.run(VELI, "play")
    assert "Looking for an opponent" in text(answer)  # Veli waits on, told so
    ali = await storage.find_user("telegram", "tg1001")
    veli = await storage.find_user("discord", "dc2002")
    every = tuple(GameStatus)

    async def both_wait() -> None:
        assert await storage.pool.entry(ali.id) is not None
        assert await storage.pool.entry(veli.id) is not None
        assert await storage.games_of_user(ali.id, every) == []
        assert await storage.games_of_user(veli.id, every) == []

    await both_wait()
    # The rounds' pairing of two who wait fails the same way: both still wait.
    await w.service.tick()
    await w.delivered()
    await both_wait()
    monkeypatch.undo()
    await w.service.tick()
    await w.delivered()
    ali_board, veli_board = w.inbox["tg1001"].board, w.inbox["dc2002"].board
    assert ali_board is not None
    assert veli_board is not None
    assert ali_board.game_id == veli_board.game_id
    assert await storage.pool.entry(ali.id) is None
    assert len(await storage.pool.seat_chats(ali_board.game_id)) == 2


async def test_the_reminder_goes_to_the_slow_player_and_the_claim_to_the_other(
    world: World,
) -> None:
    """Each in the reader's language and in their own chat only: the slow player is
    reminded, the opponent is offered the claim (the slow player could not use it)."""
    w = world
    await w.run(ALI, "play")
    await w.run(VELI, "play")
    game_id = w.inbox["tg1001"].board.game_id
    record = await w.service.storage.get_game(game_id)
    seat_actor = {0: ALI, 1: VELI}
    slow = seat_actor[Match.from_dict(record.match).game.awaiting]
    other = VELI if slow is ALI else ALI

    def where(actor: Actor) -> tuple[str, str]:
        return (HOME[actor.user_id].platform, HOME[actor.user_id].chat_id)

    w.clock.now += 300 * 0.75 + 1
    views = [v for v in await w.service.tick() if v.game_id == game_id]
    assert [(v.chat, v.lang) for v in views] == [(where(slow), slow.lang)], text(views)
    assert "it is your move" in text(views)
    assert not find(views[0], A.CLAIM)
    w.clock.now += 300
    views = [v for v in await w.service.tick() if v.game_id == game_id]
    assert [(v.chat, v.lang) for v in views] == [(where(other), other.lang)], text(views)
    assert "may claim the game" in text(views)
    claim = find(views[0], A.CLAIM)
    assert claim
    await w.press(other, claim)
    record = await w.service.storage.get_game(game_id)
    assert record.status is GameStatus.FINISHED


def pool_button(views: list[View], arg: str) -> str | None:
    """The newest pool button with ``arg`` among ``views`` (a Cancel, an answer…)."""
    for view in reversed(views):
        for row in view.buttons:
            for button in row:
                action = A.decode(button.action)
                if action is not None and action.code == A.POOL and action.arg == arg:
                    return button.action
    return None


async def playing_the_computer_meanwhile(w: World, actor: Actor) -> int:
    """``actor`` waits in the pool a minute and takes the offer to play the computer; that
    game's id."""
    await w.run(actor, "play")
    w.clock.now += 61
    for view in await w.service.tick():
        await w.take(actor, [view])
    game = await w.press(actor, pool_button(w.inbox[actor.user_id].views, "b"))
    return next(v.game_id for v in game if v.game_id)


async def pool_games_of(w: World, actor: Actor) -> list:
    user = await w.service.storage.find_user(actor.platform, actor.user_id)
    return [
        g
        for g in await w.service.storage.games_of_user(user.id, (GameStatus.ACTIVE,))
        if g.settings.scope == "pool"
    ]


async def test_a_player_playing_the_computer_is_asked_and_starts_now(world: World) -> None:
    w = world
    computer_game = await playing_the_computer_meanwhile(w, ALI)
    answer = await w.run(VELI, "play")
    # Veli learns who was found and that they are asked; no game alongside, unasked.
    assert "Ali is playing the computer and is asked" in text(answer)
    assert await pool_games_of(w, ALI) == []
    question = w.inbox["tg1001"].views[-1]
    assert question.lang == "tr"
    assert "Veli" in text([question])
    assert "You are playing the computer" in text([question])
    assert not question.edit  # a new message: Ali is notified
    now = pool_button([question], "n")
    assert now
    assert pool_button([question], "a")
    assert pool_button([question], "d")
    await w.press(ALI, now)
    (game,) = await pool_games_of(w, ALI)
    assert w.inbox["tg1001"].board.game_id == game.stored_id
    assert w.inbox["dc2002"].board.game_id == game.stored_id
    assert "Opponent found: Ali" in text(w.inbox["dc2002"].views)
    # The game against the computer waits for Ali.
    record = await w.service.storage.get_game(computer_game)
    assert record.status is GameStatus.ACTIVE


async def test_after_this_game_starts_the_pool_game_when_the_computers_ends(world: World) -> None:
    w = world
    await playing_the_computer_meanwhile(w, ALI)
    await w.run(VELI, "play")
    after = pool_button(w.inbox["tg1001"].views, "a")
    answered = await w.press(ALI, after)
    assert "starts when your game against the computer ends" in text(answered)
    assert "finishing a game against the computer" in text(w.inbox["dc2002"].views[-1:])
    assert await pool_games_of(w, ALI) == []
    # Ali calls the computer's game off: the pool game starts at once.
    await w.run(ALI, "abort")
    (game,) = await pool_games_of(w, ALI)
    assert w.inbox["dc2002"].board.game_id == game.stored_id
    assert w.inbox["tg1001"].board.game_id == game.stored_id


async def test_declining_or_no_answer_leaves_the_other_waiting(world: World) -> None:
    w = world
    await playing_the_computer_meanwhile(w, ALI)
    await w.run(VELI, "play")
    declined = await w.press(ALI, pool_button(w.inbox["tg1001"].views, "d"))
    assert "left the pool" in text(declined)
    assert "could not play now" in text(w.inbox["dc2002"].views[-1:])
    ali = await w.service.storage.find_user("telegram", "tg1001")
    assert await w.service.storage.pool.entry(ali.id) is None
    # Veli waits on, pairable at once: Ayşe comes and plays him.
    ayse = await w.run(AYSE, "play")
    assert "Opponent found: Veli" in text(ayse)
    # Once more, without an answer: after two minutes the asked player is out.
    await w.run(ALI, "play", "uzun")
    w.clock.now += 61
    await w.service.tick()
    await w.delivered()
    await w.press(ALI, pool_button(w.inbox["tg1001"].views, "b"))
    # Veli's game with Ayşe is over for this purpose: he resigns it.
    for _ in range(3):
        if not await pool_games_of(w, VELI):
            break
        await w.run(VELI, "resign")
        record = (await pool_games_of(w, VELI) or [None])[0]
        if record is not None:
            yes = find(w.inbox["dc2002"].board, A.RESIGN)
            if yes:
                await w.press(VELI, yes)
            accept = find(w.inbox["tg3003"].board, A.RESIGN_ACCEPT)
            if accept:
                await w.press(AYSE, accept)
    assert not await pool_games_of(w, VELI)
    await w.run(VELI, "play", "uzun")
    assert "asked whether to start now" in text(w.inbox["dc2002"].views[-1:])
    w.clock.now += 121
    await w.service.tick()
    await w.delivered()
    assert "No answer in time" in text(w.inbox["tg1001"].views[-1:])
    assert await w.service.storage.pool.entry(ali.id) is None
    veli = await w.service.storage.find_user("discord", "dc2002")
    assert await w.service.storage.pool.entry(veli.id) is not None
    assert "could not play now" in text(w.inbox["dc2002"].views[-1:])


async def test_the_waiting_count_follows_each_arrival_and_departure(world: World) -> None:
    """The waiting message's counts are edited as players come and go, not only by the
    rounds; a crowd arriving at once is coalesced into at most one edit a second."""
    w = world
    waiting = await w.run(ALI, "play", "uzun 3")
    assert "In the pool: 1" in text(waiting)
    box = w.inbox["tg1001"]
    message = None

    def edits() -> list[tuple[float, str]]:
        return [
            (at, text([v]))
            for at, v in zip(box.at, box.views, strict=True)
            if v.edit and v.message == message
        ]

    await w.run(VELI, "play", "turkish")  # an arrival: Ali's message says so at once
    first = [v for v in box.views if v.edit and "In the pool: 2" in text([v])]
    assert first, text(box.views)
    message = first[0].message
    # A crowd within the second that follows: coalesced into one edit when it is over.
    w.gate.clear()
    for actor, wish in ((AYSE, "tavla 5"), (CEM, "tavla 7"), (DENIZ, "uzun 5")):
        await w.run_quietly(actor, "play", wish)
    w.gate.set()
    await w.delivered()
    crowd = edits()[1:]
    assert len(crowd) == 1, crowd
    assert "In the pool: 5" in crowd[-1][1]
    times = [at for at, _ in edits()]
    assert all(b - a >= 1.0 for a, b in itertools.pairwise(times)), times
    # A departure: Veli cancels, and Ali's count goes down without waiting for a round.
    await w.press(VELI, pool_button(w.inbox["dc2002"].views, "c"))
    assert "In the pool: 4" in edits()[-1][1]


async def test_games_lists_each_game_with_a_button_that_shows_its_board(world: World) -> None:
    """``/games``: a button a game; pressed, that game's board from the player's own side,
    in their language, posted anew in the chat where they play it (the opponent's board is
    left alone). ``/board`` likewise posts the asker's board alone."""
    w = world
    await w.run(ALI, "play", "daily")
    await w.run(VELI, "play", "daily")
    first = w.inbox["dc2002"].board.game_id
    side = w.inbox["dc2002"].board.board.viewer
    await w.run(AYSE, "play", "uzun daily")
    await w.run(VELI, "play", "uzun daily")
    second = w.inbox["dc2002"].board.game_id
    assert first != second
    games = await w.run(VELI, "games")
    opens = {
        A.decode(b.action).game_id: b.action
        for row in games[-1].buttons
        for b in row
        if A.decode(b.action).arg == "o"
    }
    assert set(opens) == {first, second}, text(games)
    assert "/board" not in text(games)
    before = {a.user_id: len(w.inbox[a.user_id].views) for a in (ALI, AYSE)}
    shown = await w.press(VELI, opens[first])
    boards = [v for v in shown if v.version is not None]
    assert [b.game_id for b in boards] == [first]
    assert boards[0].board.viewer == side
    assert boards[0].lang == "en"
    assert not boards[0].edit  # posted anew, at the bottom of the chat
    assert {a.user_id: len(w.inbox[a.user_id].views) for a in (ALI, AYSE)} == before
    await w.run(VELI, "board")
    assert {a.user_id: len(w.inbox[a.user_id].views) for a in (ALI, AYSE)} == before
    # Someone else's game is not opened.
    refused = await w.press(ALI, opens[second])
    assert "can't find that game" in text(refused)


async def test_a_seat_left_behind_by_a_crash_has_its_board_redrawn_alone(world: World) -> None:
    """A press updates both chats; the bot stops before the other chat's board is edited.
    The rounds redraw that chat's board, from its seat's side and in its language, and
    leave the chat that saw the press alone."""
    w = world
    w.service.settings.repair_after = 90.0
    await w.run(ALI, "play")
    await w.run(VELI, "play")
    game_id = w.inbox["tg1001"].board.game_id
    record = await w.service.storage.get_game(game_id)
    mover = {0: ALI, 1: VELI}[Match.from_dict(record.match).game.awaiting]
    other = VELI if mover is ALI else ALI
    place = HOME[other.user_id]
    side = w.inbox[other.user_id].board.board.viewer
    stale = w.inbox[other.user_id].board.version
    w.lost.add((place.platform, place.chat_id))
    board = w.inbox[mover.user_id].board
    await w.press(mover, next(find(board, c) for c in PREFERENCE if find(board, c)))
    w.lost.clear()
    record = await w.service.storage.get_game(game_id)
    assert w.inbox[other.user_id].board.version == stale < record.version
    seen = {a.user_id: len(w.inbox[a.user_id].views) for a in (ALI, VELI)}
    w.clock.now += 91
    views = [v for v in await w.service.tick() if v.game_id == game_id]
    assert [(v.chat, v.lang) for v in views] == [((place.platform, place.chat_id), other.lang)]
    (repair,) = views
    assert repair.board.viewer == side
    assert repair.edit
    chairs = await w.service.storage.pool.seat_chats(game_id)
    assert repair.message == next(c.message for c in chairs if c.chat_id == place.chat_id)
    await w.take(other, views)
    assert len(w.inbox[mover.user_id].views) == seen[mover.user_id]
    assert w.inbox[other.user_id].board.version >= (record.settings.state_version or 0)
    w.clock.now += 91
    assert [v for v in await w.service.tick() if v.game_id == game_id] == []
