"""The buttons of a turn being played, and what pressing one does: few presses per turn.

A turn is entered with as few presses as the position allows:

* when the rest of the turn can be finished in only a few distinct ways, each way is one
  button (``bar/22 13/8``): one press plays it;
* otherwise, when the checkers' moves fit on the keyboard, each move of one checker is a
  button, including a checker's run over several dice (``13/7``, ``13/2``, ``6/off``);
* otherwise the player picks a checker first and then one of its moves; a checker with one
  move only is moved at once;
* after every press, a rest of the turn that can be played in one way only is made for the
  player (Confirm still follows: the player may take the whole turn back until then).

Every button makes steps through :class:`core.turn.Turn`, so nothing here decides a rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import t
from core.game import Game
from core.notation import format_steps
from core.position import BAR
from core.turn import DoneStep, Turn

from . import actions as A
from .views import Button


@dataclass(frozen=True)
class KeypadLimits:
    """How many whole plays, and how many checker moves, one keyboard shows at most."""

    plays: int = 12
    moves: int = 30
    #: Buttons in a row of checker moves (short labels) and of whole plays (longer ones).
    moves_per_row: int = 5
    plays_per_row: int = 3


#: Discord shows at most 5 rows of 5 buttons: four rows of moves leave one for Undo/Confirm.
DISCORD_LIMITS = KeypadLimits(plays=12, moves=20, moves_per_row=5, plays_per_row=3)
DEFAULT_LIMITS = KeypadLimits()


def encode_steps(steps: Sequence[DoneStep]) -> str:
    """A MOVE button's argument: ``13-7.7-2`` (source-dest pairs in the order made)."""
    return ".".join(f"{s.source}-{s.dest}" for s, _ in steps)


def decode_steps(arg: str) -> list[tuple[int, int]]:
    """The (source, dest) pairs of a MOVE button's argument (checked by actions.decode)."""
    pairs = []
    for part in arg.split("."):
        a, _, b = part.partition("-")
        pairs.append((int(a), int(b)))
    return pairs


def _label(steps: Sequence[DoneStep], dice: Sequence[int]) -> str:
    return format_steps(((s.source, s.dest, s.hit) for s, _ in steps), dice)


def _rows(buttons: list[Button], per_row: int) -> list[list[Button]]:
    return [buttons[i : i + per_row] for i in range(0, len(buttons), per_row)]


def _order(steps: Sequence[DoneStep]) -> tuple[tuple[int, int], ...]:
    # Highest points first, as the notation writes a play.
    return tuple(sorted(((-s.source, -s.dest) for s, _ in steps)))


def move_rows(
    game_id: int,
    version: int,
    turn: Turn,
    selected: int | None = None,
    limits: KeypadLimits = DEFAULT_LIMITS,
) -> list[list[Button]]:
    """The rows of buttons that make steps of ``turn`` (without Undo/Confirm)."""
    dice = turn.all_dice

    def button(steps: Sequence[DoneStep]) -> Button:
        return Button(_label(steps, dice), A.encode(game_id, version, A.MOVE, encode_steps(steps)))

    legal = turn.legal_steps()
    if not legal:
        return []
    if selected is not None:
        moves = sorted(turn.checker_moves(selected), key=_order)
        if moves:
            rows = _rows([button(m) for m in moves], limits.moves_per_row)
            return [*rows, [Button(t("◀ Back"), A.encode(game_id, version, A.BACK))]]
    plays = turn.completions(limit=limits.plays)
    if plays is not None:
        plays = sorted(plays, key=_order)
        per_row = limits.plays_per_row if len(plays) > 2 else 2
        return _rows([button(p) for p in plays], per_row)
    sources = sorted({s.source for s, _ in legal}, reverse=True)
    moves = [m for source in sources for m in sorted(turn.checker_moves(source), key=_order)]
    if len(moves) <= limits.moves:
        return _rows([button(m) for m in moves], limits.moves_per_row)
    labels = [(p, "bar" if p == BAR else str(p)) for p in sources]
    return _rows([Button(label, A.encode(game_id, version, A.SELECT, p)) for p, label in labels], 6)


def make_steps(game: Game, seat: int, pairs: Sequence[tuple[int, int]]) -> None:
    """Make a MOVE button's steps for ``seat``, then the rest of the turn when only one way
    is left. Raises core's errors when it is not the seat's move or a step is illegal; a
    refused press changes nothing."""
    first, *rest = pairs
    game.step(seat, *first)  # checks the seat and the phase
    turn = game.current_turn
    assert turn is not None
    try:
        make_steps_on_turn(turn, rest)
    except Exception:
        turn.undo()
        raise


def make_steps_on_turn(turn: Turn, pairs: Sequence[tuple[int, int]]) -> None:
    """Make ``pairs`` on ``turn`` (all or none), then a forced rest of the turn."""
    made = 0
    try:
        for pair in pairs:
            turn.step(pair)
            made += 1
    except Exception:
        for _ in range(made):
            turn.undo()
        raise
    finish_forced(turn)


def finish_forced(turn: Turn) -> bool:
    """Make the rest of the turn if it can be played in one way only; True if any step was
    made this way."""
    rest = turn.completions(limit=1)
    if not rest or not rest[0] or turn.complete:
        return False
    for step, die in rest[0]:
        turn.step((step.source, step.dest), die)
    return True


def select(turn: Turn, point: int) -> list[DoneStep] | None:
    """What picking the checker on ``point`` does: its only move (to be made at once), or
    None when it has several (the keyboard then shows them)."""
    moves = turn.checker_moves(point)
    return moves[0] if len(moves) == 1 else None
