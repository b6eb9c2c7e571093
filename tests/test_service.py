"""The game service end to end, without any chat library: whole games through its calls.

A fixed dice seed makes every game reproducible; pictures are switched off except where a
test looks at them. The clock is a plain number the tests move forward.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import translate_lines
from bot.service import actions as A
from bot.service import boards as service_boards
from bot.service.keypad import KeypadLimits
from bot.service.service import Actor, GameService, Place
from bot.service.views import View
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from core.position import side_from_points
from renderers.picture import PNG, render_picture
from renderers.themes import THEMES
from renderers.view import BoardView
from tests.factory import Clock, a_step, find, make_service, press, resign

ALI = Actor("test", "100", "Ali", "ali", "tr")
VELI = Actor("test", "200", "Veli", "veli", "en")
AYSE = Actor("test", "300", "Ayşe", "ayse", "ru")
GROUP = Place("test", "-1", private=False, title="Kahve")


@contextlib.asynccontextmanager
async def service_at(path: Path, **changes: Any) -> AsyncIterator[tuple[GameService, Clock]]:
    """A service on a new SQLite file at ``path``: seeded dice, no pictures, a test clock,
    and ``changes`` to its settings."""
    storage = SqliteStorage(str(path))
    await storage.open()
    clock = Clock()
    # No adapter confirms boards here, so board repairs are off (tests/test_repair.py).
    service = make_service(
        storage,
        clock=clock,
        **{
            "burst_actions": 10**6,
            "render_images": False,
            "repair_after": float("inf"),
            **changes,
        },
    )
    try:
        yield service, clock
    finally:
        await storage.close()


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


def text_of(views: list[View], lang: str = "en") -> str:
    return "\n".join(translate_lines(v.lines, lang) for v in views)


def board(views: list[View]) -> View:
    boards = [v for v in views if v.game_id is not None and v.buttons and not v.notice]
    assert boards, text_of(views)
    return boards[-1]


async def challenge(service: GameService, args: str = "", by: Actor = ALI, cmd: str = "tavla"):
    views = await service.command(by, GROUP, cmd, args)
    accept = find(views[-1], A.ACCEPT)
    assert accept, text_of(views)
    return views, accept


async def start_game(service: GameService, args: str = "", cmd: str = "tavla") -> list[View]:
    _, accept = await challenge(service, args, cmd=cmd)
    views = await service.press(VELI, GROUP, accept)
    assert any("SHA-256" in text_of([v]) for v in views)
    return views


async def awaiting_actor(service: GameService, game_id: int) -> Actor:
    record = await service.storage.get_game(game_id)
    assert record is not None
    match = Match.from_dict(record.match)
    user = await service.storage.get_user(record.seats[match.game.awaiting])
    return {"100": ALI, "200": VELI, "300": AYSE}[user.platform_id]


async def play_out(service: GameService, views: list[View], *, double_every: int = 0) -> list[View]:
    """Press buttons like a player would until the contest ends; returns the last views."""
    current = board(views)
    for n in range(5000):
        record = await service.storage.get_game(current.game_id)
        if record.status is not GameStatus.ACTIVE:
            return views
        actor = await awaiting_actor(service, current.game_id)
        code = None
        for wanted in (
            A.TUTOR_OK,
            A.TAKE,
            A.RESIGN_DECLINE,
            A.CONFIRM,
            A.MOVE,
            A.SELECT,
            A.ROLL,
        ):
            if (
                wanted == A.ROLL
                and double_every
                and n % double_every == 0
                and find(current, A.DOUBLE)
            ):
                wanted = A.DOUBLE
            code = find(current, wanted)
            if code:
                break
        assert code, text_of([current])
        views = await service.press(actor, GROUP, code)
        assert not any(v.notice for v in views), text_of(views)
        current = board(views)
    raise AssertionError("the game did not end")


async def test_whole_tavla_match_with_buttons_and_cube(env):
    service, _ = env
    views = await start_game(service, "3")
    views = await play_out(service, views, double_every=7)
    record = await service.storage.get_game(board(views).game_id)
    assert record.status is GameStatus.FINISHED
    match = Match.from_dict(record.match)
    assert match.over
    assert max(match.score) >= 3
    assert "wins the match" in text_of(views)
    assert "/dice" in text_of(views)


@pytest.mark.parametrize(("cmd", "args"), [("uzun", ""), ("tavla", "turkish"), ("nardy", "3")])
async def test_whole_games_of_every_variant(env, cmd, args):
    service, _ = env
    views = await start_game(service, args, cmd=cmd)
    views = await play_out(service, views)
    record = await service.storage.get_game(board(views).game_id)
    assert record.status is GameStatus.FINISHED
    expected = {"uzun": "uzun", "nardy": "uzun", "tavla": "turkish"}[cmd]
    assert record.variant == expected


async def test_typed_moves_whole_and_partial(env):
    service, _ = env
    views = await start_game(service)
    game_id = board(views).game_id
    for _ in range(40):
        record = await service.storage.get_game(game_id)
        if record.status is not GameStatus.ACTIVE:
            break
        match = Match.from_dict(record.match)
        game = match.game
        actor = await awaiting_actor(service, game_id)
        if game.phase.value == "roll":
            views = await press(service, actor, GROUP, board(views), A.ROLL)
            continue
        if game.phase.value != "move":
            break
        play = str(game.legal_plays()[0])
        views = await service.command(actor, GROUP, "move", play)
        assert not any(v.notice for v in views), text_of(views)
    events = await service.storage.events(game_id)
    assert any(e.data.get("type") == "play" for e in events if e.type == "core")


async def test_wrong_player_stale_button_and_outsider_are_refused(env):
    service, _ = env
    views = await start_game(service)
    current = board(views)
    actor = await awaiting_actor(service, current.game_id)
    other = VELI if actor is ALI else ALI
    action = current.buttons[0][0].action
    refused = await service.press(other, GROUP, action)
    assert refused[0].notice
    assert "not your turn" in text_of(refused).lower()
    outsider = await service.press(AYSE, GROUP, action)
    assert outsider[0].notice
    assert "not a player" in text_of(outsider).lower()
    step = await a_step(service, actor, GROUP, current)
    await service.press(actor, GROUP, step)  # changes the game: a new version
    stale = await service.press(actor, GROUP, step)
    # A double press: the first press's board is on its way, so only a toast.
    assert [v.notice for v in stale] == [True]
    assert "just changed" in text_of(stale)


async def test_forged_button_is_refused(env):
    service, _ = env
    await start_game(service)
    for data in ("999:1:r", "garbage", "1:1:zz", "1:1:m99-3", "x" * 100):
        views = await service.press(ALI, GROUP, data)
        assert views[0].notice, data


async def test_challenge_errors(env):
    service, _ = env
    _, accept = await challenge(service)
    own = await service.press(ALI, GROUP, accept)
    assert "own challenge" in text_of(own)
    await service.command(VELI, GROUP, "help")  # Veli is known from now on
    await service.command(AYSE, GROUP, "help")
    _, addressed = await challenge(service, "@veli 5")
    wrong = await service.press(AYSE, GROUP, addressed)
    assert "someone else" in text_of(wrong)
    unknown = await service.command(ALI, GROUP, "tavla", "@nobody")
    assert unknown[0].notice
    bad = await service.command(ALI, GROUP, "tavla", "99")
    assert bad[0].notice
    self_ = await service.command(ALI, GROUP, "tavla", "@ali")
    assert "yourself" in text_of(self_)
    unknown_cmd = await service.command(ALI, GROUP, "frobnicate")
    assert "don't know that command" in text_of(unknown_cmd)


async def test_illegal_and_unreadable_moves_get_reasons(env):
    service, _ = env
    views = await start_game(service)
    game_id = board(views).game_id
    actor = await awaiting_actor(service, game_id)
    record = await service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    if match.game.phase.value == "roll":
        views = await press(service, actor, GROUP, board(views), A.ROLL)
        actor = await awaiting_actor(service, game_id)
    nonsense = await service.command(actor, GROUP, "move", "hello")
    assert nonsense[0].notice
    assert "from/to" in text_of(nonsense)
    backwards = await service.command(actor, GROUP, "move", "8/13")
    assert "higher to lower" in text_of(backwards)
    empty = await service.command(actor, GROUP, "move", "3/1")
    assert empty[0].notice  # no checker on 3 at the start
    assert "no checker on 3" in text_of(empty)
    theirs = await service.command(actor, GROUP, "move", "19/13")
    assert "on 19 are your opponent's" in text_of(theirs)
    entering = await service.command(actor, GROUP, "move", "bar/20")
    assert "no checker on the bar" in text_of(entering)


@pytest.mark.parametrize("level", ["random", "beginner", "expert"])
async def test_every_computer_level_plays_a_whole_game(env, level):
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", f"uzun {level}")
    assert any(f"({level})" in text_of([v]) for v in views)
    views = await play_out(service, views)
    record = await service.storage.get_game(board(views).game_id)
    assert record.status is GameStatus.FINISHED


async def test_computer_game_runs_to_the_end(env):
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", "")
    assert any("(club)" in text_of([v]) for v in views)  # the default level
    views = await play_out(service, views)
    record = await service.storage.get_game(board(views).game_id)
    assert record.status is GameStatus.FINISHED
    assert not record.rated
    assert " wins!" in text_of(views)  # one game, not "the match 2–0"
    assert "wins the match" not in text_of(views)


async def test_one_game_against_the_computer_a_chat(env):
    """A second /bot while the first game runs gives that game's board back (typed moves
    must have one game to go to); once it is called off, a new one starts."""
    service, _ = env
    first = board(await service.command(ALI, GROUP, "bot", "")).game_id
    again = await service.command(ALI, GROUP, "bot", "uzun")
    assert again[0].notice
    assert "already have a game against the computer" in text_of(again)
    assert board(again).game_id == first
    running = await service.storage.games_in_chat("test", GROUP.chat_id, (GameStatus.ACTIVE,))
    assert [g.id for g in running] == [first]
    await service.command(ALI, GROUP, "abort", "")
    fresh = await service.command(ALI, GROUP, "bot", "uzun")
    assert board(fresh).game_id != first
    assert "Uzun" in text_of(fresh)


@pytest.mark.parametrize("variant", ["tavla", "uzun"])
async def test_the_computer_answers_a_resignation_at_once(env, variant):
    """T-9 against the computer: a resignation offered on one's own turn (before rolling in
    Tavla, with the dice to play in Uzun) is accepted at once, never left waiting."""
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", f"{variant} 3")
    game_id = board(views).game_id
    computer = (await service.storage.get_game(game_id)).settings.computer
    resigned = await resign(service, ALI, GROUP)
    assert not resigned[0].notice
    assert not find(board(resigned), A.RESIGN_ACCEPT)
    match = Match.from_dict((await service.storage.get_game(game_id)).match)
    assert len(match.results) == 1
    assert match.results[0].reason.value == "resign"
    assert (match.results[0].winner, match.results[0].points) == (computer, 1)
    assert match.game is not None  # game 2 is on
    assert match.game.resign_offer is None


async def test_the_computer_declines_a_resignation_worth_less_than_playing_on(env):
    """T-9, T-7: against a certain backgammon the computer declines a single and play goes
    on (the player is told), then accepts the backgammon offered."""
    service, _ = env
    game_id = board(await service.command(ALI, GROUP, "bot", "tavla 5")).game_id
    async with service.storage.transaction() as tx:
        record = await tx.get_game(game_id)
        match = Match.from_dict(record.match)
        computer = record.settings.computer
        assert match.game.awaiting == 1 - computer  # Ali, with the opening roll to play
        match.game.sides[1 - computer] = side_from_points({19: 15})
        match.game.sides[computer] = side_from_points({1: 1})
        record.match = match.to_dict()
        await tx.save_game(record, record.version)
    declined = await resign(service, ALI, GROUP)
    assert "declined the resignation" in text_of(declined)
    match = Match.from_dict((await service.storage.get_game(game_id)).match)
    assert match.results == []
    assert match.game.resign_offer is None
    await resign(service, ALI, GROUP, "backgammon")
    match = Match.from_dict((await service.storage.get_game(game_id)).match)
    assert (match.results[0].winner, match.results[0].points) == (computer, 3)


async def test_rated_match_updates_ratings_top_and_stats(env):
    service, _ = env
    views = await start_game(service)
    views = await play_out(service, views)
    top = await service.command(ALI, GROUP, "top", "")
    assert "Ali" in text_of(top)
    assert "Veli" in text_of(top)
    stats = await service.command(ALI, GROUP, "stats", "")
    assert "Played 1" in text_of(stats)


async def test_export_and_dice_check(env):
    service, _ = env
    views = await start_game(service)
    running = await service.command(ALI, GROUP, "dice", "")
    assert "revealed when the game ends" in text_of(running)
    views = await play_out(service, views)
    exported = await service.command(ALI, GROUP, "export", "")
    name, data = exported[0].document
    assert name.endswith(".mat")
    assert b"Game 1" in data
    assert b"Wins" in data
    checked = await service.command(ALI, GROUP, "dice", "")
    assert "✅" in text_of(checked)


async def test_dice_tells_the_recipe_that_rebuilds_every_die(env):
    """Common ground (fair dice): a player who follows /dice's words by hand gets the game's
    dice. It said "every roll is HMAC-SHA256(seed, roll number)": each die has its own
    number, and the roll numbers gave other dice."""
    import hmac

    from core.events import dice_record

    service, _ = env
    views = await start_game(service)
    game_id = board(views).game_id
    await play_out(service, views)
    said = text_of(await service.command(ALI, GROUP, "dice", ""))
    seed = bytes.fromhex(said.split("Seed: ")[1].split()[0])
    assert "Die number k (0, 1, 2" in said
    assert "b mod 6 + 1, where b is the first byte below 252 of HMAC-SHA256(seed, k" in said
    assert "k as 8 bytes, big-endian" in said
    events = await service.storage.events(game_id)
    drawn = [
        die for roll in dice_record(e.data for e in events if e.type == "core") for die in roll
    ]
    by_hand = []
    for k in range(len(drawn)):
        digest = hmac.digest(seed, k.to_bytes(8, "big"), "sha256")
        by_hand.append(next(b for b in digest if b < 252) % 6 + 1)
    assert by_hand == drawn


async def test_deadline_reminder_then_claim(env):
    service, clock = env
    views = await start_game(service)
    game_id = board(views).game_id
    late = await awaiting_actor(service, game_id)
    waiting = VELI if late is ALI else ALI
    too_soon = await service.command(waiting, GROUP, "claim", "")
    assert too_soon[0].notice
    clock.now += 0.8 * 24 * 3600
    reminders = await service.tick()
    assert any("minutes left" in text_of([v]) for v in reminders)
    clock.now += 0.3 * 24 * 3600
    offers = await service.tick()
    assert any("run out of time" in text_of([v]) for v in offers)
    assert await service.tick() == []  # offered once
    claimed = await service.command(waiting, GROUP, "claim", "")
    assert not claimed[0].notice
    record = await service.storage.get_game(game_id)
    assert record.status in (GameStatus.ACTIVE, GameStatus.FINISHED)
    match = Match.from_dict(record.match)
    assert match.results  # the game was forfeited by the late player


async def test_expired_challenge(env):
    service, clock = env
    await challenge(service)
    clock.now += 2 * 3600
    views = await service.tick()
    assert any("Nobody accepted" in text_of([v]) for v in views)


async def test_simultaneous_presses_apply_once(env):
    service, _ = env
    views = await start_game(service)
    current = board(views)
    actor = await awaiting_actor(service, current.game_id)
    action = await a_step(service, actor, GROUP, current)
    results = await asyncio.gather(*(service.press(actor, GROUP, action) for _ in range(5)))
    applied = [r for r in results if not r[0].notice]
    assert len(applied) == 1
    record = await service.storage.get_game(current.game_id)
    Match.from_dict(record.match)  # still a valid game


async def test_resign_and_abort(env):
    service, _ = env
    views = await start_game(service, "5")
    game_id = board(views).game_id
    offered = await resign(service, ALI, GROUP, "gammon")
    accept = find(board(offered), A.RESIGN_ACCEPT)
    assert accept
    await service.press(VELI, GROUP, accept)
    record = await service.storage.get_game(game_id)
    assert Match.from_dict(record.match).score[1] == 2
    asked = await service.command(ALI, GROUP, "abort", "")
    assert "asks to call off" in text_of(asked)
    agreed = await service.command(VELI, GROUP, "abort", "")
    assert "not rated" in text_of(agreed)
    record = await service.storage.get_game(game_id)
    assert record.status is GameStatus.ABORTED


async def test_language_choice(env):
    service, _ = env
    views = await service.command(VELI, Place("test", "200", private=True), "lang", "xx")
    assert views[0].notice
    views = await service.command(VELI, Place("test", "200", private=True), "lang", "ru")
    assert views[0].lang == "ru"
    helped = await service.command(VELI, Place("test", "200", private=True), "help", "")
    assert helped[0].lang == "ru"


async def test_board_picture_is_png(tmp_path):
    storage = SqliteStorage(str(tmp_path / "p.db"))
    await storage.open()
    service = make_service(storage)
    _, accept = await challenge(service)
    views = await service.press(VELI, GROUP, accept)
    image = board(views).image
    assert image is not None
    assert image.startswith(b"\x89PNG")
    await storage.close()


async def test_board_pictures_are_cached_by_what_they_show(tmp_path, monkeypatch):
    drawn: list[str] = []

    def counting(view, fmt="png", width=1000):
        drawn.append(fmt)
        return render_picture(view, fmt, width)

    monkeypatch.setattr(service_boards, "render_picture", counting)
    storage = SqliteStorage(str(tmp_path / "c.db"))
    await storage.open()
    try:
        service = make_service(storage)
        _, accept = await challenge(service)
        shown = board(await service.press(VELI, GROUP, accept))
        assert drawn == ["png"]
        # The same board shown again is not drawn again.
        again = await service.command(ALI, GROUP, "board", "")
        assert again[0].image == shown.image
        assert drawn == ["png"]
        # Picking a checker (on a board that asks for picks) changes only the buttons: no
        # picture; moving one changes what is shown: a new picture.
        service.settings.keypad["test"] = KeypadLimits(plays=0, moves=0)
        again = board(await service.command(ALI, GROUP, "board", ""))
        assert drawn == ["png"]
        mover = await awaiting_actor(service, shown.game_id)
        picked = board(await press(service, mover, GROUP, again, A.SELECT))
        assert picked.keyboard_only
        assert picked.image is None
        assert drawn == ["png"]
        moved = board(await press(service, mover, GROUP, picked, A.MOVE))
        assert moved.image != shown.image
        assert drawn == ["png", "png"]
    finally:
        await storage.close()


async def test_telegram_gets_jpeg_other_platforms_png(tmp_path):
    storage = SqliteStorage(str(tmp_path / "j.db"))
    await storage.open()
    try:
        service = make_service(storage)
        chat = Place("telegram", "-5", private=False, title="Çay")
        ali, veli = (replace(a, platform="telegram") for a in (ALI, VELI))
        views = await service.command(ali, chat, "tavla", "")
        telegram = board(await press(service, veli, chat, views[-1], A.ACCEPT))
        assert telegram.image.startswith(b"\xff\xd8\xff")
        assert telegram.image_name == "board.jpg"
        _, accept = await challenge(service)
        other = board(await service.press(VELI, GROUP, accept))
        assert other.image.startswith(b"\x89PNG")
        assert other.image_name == "board.png"
    finally:
        await storage.close()


async def test_stats_draws_the_rating_history(tmp_path):
    storage = SqliteStorage(str(tmp_path / "s.db"))
    await storage.open()
    service = make_service(storage, first_seed=50, burst_actions=10**6, render_images=False)
    for _ in range(2):
        views = await start_game(service)
        await play_out(service, views)
    service.settings.render_images = True
    stats = await service.command(ALI, GROUP, "stats", "")
    assert "Played 2" in text_of(stats)
    assert stats[0].image.startswith(b"\x89PNG")
    # Its own file name: the console saved it over the analysis card's.
    assert stats[0].image_name.startswith("rating-")
    by_name = await service.command(VELI, GROUP, "stats", "@ali")
    assert "Ali" in text_of(by_name)
    await storage.close()


async def test_flood_of_presses_is_slowed_down(tmp_path):
    """Hostile input: one user spamming is told to slow down; others are not affected."""
    storage = SqliteStorage(str(tmp_path / "f.db"))
    await storage.open()
    clock = Clock()
    service = make_service(
        storage, clock=clock, render_images=False, burst_actions=5, burst_window=5.0
    )
    answers = [await service.command(ALI, GROUP, "help", "") for _ in range(8)]
    slowed = [a for a in answers if "Not so fast" in text_of(a)]
    assert len(slowed) == 3
    assert "Not so fast" not in text_of(await service.command(VELI, GROUP, "help", ""))
    clock.now += 5
    assert "Not so fast" not in text_of(await service.command(ALI, GROUP, "help", ""))
    await storage.close()


async def test_a_flood_is_told_to_slow_down_once_a_window(tmp_path):
    """A flood's first refusal says "Not so fast"; the rest of that window's are quiet (no
    chat message each, on a platform that would post one), for commands, typed moves and
    presses alike; the next window's first refusal says it again."""
    async with service_at(tmp_path / "q.db", burst_actions=3, burst_window=6.0) as (
        service,
        clock,
    ):
        me = Place("test", "100", private=True, title="Ali")
        for _ in range(3):
            await service.command(ALI, me, "help", "")
        refused = [await service.command(ALI, me, "help", "") for _ in range(3)]
        refused.append(await service.text(ALI, me, "13/8 6/5"))
        refused.append(await service.press(ALI, me, "g1:0:x"))
        assert all("Not so fast" in text_of(views) for views in refused)
        assert [[v.quiet for v in views] for views in refused] == [[False]] + [[True]] * 4
        # Another user's notice is their own.
        for _ in range(3):
            await service.command(VELI, GROUP, "help", "")
        [theirs] = await service.command(VELI, GROUP, "help", "")
        assert "Not so fast" in text_of([theirs])
        assert not theirs.quiet
        clock.now += 6
        for _ in range(3):
            await service.command(ALI, me, "help", "")
        [again] = await service.command(ALI, me, "help", "")
        assert "Not so fast" in text_of([again])
        assert not again.quiet


