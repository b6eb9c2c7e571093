"""The guided first game (``/learn``): the moments a new player meets for the first time.

A game is watched from the learner's seat; :func:`moments` names what has come up since
the last look and was not explained yet: a hit either way (T-4), a checker on the bar and a
roll that could not enter (T-5, a "dance"), a roll that could not be played at all, five
points in a row in Uzun Tavla (U-6), every checker home (T-6, U-8), the first checker borne
off on either side (T-7, U-9), and what the game waits for from the learner now (to roll or
double, to take or pass, to move). Pure: read from the game's history and position.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import NamedTuple

from core.events import EventType
from core.game import Game, Phase
from core.position import BAR, CHECKERS, OFF

#: The learner hit an opposing checker (T-4).
HIT = "hit"
#: The learner's checker was hit and waits on the bar (T-4, T-5).
HIT_YOU = "hit_you"
#: The learner rolled and could not enter from the bar (T-5), or the opponent could not.
DANCE = "dance"
DANCE_THEM = "dance_them"
#: A roll that could not be played at all, with no checker on the bar (either side).
STUCK = "stuck"
#: The learner's first checker borne off; the opponent's first while the learner has none.
OFF_YOU = "off"
OFF_THEM = "off_them"
#: Uzun Tavla: the learner holds five points in a row, one short of a block (U-6).
BLOCK = "block"
#: Every checker of the learner's home: bearing off starts (T-6, U-8).
HOME = "home"
#: What the game waits for from the learner: roll or double (T-8), take or pass, move.
ROLL = "roll"
DOUBLED = "doubled"
MOVE = "move"
#: The game is over.
END = "end"

#: The order the moments are told in: what happened, where things stand, what to do now.
#: Being home comes before the first checker off: one turn may do both, and the bear-off is
#: explained before what it led to.
ORDER = (HIT, HIT_YOU, DANCE, DANCE_THEM, STUCK, HOME, OFF_YOU, OFF_THEM, BLOCK)
NOW = (DOUBLED, ROLL, MOVE)


class Moment(NamedTuple):
    """One thing to explain: its topic, whose it was (a seat), the roll it was made with
    and the point it happened on (in the learner's numbering), where they matter."""

    topic: str
    seat: int | None = None
    dice: tuple[int, int] | None = None
    point: int | None = None


def _longest_run(side: list[int] | tuple[int, ...]) -> int:
    """The most points in a row one side holds, counted within 1–12 and within 13–24 (a
    block may not join the mover's 12 and 13, U-6)."""
    best = 0
    for low, high in ((1, 12), (13, 24)):
        run = 0
        for point in range(low, high + 1):
            run = run + 1 if side[point] else 0
            best = max(best, run)
    return best


def _history_moments(game: Game, learner: int) -> Iterator[Moment]:
    """What happened: hits, dances, rolls that could not be played, first bear-offs. The
    checkers on the bar and borne off are counted from the plays' steps (a game starts
    with none of either)."""
    dice: dict[int, tuple[int, int]] = {}
    bar, off = [0, 0], [0, 0]
    for event in game.history:
        kind = event["type"]
        if kind not in (EventType.ROLL, EventType.PASS, EventType.PLAY):
            continue
        seat = int(event["seat"])
        if kind == EventType.ROLL:
            a, b = sorted(event["dice"], reverse=True)
            dice[seat] = (a, b)
        elif kind == EventType.PASS:
            if bar[seat]:
                yield Moment(DANCE if seat == learner else DANCE_THEM, seat, dice.get(seat))
            else:
                yield Moment(STUCK, seat, dice.get(seat))
        elif kind == EventType.PLAY:
            for source, dest, hit, *_ in event["steps"]:
                bar[seat] -= source == BAR
                if hit:
                    bar[1 - seat] += 1
                    mine = seat == learner
                    point = dest if mine else game.variant.opposite[dest]
                    yield Moment(HIT if mine else HIT_YOU, seat, dice.get(seat), point)
                if dest == OFF:
                    if seat == learner:
                        yield Moment(OFF_YOU, seat)
                    elif off[learner] == 0:
                        yield Moment(OFF_THEM, seat)
                    off[seat] += 1


def _state_moments(game: Game, learner: int) -> Iterator[Moment]:
    """Where things stand for the learner, and what the game waits for from them."""
    if game.over:
        yield Moment(END)
        return
    side = game.sides[learner]
    if game.variant.block_rule and _longest_run(side) >= 5:
        yield Moment(BLOCK, learner)
    if side[OFF] < CHECKERS and sum(side[7:BAR]) + side[BAR] == 0:
        yield Moment(HOME, learner)
    if game.awaiting != learner or game.resign_offer is not None:
        return
    if game.phase is Phase.DOUBLED:
        yield Moment(DOUBLED, 1 - learner)
    elif game.phase is Phase.ROLL and game.may_double(learner):
        yield Moment(ROLL, learner)
    elif game.phase is Phase.MOVE and game.dice is not None and len(game.legal_plays()) > 1:
        a, b = sorted(game.dice, reverse=True)
        yield Moment(MOVE, learner, (a, b))


def moments(game: Game, learner: int, taught: Collection[str] = ()) -> list[Moment]:
    """The moments of ``game`` not yet explained to the player at seat ``learner`` (topics
    in ``taught`` were), the first of each topic, in the order they are best told."""
    found: dict[str, Moment] = {}
    for moment in (*_history_moments(game, learner), *_state_moments(game, learner)):
        if moment.topic not in taught and moment.topic not in found:
            found[moment.topic] = moment
    order = (*ORDER, *NOW, END)
    return sorted(found.values(), key=lambda m: order.index(m.topic))
