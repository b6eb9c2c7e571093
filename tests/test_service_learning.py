"""Hints and puzzles through the service: the 💡 button and /hint against the computer (never
in a rated game), /puzzle in private answered right and wrong, one try each, the rating and
the streak."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.service import actions as A
from bot.service.views import View
from bot.storage.base import GameStatus
from tests.factory import a_step, buttons_of, find, press
from tests.test_service import ALI, GROUP, board, service_at, start_game, text_of

PRIVATE = lambda actor: __import__("bot.service.views").service.views.Place(  # noqa: E731
    "test", actor.user_id, private=True
)
SHOTS = os.environ.get("TAVLA_LEARN_SCREENSHOTS")


def keep(view: View, name: str) -> None:
    """Write a view's picture where a person can look at it (TAVLA_LEARN_SCREENSHOTS)."""
    if SHOTS and view.image:
        Path(SHOTS, f"{name}.png").write_bytes(view.image)


@pytest.fixture
async def env(tmp_path):
    # The tutor waited for however long its verdict takes on a busy test machine.
    async with service_at(
        tmp_path / "t.db", render_images=True, tutor_first_games=10, tutor_wait=60.0
    ) as pair:
        yield pair


async def board_with_hint(service, views: list[View]) -> View:
    """Roll until the player has a choice: the board with its 💡 button."""
    for _ in range(6):
        view = board(views)
        if find(view, A.HINT):
            return view
        assert find(view, A.ROLL), "neither a choice nor a roll"
        views = await press(service, ALI, GROUP, view, A.ROLL)
    raise AssertionError("no choice came")


async def test_a_hint_against_the_computer(env) -> None:
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", "")
    view = await board_with_hint(service, views)
    hinted = await press(service, ALI, GROUP, view, A.HINT)
    text = text_of(hinted)
    assert "The best plays of" in text or "To double?" in text
    assert "— best" in text
    assert any(v.image for v in hinted)  # the board after the best play
    keep(next(v for v in hinted if v.image), "hint")
    # /hint says the same; the game is unchanged (a hint changes nothing).
    again = await service.command(ALI, GROUP, "hint", "")
    assert text_of(again) == text
    turkish = await service.command(ALI, GROUP, "hint", "")
    assert "en iyi" in text_of(turkish, "tr") or "Katla" in text_of(turkish, "tr")


async def test_no_hint_in_a_rated_game(env) -> None:
    service, _ = env
    views = await start_game(service)
    record = await service.storage.get_game(board(views).game_id)
    assert record.rated
    assert record.status is GameStatus.ACTIVE
    assert not any(find(v, A.HINT) for v in views if v.buttons)
    refused = await service.command(ALI, GROUP, "hint", "")
    assert refused[0].notice
    assert "never for rated games" in text_of(refused)
    forged = A.encode(record.id, record.version, A.HINT)
    assert "never for rated games" in text_of(await service.press(ALI, GROUP, forged))


async def test_a_puzzle_answered_right_then_one_wrong(env) -> None:
    service, _ = env
    assert "private chat" in text_of(await service.command(ALI, GROUP, "puzzle", ""))
    here = PRIVATE(ALI)
    (view,) = await service.command(ALI, here, "puzzle", "turkish")
    assert "Puzzle" in text_of([view])
    assert "Turkish tavla" in text_of([view])
    assert view.image is not None
    keep(view, "puzzle")
    pid = A.decode(view.buttons[0][0].action).game_id
    stored = await service.storage.puzzles.get(pid)
    answer = stored.data["answer"]
    right = A.encode(pid, 0, A.PUZZLE, answer)
    solved = await service.press(ALI, here, right)
    text = text_of(solved)
    assert "✅ Right" in text
    assert "streak 1" in text
    assert "In the game" in text
    # One try each.
    again = await service.press(ALI, here, right)
    assert again[0].notice
    assert "already" in text_of(again)
    # The next puzzle, answered wrong: the streak ends, the rating falls back.
    (second,) = await service.press(ALI, here, find(solved[0], A.PUZZLE))
    other = A.decode(second.buttons[0][0].action).game_id
    assert other != pid
    stored = await service.storage.puzzles.get(other)
    wrong = next(n for n in range(len(stored.data["candidates"])) if n != stored.data["answer"])
    missed = await service.press(ALI, here, A.encode(other, 0, A.PUZZLE, wrong))
    assert "❌ Not this one" in text_of(missed)
    assert "streak 0" in text_of(missed)
    player = await service.storage.puzzles.player(
        (await service.storage.find_user("test", "100")).id
    )
    assert player.attempts == 2
    assert player.best_streak == 1
    # The puzzle names nobody: no button or line holds a player's name.
    for v in (view, *solved, second, *missed):
        assert "Ali" not in text_of([v])
        assert all("Ali" not in str(b.label) for b in buttons_of(v))


