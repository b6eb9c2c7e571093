"""What the bot does by itself for a player: the presses that offer no choice.

Rolling is the only thing a player can do when the variant has no cube, in the Crawford
game, when the opponent owns the cube or it is at 64 (T-8, M-2): the bot rolls for them, in
the same action as the move before, so nobody waits for a press that decides nothing. A
player may also ask to roll even when they could double (``auto_roll``, as FIBS's autoroll).

A finished move is confirmed by itself, by default, when the opponent must then press Roll
or Double anyway (``auto_confirm`` "undoable"): the mover keeps an Undo until that press, so
they may still change their mind, and the turn costs one chat message less. Where the
opponent would act at once (the computer, a roll made by itself, the game's last move) the
mover's Confirm is the only chance to change their mind, so it stays.

In a chat that cannot keep up with its platform's limits (:data:`BUSY`) every message
counts: the bot also rolls for a player who could double (a player who wants the chance
asks, once a game, to roll themselves: ``ContestSettings.own_rolls``), and a finished move
is handed over at once (it stays undoable while the opponent must press Roll or Double).
Each turn then costs the chat one board, the one that shows the player their dice and asks
them to move.

Nothing here decides a rule: whether doubling is allowed comes from :class:`core.game.Game`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextvars import ContextVar

from bot.storage.base import PlayerPrefs
from core.dice import DiceSource
from core.game import Game, Phase
from core.position import CHECKERS, OFF

#: A bound on the actions made in one go (passes back and forth while both are closed out
#: end long before this).
MAX_AUTOMATIC = 200

#: Set while the service answers a press in a chat that cannot keep up with its platform's
#: limits (the adapter says so: ``GameService.press(busy=True)``).
BUSY: ContextVar[bool] = ContextVar("tavla_busy_chat", default=False)


def must_roll(game: Game, seat: int, prefs: PlayerPrefs, *, busy: bool = False) -> bool:
    """Whether ``seat``, on roll, gets its dice rolled by the bot (``busy``: in a busy
    chat, where the player did not ask to roll themselves)."""
    return (
        game.phase is Phase.ROLL
        and not game.over
        and game.turn == seat
        and game.resign_offer is None
        and (prefs.auto_roll or busy or not game.may_double(seat))
    )


def confirms_by_itself(
    game: Game,
    seat: int,
    prefs: Sequence[PlayerPrefs],
    humans: Collection[int],
    *,
    busy: bool = False,
) -> bool:
    """Whether ``seat``'s finished move is confirmed without a Confirm press (``busy``: in a
    busy chat, where a Confirm would cost a message of its own)."""
    turn = game.current_turn
    if (
        game.phase is not Phase.MOVE
        or turn is None
        or not turn.done
        or not turn.complete
        or game.resign_offer is not None
    ):
        return False
    mode = prefs[seat].auto_confirm
    if mode != "undoable":
        return mode == "always"
    if busy:
        return True
    opponent = 1 - seat
    # The move stays undoable only if the game then waits for the opponent's own press.
    return (
        opponent in humans
        and turn.position.mover[OFF] < CHECKERS
        and game.cube_open_to(opponent)
        and not prefs[opponent].auto_roll
    )


def play_automatic(
    game: Game,
    dice: DiceSource,
    prefs: Sequence[PlayerPrefs],
    humans: Collection[int],
    *,
    busy: bool = False,
    own_rolls: Collection[int] = (),
) -> bool:
    """Make every automatic action that is due for the seats in ``humans``; True if any.
    ``busy``: the chat is busy (:data:`BUSY`); ``own_rolls``: seats that roll themselves
    all the same.

    A roll that cannot be played, or has only one play, is passed or played by core
    itself (T-5, the common ground), so one call can run several turns."""
    acted = False
    for _ in range(MAX_AUTOMATIC):
        if game.over or game.resign_offer is not None:
            break
        seat = game.awaiting
        if seat not in humans:
            break
        if must_roll(game, seat, prefs[seat], busy=busy and seat not in own_rolls):
            game.roll(seat, dice)
        elif confirms_by_itself(game, seat, prefs, humans, busy=busy):
            game.confirm(seat, undoable=True)
        else:
            break
        acted = True
    return acted
