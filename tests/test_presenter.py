"""The caption's account of the plays: what happened since the player to act last chose."""

from __future__ import annotations

from bot.i18n import translate
from bot.service import presenter
from bot.service.presenter import action_line, recent_play_lines
from core.dice import FixedDice
from core.game import Game, Phase, ResultKind, ResultReason
from core.position import side_from_points
from core.variants import variant_by_name

NAMES = ["Ali", "Veli"]


def told(game: Game) -> list[str]:
    return [translate(line, "en") for line in recent_play_lines(game, NAMES)]


def test_only_moves_made_for_both_sides_are_all_told() -> None:
    """U-2 and U-5: Veli wins the opening and his 6-6 is played 24/18(2) for him; Ali's
    6-6 too. Veli, to roll, is told both, oldest first."""
    game = Game.new(variant_by_name("uzun"), FixedDice([2, 5]))
    game.roll(1, FixedDice([(6, 6)]))
    game.roll(0, FixedDice([(6, 6)]))
    assert (game.awaiting, game.phase) == (1, Phase.ROLL)
    assert told(game) == [
        "Veli rolled 6-6: the only move, 24/18(2), was made.",
        "Ali rolled 6-6: the only move, 24/18(2), was made.",
    ]


def test_a_player_who_chose_a_move_is_told_only_the_answer() -> None:
    game = Game.new(variant_by_name("tavla"), FixedDice([]), opening="winner_rolls", starter=0)
    game.roll(0, FixedDice([(5, 2)]))
    game.play(0, game.legal_plays()[0])
    game.roll(1, FixedDice([(1, 4)]))
    # Dice names: a mixed roll is named, and here written, the larger die first.
    assert translate(action_line(game, NAMES), "en").startswith(
        "Veli to play 4-1 (cihar yek). Dice left: 4 1"
    )
    game.play(1, game.legal_plays()[0])
    assert game.awaiting == 0
    assert told(game) == [f"Veli played 4-1: {game.history[-1]['play']}"]


def test_a_roll_that_could_not_be_played_is_told_before_the_answer() -> None:
    """T-5 common ground: Ali, on the bar against a closed board, cannot move with 6-6."""
    tavla = variant_by_name("tavla")
    ali = side_from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 2}, bar=1)
    veli = side_from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 24: 1})
    game = Game(tavla, [ali, veli], phase=Phase.ROLL, turn=0)
    game.roll(0, FixedDice([(6, 6)]))
    game.roll(1, FixedDice([(2, 1)]))
    game.play(1, game.legal_plays()[0])
    assert game.awaiting == 0
    lines = told(game)
    assert lines[0] == "Ali rolled 6-6 and cannot move."
    assert lines[1].startswith("Veli played 2-1: ")
    assert len(lines) == 2


def test_the_account_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(presenter, "MOST_PLAYS_TOLD", 1)
    game = Game.new(variant_by_name("uzun"), FixedDice([2, 5]))
    game.roll(1, FixedDice([(6, 6)]))
    game.roll(0, FixedDice([(6, 6)]))
    assert told(game) == ["Ali rolled 6-6: the only move, 24/18(2), was made."]


def test_a_double_taken_is_told_to_the_doubler() -> None:
    """T-8: Ali doubles, Veli takes; Ali, to roll, reads that the cube is at 2 (not again
    Veli's play, which he saw before doubling)."""
    game = Game.new(variant_by_name("tavla"), FixedDice([]), opening="winner_rolls", starter=0)
    game.roll(0, FixedDice([(5, 2)]))
    game.play(0, game.legal_plays()[0])
    game.roll(1, FixedDice([(4, 1)]))
    game.play(1, game.legal_plays()[0])
    game.double(0)
    asked = told(game)  # Veli, asked to take, still reads his own last play
    assert len(asked) == 1
    assert asked[0].startswith("Veli played 4-1: ")
    game.take(1)
    assert (game.awaiting, game.phase) == (0, Phase.ROLL)
    assert told(game) == ["Veli took the double: the cube is at 2."]


def _tavla_on_roll() -> Game:
    game = Game.new(variant_by_name("tavla"), FixedDice([]), opening="winner_rolls", starter=0)
    assert (game.awaiting, game.phase) == (0, Phase.ROLL)
    return game


def test_a_resignation_is_told_with_who_resigned_what() -> None:
    """T-9: the caption of a game ended by resignation says who resigned and what."""
    game = _tavla_on_roll()
    game.resign(0, ResultKind.GAMMON)
    game.accept_resign(1)
    assert translate(action_line(game, NAMES), "en") == (
        "Ali resigned a gammon (mars): Veli wins 2 points."
    )
    assert presenter.shown_seat(game) == 1  # Veli accepted, seeing his own side


def test_a_passed_double_and_a_timeout_are_told_as_such() -> None:
    """T-8: a refused double ends the game at the cube's value, told as a pass."""
    game = _tavla_on_roll()
    game.double(0)
    game.drop(1)
    assert translate(action_line(game, NAMES), "en") == (
        "Veli passed the double: Ali wins 1 point."
    )
    late = _tavla_on_roll()
    late.forfeit(0, ResultReason.TIMEOUT)
    assert translate(action_line(late, NAMES), "en") == (
        "Ali ran out of time: Veli wins a single game: 1 point."
    )


def test_a_finished_board_keeps_the_person_s_side_against_the_computer() -> None:
    game = _tavla_on_roll()
    game.resign(0, ResultKind.SINGLE)
    game.accept_resign(1)
    assert presenter.shown_seat(game, computer=1) == 0
    assert presenter.shown_seat(game) == 1


def test_the_computers_double_is_shown_from_the_persons_side() -> None:
    """T-8: against the computer, the board the person answers a double on is drawn from
    their own side (it is the computer's turn, but the person decides)."""
    game = Game.new(variant_by_name("tavla"), FixedDice([]), opening="winner_rolls", starter=1)
    game.double(1)
    assert (game.awaiting, game.phase) == (0, Phase.DOUBLED)
    assert presenter.shown_seat(game, computer=1) == 0
    assert presenter.shown_seat(game) == 1  # two people: the doubler's turn, as before