# -- the tutor -----------------------------------------------------------------------------


def worst_play(record):
    """A play of the roll the tutor warns about (worst at 0-ply first), as a MOVE argument."""
    import numpy as np

    from core.analysis import evaluator_for
    from core.analysis.ranking import scoring_for
    from core.learn import tutor_play
    from core.match import Match

    match = Match.from_dict(record.match)
    game = match.game
    plays = game.legal_plays()
    evaluator = evaluator_for(game.variant, "network")
    quick = evaluator.play_values(
        game.variant, [p.after for p in plays], scoring_for(game.variant, None), False
    )
    for i in np.argsort(quick)[:6]:
        play = plays[int(i)]
        advice = tutor_play(game, play.after, match)
        if advice is not None:
            return ".".join(f"{s.source}-{s.dest}" for s in play.steps), advice
    return None, None


async def test_the_tutor_asks_before_a_bad_play(env) -> None:
    service, _ = env
    views = await service.command(ALI, GROUP, "bot", "turkish")
    view = await board_with_hint(service, views)
    record = await service.storage.get_game(view.game_id)
    steps, advice = worst_play(record)
    assert steps is not None
    # Against the computer a finished move waits for Confirm: the tutor asks there.
    moved = await service.press(ALI, GROUP, A.encode(record.id, record.version, A.MOVE, steps))
    confirm = find(board(moved), A.CONFIRM)
    assert confirm is not None
    assert "That loses" not in text_of(moved)
    version = (await service.storage.get_game(record.id)).version
    asked = await service.press(ALI, GROUP, confirm)
    question = board(asked)
    text = text_of([question])
    assert f"That loses about {advice.percent}%" in text
    assert f"Better: {advice.better}" in text
    assert (await service.storage.get_game(record.id)).version == version  # not made
    # "Think again": the board as it was (Undo and Confirm), nothing made.
    back = await service.press(ALI, GROUP, find(question, A.TUTOR_BACK))
    assert "That loses" not in text_of([board(back)])
    assert find(board(back), A.UNDO)
    assert (await service.storage.get_game(record.id)).version == version
    # Asked again, "Play it anyway": the move is confirmed, the computer answers.
    asked = await service.press(ALI, GROUP, find(board(back), A.CONFIRM))
    made = await service.press(ALI, GROUP, find(board(asked), A.TUTOR_OK))
    assert (await service.storage.get_game(record.id)).version > version
    assert "That loses" not in text_of(made)


async def test_the_tutor_watches_a_new_players_first_games_against_the_computer(tmp_path) -> None:
    """Unless set in /settings, the tutor watches the first games against the computer only:
    games against people do not count."""
    from dataclasses import replace

    async with service_at(tmp_path / "t.db", tutor_first_games=2, tutor_wait=60.0) as pair:
        service, _ = pair
        views = await service.command(ALI, GROUP, "bot", "turkish")
        view = await board_with_hint(service, views)
        record = await service.storage.get_game(view.game_id)
        veli = await service.storage.get_or_create_user("test", "veli", "Veli")

        async def finished(*seats: int | None) -> None:
            settings = record.settings
            if veli.id in seats:
                settings = replace(settings, computer=None)
            done = replace(
                record, id=None, status=GameStatus.FINISHED, seats=list(seats), settings=settings
            )
            async with service.storage.transaction() as tx:
                await tx.insert_game(done)

        async def asked(views: list[View]) -> tuple[bool, list[View]]:
            """Whether the tutor asks about a bad play; the views after it is made."""
            view = await board_with_hint(service, views)
            current = await service.storage.get_game(view.game_id)
            steps, _ = worst_play(current)
            assert steps is not None
            moved = await service.press(
                ALI, GROUP, A.encode(current.id, current.version, A.MOVE, steps)
            )
            confirmed = await service.press(ALI, GROUP, find(board(moved), A.CONFIRM))
            if "That loses" not in text_of(confirmed):
                return False, confirmed
            return True, await service.press(ALI, GROUP, find(board(confirmed), A.TUTOR_OK))

        human, computer = record.seats
        await finished(human, computer)
        for _ in range(5):
            await finished(human, veli.id)
        watched, views = await asked(views)
        assert watched  # one game against the computer finished: still watched
        await finished(computer, human)
        watched, _ = await asked(views)
        assert not watched  # two: no longer