async def test_tricky_names_are_cleaned(env):
    """Hostile input: control and direction-override characters never reach a caption."""
    service, _ = env
    evil = Actor("test", "666", "Ev\u202eil\u200b\u0000" + "x" * 80 + "\n/admin", "evil")
    views = await service.command(evil, GROUP, "tavla", "")
    text = text_of(views)
    assert "\u202e" not in text
    assert "\u200b" not in text
    assert "\n/admin" not in text
    user = await service.storage.find_user("test", "evil")
    assert len(user.name) <= 32


async def test_a_locked_database_gets_a_try_again_and_nothing_breaks(tmp_path):
    """Fault: another process holds the database's write lock; the player is asked to try
    again, and the same press works once the lock is gone."""
    import sqlite3

    path = tmp_path / "locked.db"
    storage = SqliteStorage(str(path), busy_timeout=0.2)
    await storage.open()
    service = make_service(storage, render_images=False, burst_actions=10**6)
    views = await start_game(service)
    current = board(views)
    actor = await awaiting_actor(service, current.game_id)
    step = await a_step(service, actor, GROUP, current)
    other = sqlite3.connect(path, timeout=0)
    other.execute("BEGIN IMMEDIATE")
    try:
        refused = await service.press(actor, GROUP, step)
        assert refused[0].notice
        assert "try again" in text_of(refused)
    finally:
        other.rollback()
        other.close()
    done = await service.press(actor, GROUP, step)
    assert not done[0].notice
    await storage.close()


