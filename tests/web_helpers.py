"""Shared set-up of the web board tests: a service, a started game, a bear-off position."""

from __future__ import annotations

from dataclasses import replace

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place
from core.game import Phase
from core.match import Match
from tests.factory import actions_of

ALI = Actor("telegram", "100", "Ali", "ali", "tr")
VELI = Actor("telegram", "200", "Veli", "veli", "en")
AYSE = Actor("telegram", "300", "Ayşe", "ayse", "ru")
GROUP = Place("telegram", "-1001", private=False, title="Kahve")


def accept_of(views: list) -> str:
    accept = actions_of(views).get(A.ACCEPT)
    if accept is None:
        raise AssertionError("no Accept button")
    return accept


async def start_game(service: GameService, variant: str = "tavla") -> int:
    """A game of Ali (challenger) and Veli in GROUP; returns its id."""
    views = await service.command(ALI, GROUP, variant, "")
    views = await service.press(VELI, GROUP, accept_of(views))
    game_ids = {v.game_id for v in views if v.game_id is not None}
    assert len(game_ids) == 1
    return game_ids.pop()


async def set_bear_off(service: GameService, game_id: int, turn: int = 0) -> None:
    """Put the game in a short race with choices: each side has 4 checkers left (two on its
    6-point, one on its 5 and one on its 4) and ``turn`` is to roll."""
    record = await service.storage.get_game(game_id)
    assert record is not None
    assert record.match is not None
    match = Match.from_dict(record.match)
    game = match.game
    assert game is not None
    side = [11, 0, 0, 0, 1, 1, 2] + [0] * 19
    game.sides = [tuple(side), tuple(side)]
    game.phase = Phase.ROLL
    game.turn = turn
    game.dice = None
    game._turn = None
    game.played_first_turn = [True, True]
    record.match = match.to_dict()
    # A change of what the board shows, as the service records one (buttons drawn before it
    # are out of date).
    record.settings = replace(record.settings, state_version=record.version + 1)
    async with service.storage.transaction() as tx:
        await tx.save_game(record, record.version)


async def seats(service: GameService, game_id: int) -> dict[str, int]:
    """Platform user id → seat."""
    record = await service.storage.get_game(game_id)
    assert record is not None
    found = {}
    for seat, user_id in enumerate(record.seats):
        user = await service.storage.get_user(user_id)
        found[user.platform_id] = seat
    return found


async def set_position(
    service: GameService,
    game_id: int,
    sides: list[list[int]],
    *,
    turn: int = 0,
    dice: tuple[int, int] | None = None,
) -> None:
    """Put the game in a position (``sides[s]``: seat s's checkers, index 0 borne off, 1–24
    its points, 25 its bar) with ``turn`` to roll, or to play ``dice`` when given."""
    record = await service.storage.get_game(game_id)
    assert record is not None
    assert record.match is not None
    game = record.match["game"]
    game.update(
        sides=sides,
        turn=turn,
        phase=(Phase.MOVE if dice else Phase.ROLL).value,
        dice=list(dice) if dice else None,
        played_first_turn=[True, True],
        steps=[],
        takeback=None,
    )
    record.settings = replace(record.settings, state_version=record.version + 1)
    async with service.storage.transaction() as tx:
        await tx.save_game(record, record.version)
