"""A one-game Tavla contest is exported as what it was: a game with a live cube whose points
are the cube times its worth (gammons and backgammons count, no Jacoby rule), that is money
play of one game, as GNU Backgammon writes money play (`` 0 point match``) with XG's
``; [Jacoby "Off"]`` line. Before, it was written as a "1 point match", which gnubg reads as
a 1-point match post-Crawford, where the cube and gammons are worth nothing.

gnubg's ``.mat`` import keeps no Jacoby mark (it reads ``[Jacoby …]`` and drops it) and
applies its own setting, on by default: ``/export`` says to set it off, and the tests do so.
"""

from __future__ import annotations

import functools

import pytest

from bot.service import analysis as analysis_module
from bot.service.export import export_match
from core.ai import player_for
from core.analysis import analyse_match
from core.analysis.records import parse_mat
from core.dice import RandomDice
from core.export import export_games
from core.game import Phase
from core.gnubg import match_id_info
from core.match import Match
from core.variants import variant_by_name
from tests.gnubg_anchor import gnubg_binary, gnubg_results
from tests.test_analysis import FlatEvaluator
from tests.test_service import ALI, GROUP, board, env, play_out, start_game, text_of

__all__ = ["env"]  # the fixture, imported for the tests below

needs_gnubg = pytest.mark.skipif(gnubg_binary() is None, reason="Debian's gnubg is absent")


def one_game(seed: int, double_every: int) -> Match:
    """A one-game contest as the bot plays it (a Match of length 1), beginner against
    expert; a player doubles on every ``double_every``-th turn it may, and doubles are
    taken."""
    dice = RandomDice(seed)
    match = Match(variant_by_name("tavla"), length=1)
    game = match.start_game(dice)
    players = [player_for("tavla", "beginner", seed), player_for("tavla", "expert", seed)]
    turn = 0
    while not game.over:
        seat = game.awaiting
        if game.phase is Phase.DOUBLED:
            game.take(seat)
        elif game.phase is Phase.ROLL:
            turn += 1
            if double_every and turn % double_every == 0 and game.may_double(seat):
                game.double(seat)
            else:
                game.roll(seat, dice)
        else:
            play = players[seat].choose_play(game.variant, game.position(seat), game.legal_plays())
            game.play(seat, play)
    match.record_game()
    return match


def cube_actions(events) -> list[tuple[int, str]]:
    return [(e["seat"], e["type"]) for e in events if e["type"] in ("double", "take", "drop")]


def test_a_one_game_contest_is_written_as_money_play_without_jacoby():
    match = one_game(7, 9)
    assert match.game is not None
    text = export_match(match, ["Ali", "Veli"], match.game.history)
    assert text.startswith('; [Jacoby "Off"]\n 0 point match\n')
    assert f"Wins {match.game.result.points} points\n" in text  # not "and the match"
    record = parse_mat(text)
    assert (record.length, record.jacoby) == (0, False)


@needs_gnubg
@pytest.mark.parametrize(
    ("seed", "double_every"),
    [
        (7, 0),  # a gammon with the cube in the middle: 2 points, no Jacoby rule
        (7, 9),  # a gammon at 16 after four doubles: 32 points
        (4, 9),  # a backgammon at 16: 48 points
    ],
)
def test_gnubg_scores_a_one_game_contest_as_it_was_played(seed, double_every):
    match = one_game(seed, double_every)
    game = match.game
    assert game is not None
    assert game.result is not None
    text = export_match(match, ["Ali", "Veli"], game.history)
    got = gnubg_results(text, ("set jacoby off",))
    assert got["length"] == 0
    assert "Jacoby" not in got["rules"]
    assert got["games"] == [
        {
            "winner": game.result.winner,
            "points": game.result.points,
            "cube": cube_actions(game.history),
        }
    ]


@needs_gnubg
async def test_a_one_game_contest_played_in_the_bot_comes_back_from_gnubg(env):
    """Through the service: doubles pressed on the board, ``/export``, gnubg."""
    service, _ = env
    views = await play_out(service, await start_game(service), double_every=9)
    game_id = board(views).game_id
    answer = await service.command(ALI, GROUP, "export", "")
    name, data = answer[0].document
    assert name == f"tavla-{game_id}.mat"
    said = text_of(answer)
    assert "for GNU Backgammon" in said
    assert "set jacoby off" in said
    mid = next(line.split(": ")[1] for line in said.splitlines() if line.startswith("Match ID"))
    assert (match_id_info(mid).match_length, match_id_info(mid).jacoby) == (0, False)
    record = await service.storage.get_game(game_id)
    match = Match.from_dict(record.match)
    events = [e.data for e in await service.storage.events(game_id) if e.type == "core"]
    got = gnubg_results(data.decode(), ("set jacoby off",))
    assert got["length"] == 0
    result = match.results[0]
    cube = cube_actions(events)
    assert cube  # the test's presses doubled
    assert got["games"] == [{"winner": result.winner, "points": result.points, "cube": cube}]


async def test_the_analysis_of_a_one_game_contest_is_of_money_play(env, monkeypatch):
    """``/analyse`` analyses the game on the terms its file gives it, so the analysed file
    and ``python -m core analyse`` of it agree."""
    service, _ = env
    views = await play_out(service, await start_game(service), double_every=9)
    game_id = board(views).game_id
    record = await service.storage.get_game(game_id)
    events = [e.data for e in await service.storage.events(game_id) if e.type == "core"]
    flat = functools.partial(analyse_match, evaluator=FlatEvaluator())
    monkeypatch.setattr(analysis_module, "analyse_match", flat)
    files = analysis_module.analyse_record(record, events, analysis_module.labels("en"))
    assert (files.analysis.length, files.analysis.games) == (0, 1)
    assert files.mat.startswith('; [Jacoby "Off"]\n')
    assert parse_mat(files.mat).length == 0


def test_each_contest_is_written_on_its_own_terms():
    from core.export import contest_terms  # new with this test

    tavla, turkish = variant_by_name("tavla"), variant_by_name("turkish")
    assert contest_terms(Match(tavla, length=1)) == (0, False)  # one game: money play
    assert contest_terms(Match(tavla, length=3)) == (3, False)
    assert contest_terms(Match(tavla, length=0, jacoby=True)) == (0, True)
    assert contest_terms(Match(turkish, length=1)) == (1, False)  # no cube: nothing changes
    history = one_game(7, 0).game.history
    text = export_games(["a", "b"], 0, [history], jacoby=True)
    assert text.startswith('; [Jacoby "On"]\n 0 point match\n')
    assert parse_mat(text).jacoby is True
    assert export_games(["a", "b"], 3, [history]).startswith(" 3 point match\n")