async def test_without_drawing_processes_one_thread_draws_every_picture(tmp_path, monkeypatch):
    """Fonts are per thread, so the kept text masks serve only the thread that drew them:
    pictures asked for at once are all drawn on the same drawing thread, off the event loop."""
    views: list[BoardView] = []
    threads: list[threading.Thread] = []
    real = service_boards.render_picture

    def recording(view, fmt):
        views.append(view)
        threads.append(threading.current_thread())
        return real(view, fmt)

    monkeypatch.setattr(service_boards, "render_picture", recording)
    storage = SqliteStorage(str(tmp_path / "thread.db"))
    await storage.open()
    service = make_service(storage, render_processes=0)
    try:
        await start_game(service)
        shown = views[0]
        # Boards of many chats at once (each differs, so none comes from the picture cache).
        wanted = [
            replace(shown, theme=theme, names={"white": f"Player {n}"})
            for theme in THEMES
            for n in range(4)
        ]
        pictures = await asyncio.gather(*(service.boards.render(v, PNG) for v in wanted))
        assert all(p.startswith(b"\x89PNG") for p in pictures)
        assert len(threads) == 1 + len(wanted)
        assert len(set(threads)) == 1
        assert threads[0] is not threading.main_thread()
    finally:
        service.close()
        await storage.close()