async def test_the_tutor_can_be_switched_off(env) -> None:
    service, _ = env
    here = PRIVATE(ALI)
    (shown,) = await service.command(ALI, here, "settings", "")
    assert "Tutor" in text_of([shown])
    off = next(
        b.action for b in buttons_of(shown) if A.decode(b.action).arg == "u0"
    )  # by itself it is on: the button turns it off
    await service.press(ALI, here, off)
    views = await service.command(ALI, GROUP, "bot", "turkish")
    view = await board_with_hint(service, views)
    record = await service.storage.get_game(view.game_id)
    steps, _ = worst_play(record)
    moved = await service.press(ALI, GROUP, A.encode(record.id, record.version, A.MOVE, steps))
    made = await service.press(ALI, GROUP, find(board(moved), A.CONFIRM))
    assert "That loses" not in text_of(made)
    assert find(board(made), A.CONFIRM) is None


async def test_hints_and_puzzles_name_a_roll_larger_die_first(env) -> None:
    """Names of the dice (rules.md): a mixed roll is named larger die first, as the caption
    does ("to play 4-2"), never "2-4" in a hint or a puzzle."""
    service, _ = env
    await service.command(ALI, GROUP, "bot", "")
    named: set[str] = set()
    for _ in range(60):
        (view,) = [v for v in await service.command(ALI, GROUP, "board", "") if v.buttons]
        caption = text_of([view])
        if (roll := re.search(r"to play (\d)-(\d)", caption)) and roll[0] not in named:
            named.add(roll[0])
            hinted = text_of(await press(service, ALI, GROUP, view, A.HINT))
            assert f"best plays of {roll[1]}-{roll[2]}:" in hinted
        data = (
            find(view, A.TUTOR_OK)
            or find(view, A.CONFIRM)
            or find(view, A.ROLL)
            or find(view, A.TAKE)
            or await a_step(service, ALI, GROUP, view)
        )
        await service.press(ALI, GROUP, data)
        if len(named) >= 3:
            break
    assert len(named) >= 3
    here = PRIVATE(ALI)
    seen = 0
    for game in ("tavla", "turkish", "uzun") * 3:
        (view,) = await service.command(ALI, here, "puzzle", game)
        if match := re.search(r"rolled (\d)-(\d)", text_of([view])):
            seen += 1
            assert int(match[1]) >= int(match[2]), text_of([view])
    assert seen


async def test_the_tutor_asks_about_a_cube_action_in_its_own_words(env) -> None:
    """A double the tutor finds costly is asked "double anyway?" with a "Double anyway"
    button, not "play it anyway?" as for a move; pressing it makes the double."""
    service, _ = env
    await service.command(ALI, GROUP, "bot", "")
    for _ in range(40):
        (view,) = [v for v in await service.command(ALI, GROUP, "board", "") if v.buttons]
        if double := find(view, A.DOUBLE):
            break
        data = (
            find(view, A.TUTOR_OK)
            or find(view, A.CONFIRM)
            or find(view, A.ROLL)
            or await a_step(service, ALI, GROUP, view)
        )
        await service.press(ALI, GROUP, data)
    else:
        raise AssertionError("no Double came")
    asked = board(await service.press(ALI, GROUP, double))
    text = text_of([asked])
    assert "Doubling loses about" in text, text
    assert "double anyway?" in text
    assert "play it anyway" not in text
    (anyway,) = [b for b in buttons_of(asked) if A.decode(b.action).code == A.TUTOR_OK]
    assert text_of([View([anyway.label])]) == "Double anyway"
    assert "удвоить" in text_of([asked], "ru")
    assert "katla" in text_of([asked], "tr")
    made = await service.press(ALI, GROUP, anyway.action)
    assert "doubles to 2" in text_of(made) or "took the double" in text_of(made)


async def test_advice_is_worked_out_below_the_bots_own_priority(tmp_path) -> None:
    """Hints and the tutor's verdicts run in a worker process that yields the CPU to the
    bot's presses (as the puzzles' mining does): with a crowd of games against the computer
    the tutor's worker took half of the CPU the bot had. (It ran at the bot's priority.)"""
    import os

    from bot.service.service import GameService, ServiceSettings
    from bot.storage.sqlite import SqliteStorage

    storage = SqliteStorage(str(tmp_path / "nice.db"))
    await storage.open()
    service = GameService(storage, ServiceSettings(advice_processes=1))
    try:
        # (A bot already at the lowest priority, 19, has none lower to give.)
        assert await service.advisor.run(os.nice, 0) >= min(19, os.nice(0) + 1)
    finally:
        service.close()
        await storage.close()
