"""A game one person plays against themselves (both seats theirs: the console's hot-seat),
through the service: never rated, every answer theirs, no clock, a rematch of its own kind
(rules.md Ratings: only contests between two different people count; T-9 resignations)."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.service import Actor, GameService, Place
from bot.storage.base import GameStatus
from core.game import Phase
from core.match import Match
from tests.factory import a_step, find, resign
from tests.test_service import board, service_at, text_of

ALI = Actor("test", "100", "Ali", "ali", "en")
HOME = Place("test", "100", private=True, title="Ali")
SIDES = ("Ali", "Veli")


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


async def start(service: GameService, args: str = "", name: str = "tavla") -> int:
    views = await service.hot_seat(ALI, HOME, name, args, sides=SIDES)
    assert not views[0].notice, text_of(views)
    game_id = board(views).game_id
    assert game_id is not None
    return game_id


async def game_of(service: GameService, game_id: int):
    record = await service.storage.get_game(game_id)
    return record, Match.from_dict(record.match).game


async def play_until_seat(service: GameService, game_id: int, seat: int) -> None:
    """Press on until the game waits for ``seat`` to roll or to play (not a double)."""
    for _ in range(200):
        _, game = await game_of(service, game_id)
        if game.awaiting == seat and game.phase is not Phase.DOUBLED:
            return
        (view,) = [v for v in await service.command(ALI, HOME, "board", "") if v.buttons]
        for code in (A.CONFIRM, A.ROLL, A.TAKE):
            if data := find(view, code):
                break
        else:
            data = await a_step(service, ALI, HOME, view)
        answer = await service.press(ALI, HOME, data)
        assert not answer[0].notice, text_of(answer)
    raise AssertionError("the game never came to that seat")


async def offer(service: GameService, level: str = "") -> list:
    """``/resign`` (with its level) by the side on turn, and its "Yes, resign"."""
    views = await resign(service, ALI, HOME, level)
    assert not views[0].notice, text_of(views)
    return views


async def test_both_seats_are_one_person_and_the_game_is_never_rated(env):
    service, _ = env
    game_id = await start(service)
    record, _ = await game_of(service, game_id)
    ali = await service.storage.get_or_create_user("test", "100", "Ali")
    assert record.seats == [ali.id, ali.id]
    assert record.settings.names == SIDES
    assert not record.rated
    offered = await offer(service)
    await service.press(ALI, HOME, find(board(offered), A.RESIGN_ACCEPT))
    record, _ = await game_of(service, game_id)
    assert record.status is GameStatus.FINISHED
    assert not record.rated
    rating = await service.info.rating(ali.id, "tavla")
    assert rating == (1500.0, 0)
    stats = text_of(await service.command(ALI, HOME, "stats", ""))
    assert "Played 0" in stats  # practice against oneself is left out


@pytest.mark.parametrize("seat", [0, 1])
async def test_a_resignation_is_answered_for_the_other_side(env, seat):
    """T-9: the side on turn offers; the one person answers for the other side, from the
    same keyboard: declining plays on, accepting makes the offerer lose (never win), and
    the caption says who resigned what."""
    service, _ = env
    game_id = await start(service, "3")
    await play_until_seat(service, game_id, seat)
    offered = await offer(service, "gammon")
    assert "offers to resign a gammon" in text_of(offered)
    declined = await service.press(ALI, HOME, find(board(offered), A.RESIGN_DECLINE))
    assert not declined[0].notice, text_of(declined)
    assert "declined the resignation" in text_of(declined)
    _, game = await game_of(service, game_id)
    assert game.resign_offer is None
    assert game.awaiting == seat
    offered = await offer(service, "gammon")
    accepted = await service.press(ALI, HOME, find(board(offered), A.RESIGN_ACCEPT))
    assert not accepted[0].notice, text_of(accepted)
    record, _ = await game_of(service, game_id)
    match = Match.from_dict(record.match)
    (result,) = match.results
    assert (result.winner, result.points) == (1 - seat, 2)
    assert f"{SIDES[seat]} resigned a gammon (mars): {SIDES[1 - seat]} wins 2 points." in (
        text_of(accepted)
    )
    assert not record.rated


async def test_an_abort_asks_first_and_says_the_game_was_abandoned(env):
    """One person at the keyboard: /abort asks to confirm (no agreement can come), "No"
    plays on, "Yes, abandon" ends it unrated and says it was abandoned, not agreed."""
    service, _ = env
    game_id = await start(service, name="uzun")
    before = (await service.storage.get_game(game_id)).version
    asked = await service.command(ALI, HOME, "abort", "")
    question = board(asked)
    assert "Abandon this game? It ends here, unrated." in text_of(asked)
    assert {A.decode(b.action).code for row in question.buttons for b in row} == {
        A.ABANDON,
        A.RESIGN_CANCEL,
    }
    record, _ = await game_of(service, game_id)
    assert (record.status, record.version) == (GameStatus.ACTIVE, before)  # nothing yet
    kept = await service.press(ALI, HOME, find(question, A.RESIGN_CANCEL))
    assert "Abandon" not in text_of(kept)
    assert (await game_of(service, game_id))[0].status is GameStatus.ACTIVE
    question = board(await service.command(ALI, HOME, "abort", ""))
    done = await service.press(ALI, HOME, find(question, A.ABANDON))
    said = text_of(done)
    assert "The game was abandoned. It is not rated." in said
    assert "agreement" not in said
    record, _ = await game_of(service, game_id)
    assert record.status is GameStatus.ABORTED
    assert not record.rated
    edited = [v for v in done if v.game_id == game_id and v.edit]
    assert edited
    assert all(not v.buttons for v in edited)  # the question's buttons are gone
    # The board says how it ended, and no longer who is to play with which dice.
    assert "to play" not in said
    assert edited[-1].board.to_move is None
    assert edited[-1].board.dice == ()


async def test_no_clock_runs_against_oneself(env):
    """Nobody waits for a player who plays both sides: no reminder, no claim, ever."""
    service, clock = env
    game_id = await start(service, "fast")
    record, _ = await game_of(service, game_id)
    assert record.deadline is None
    clock.now += 3 * 24 * 3600
    assert await service.tick() == []
    record, _ = await game_of(service, game_id)
    assert record.status is GameStatus.ACTIVE
    claimed = await service.command(ALI, HOME, "claim", "")
    assert claimed[0].notice


async def test_a_rematch_is_another_game_against_oneself(env):
    service, _ = env
    game_id = await start(service, "1", name="uzun")
    offered = await offer(service)
    finished = await service.press(ALI, HOME, find(board(offered), A.RESIGN_ACCEPT))
    again = await service.press(ALI, HOME, find(board(finished), A.REMATCH))
    assert not again[0].notice, text_of(again)
    record, _ = await game_of(service, board(again).game_id)
    assert record.id != game_id
    assert record.seats[0] == record.seats[1]
    assert (record.variant, record.settings.names) == ("uzun", SIDES)
    assert record.status is GameStatus.ACTIVE


async def test_no_one_is_named_in_a_game_against_oneself(env):
    service, _ = env
    views = await service.hot_seat(ALI, HOME, "tavla", "@veli", sides=SIDES)
    assert views[0].notice
    assert "@veli" in text_of(views)


async def test_a_declined_resignation_is_not_told_under_the_finished_board(env):
    """A game ended by a later resignation: its final caption says who resigned what, and
    no longer the stale "declined the resignation: play goes on" of an earlier offer."""
    service, _ = env
    await start(service)
    offered = await offer(service, "backgammon")
    await service.press(ALI, HOME, find(board(offered), A.RESIGN_DECLINE))
    offered = await offer(service)
    accepted = await service.press(ALI, HOME, find(board(offered), A.RESIGN_ACCEPT))
    assert "Ali resigned a single game: Veli wins 1 point." in text_of(accepted)
    assert "play goes on" not in text_of(accepted)


async def test_text_at_a_roll_or_a_double_says_what_the_game_waits_for(env):
    """T-8: a move typed when the player may double before rolling is told both choices (it
    was told only to roll, as if doubling were not allowed); one typed when facing a double
    is told to take or pass (it said "That can't be done right now")."""
    service, _ = env
    game_id = await start(service, "3")
    _, game = await game_of(service, game_id)
    await play_until_seat(service, game_id, 1 - game.awaiting)
    _, game = await game_of(service, game_id)
    assert game.phase is Phase.ROLL
    assert game.may_double(game.awaiting)
    said = text_of(await service.text(ALI, HOME, "13/8 6/5"))
    assert said == "Roll the dice first, or double: press 🎲 Roll or Double to 2."
    (view,) = [v for v in await service.command(ALI, HOME, "board", "") if v.buttons]
    await service.press(ALI, HOME, find(view, A.DOUBLE))
    said = text_of(await service.text(ALI, HOME, "13/8 6/5"))
    assert said == "Your opponent doubled to 2: take or pass first."


async def test_a_matchs_seed_is_said_to_come_when_the_match_ends(env):
    """Fair dice: a match's games share one seed, revealed when the match ends. The opening
    said "when the game ends", and /dice after the first game of a match said the same,
    though that game was over and no seed came."""
    service, _ = env
    views = await service.hot_seat(ALI, HOME, "tavla", "3", sides=SIDES)
    assert "SHA-256 of this match's secret seed" in text_of(views)
    assert "revealed when the match ends" in text_of(views)
    offered = await offer(service)
    await service.press(ALI, HOME, find(board(offered), A.RESIGN_ACCEPT))
    said = text_of(await service.command(ALI, HOME, "dice", ""))
    assert "The seed is revealed when the match ends." in said
    single = await service.hot_seat(ALI, HOME, "tavla", "", sides=SIDES)
    assert "SHA-256 of this game's secret seed" in text_of(single)