async def test_the_drawing_loads_its_fonts_before_the_first_board(tmp_path, monkeypatch):
    """``warm``: the one drawing thread draws each game's starting board in the bot's theme
    (fonts, pieces) before any player's board is asked for, and then draws the boards;
    drawing processes do it as they start (nothing to ask of them)."""
    warmed: list[tuple[str, threading.Thread]] = []
    drew: list[threading.Thread] = []
    real_warm, real_render = service_boards.warm_up, service_boards.render_picture

    def warming(theme: str) -> None:
        warmed.append((theme, threading.current_thread()))
        real_warm(theme)

    def drawing(view, fmt):
        drew.append(threading.current_thread())
        return real_render(view, fmt)

    monkeypatch.setattr(service_boards, "warm_up", warming)
    monkeypatch.setattr(service_boards, "render_picture", drawing)
    storage = SqliteStorage(str(tmp_path / "warm.db"))
    await storage.open()
    service = make_service(storage, render_processes=0)
    try:
        started = service.boards.warm()
        assert started is not None
        started.result(timeout=120)
        assert [theme for theme, _ in warmed] == [service.settings.theme]
        await start_game(service)
        assert drew
        assert set(drew) == {warmed[0][1]}
    finally:
        service.close()
        await storage.close()
    pooled = make_service(storage, render_processes=1)
    try:
        assert pooled.boards.warm() is None
    finally:
        pooled.close()


