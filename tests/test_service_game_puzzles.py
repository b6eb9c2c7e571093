"""Puzzles from the games played here: after a contest ends, a play of it that lost at least
0.16 with one clearly best answer is stored as a puzzle, found in the background (never on a
press's path), naming nobody; never from a contest of a player who keeps theirs out."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.service import actions as A
from bot.service import mining
from bot.storage.base import GameStatus
from core.match import Match
from tests.factory import find, resign
from tests.test_service import ALI, GROUP, board, service_at, text_of
from tests.test_service_learning import PRIVATE

#: With these dice Ali opens a game against the computer with 3-1 (found by trying seeds).
OPENS_THREE_ONE = 28


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db", first_seed=OPENS_THREE_ONE, game_puzzles=True) as pair:
        yield pair


async def blunder_and_resign(service) -> int:
    """Ali opens 3-1 with 13/9 (the best is 8/5 6/5, far ahead), then resigns: the game's id."""
    views = await service.command(ALI, GROUP, "bot", "")
    record = await service.storage.get_game(board(views).game_id)
    game = Match.from_dict(record.match).game
    assert tuple(sorted(game.dice)) == (1, 3)
    assert game.variant.start_position() == game.position()
    moved = await service.command(ALI, GROUP, "move", "13/9")
    confirm = find(board(moved), A.CONFIRM)
    if confirm is not None:
        await service.press(ALI, GROUP, confirm)
    await resign(service, ALI, GROUP)
    finished = await service.storage.get_game(record.id)
    assert finished.status is GameStatus.FINISHED
    return record.id


async def test_a_finished_games_blunder_becomes_a_puzzle_for_anyone(env) -> None:
    service, _ = env
    game_id = await blunder_and_resign(service)
    await service.settle()  # the search runs in the background, after the answer
    assert await service.storage.puzzles.count() == 1
    stored = await service.storage.puzzles.get(1)
    assert stored.source == "game"
    assert stored.variant == "tavla"
    assert stored.data["candidates"][stored.data["answer"]]["text"] == "8/5 6/5"
    assert stored.data["candidates"][stored.data["played"]]["text"] == "13/9"
    assert stored.data["loss"] >= 0.16
    assert stored.data["margin"] >= 0.10
    assert "Ali" not in json.dumps(stored.data, ensure_ascii=False)
    assert (await service.storage.get_game(game_id)).status is GameStatus.FINISHED
    # Ali's choice to keep his games out takes the puzzle out again.
    here = PRIVATE(ALI)
    await service.press(ALI, here, A.encode(0, 0, A.SETTING, "q0"))
    assert await service.storage.puzzles.count() == 0


async def test_no_puzzle_from_the_games_of_a_player_who_keeps_them_out(env) -> None:
    service, _ = env
    here = PRIVATE(ALI)
    (shown,) = await service.command(ALI, here, "settings", "")
    assert "Your games in puzzles: ✅" in text_of([shown])
    await service.press(ALI, here, A.encode(0, 0, A.SETTING, "q0"))
    await blunder_and_resign(service)
    await service.settle()
    assert await service.storage.puzzles.count() == 0


async def test_the_search_waits_for_no_press(env, monkeypatch) -> None:
    """The final board is answered before the search ends (the search is held here)."""

    release = asyncio.Event()
    original = mining.Mining.mine

    async def gate(self, record):
        await release.wait()
        return await original(self, record)

    monkeypatch.setattr(mining.Mining, "mine", gate)
    service, _ = env
    await blunder_and_resign(service)  # answered while the search waits
    assert await service.storage.puzzles.count() == 0
    release.set()
    await service.settle()
    assert await service.storage.puzzles.count() == 1