async def test_board_pictures_drawn_in_a_separate_process(tmp_path):
    storage = SqliteStorage(str(tmp_path / "pool.db"))
    await storage.open()
    service = make_service(storage, render_processes=1)
    try:
        _, accept = await challenge(service)
        views = await service.press(VELI, GROUP, accept)
        assert board(views).image.startswith(b"\x89PNG")
    finally:
        service.close()
        await storage.close()


async def test_the_final_board_keeps_the_players_side_and_names_the_winner(env):
    """When the computer wins, the last board is still drawn from the person's side (it
    used to turn round to the computer's) and says who won and how, on the picture's strip
    and under it (and in the text board)."""
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", "")
    game_id = board(views).game_id
    record = await service.storage.get_game(game_id)
    human = 1 - record.settings.computer
    views = await play_out(service, views)
    final = board(views)
    record = await service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    game = match.game
    winner = match.results[-1].winner
    assert winner == record.settings.computer  # the scripted player loses to club
    assert final.board.viewer == ("white" if human == game.white else "black")
    assert final.board.winner == ("white" if winner == game.white else "black")
    assert final.board.to_move is None
    assert final.board.caption.startswith("Tavla Bot")
    # Ali plays in Turkish: "Tavla Bot (club) kazandı: normal oyun, 1 puan."
    assert " kazandı" in final.board.caption
    assert "puan" in final.board.caption
    text = final.text_board
    assert f"* {final.board.label('winner')}" in text
    assert final.board.caption in text


async def test_a_game_against_the_computer_called_off_is_abandoned_not_agreed(env):
    """Nobody agrees with the player who calls off a game against the computer: the
    message and the board's last caption say it was abandoned, unrated."""
    service, _ = env
    game_id = board(await service.command(ALI, GROUP, "bot", "")).game_id
    said = text_of(await service.command(ALI, GROUP, "abort", ""))
    assert "The game was abandoned. It is not rated." in said
    assert "agreement" not in said
    record = await service.storage.get_game(game_id)
    assert record.status is GameStatus.ABORTED
    assert not record.rated
    chat = await service.storage.get_chat("test", GROUP.chat_id)
    last = await service.boards.board(service.store.context(record), chat, edit=True)
    assert "The game was abandoned. It is not rated." in text_of([last])
    assert "agreement" not in text_of([last])
