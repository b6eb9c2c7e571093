"""Legal plays: every distinct way to play a roll, under the rules of each variant.

The generator is a depth-first search over single-die steps on two mutable lists (the
mover's and the opponent's slots), undoing each step on the way back, so no board is copied
until a new final position is found. Final positions are told apart by an integer key that is
updated with each step (each slot is a 4-bit digit of it), which is exact and far cheaper than
building tuples for every leaf.

The rules applied (rules.md): the maximum-dice rule and the larger die (common ground, U-7),
entering from the bar (T-5), landing and hitting (T-3, T-4, U-3), bearing off (T-6, U-8), the
head rule with its first-turn exception (U-4, U-5) and the six-block rule checked after every
step (U-6, with ``block_needs_home``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .position import BAR, HEAD, OFF, Position
from .variants import Variant

# Weight of slot i of the mover (i) and of the opponent (26 + i) in a position key.
_WEIGHT = tuple(16**i for i in range(52))
_OPP_BAR_WEIGHT = _WEIGHT[26 + BAR]


class Step(NamedTuple):
    """One die's move of one checker, in the mover's numbering (25 = bar, 0 = off)."""

    source: int
    dest: int
    hit: bool = False

    @property
    def distance(self) -> int:
        """How many pips the step covers (a bear-off may use a larger die than this)."""
        return self.source - self.dest


class Play(NamedTuple):
    """A whole turn's move: its steps in the order made, and the board after it.

    ``after`` is still seen from the player who moved (they remain ``mover``).
    """

    steps: tuple[Step, ...]
    after: Position
    dice: tuple[int, ...]

    def __str__(self) -> str:
        from .notation import format_play

        return format_play(self)


def legal_plays(
    variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool = False
) -> list[Play]:
    """Every legal play for the player on roll, one per distinct resulting board.

    ``first_turn`` marks the mover's first turn of the game (the head exception, U-5).
    An empty list means the roll cannot be played at all (the turn passes). A list with a
    single empty play never occurs.
    """
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"dice must be 1..6, got {dice}")
    gen = MoveGenerator(variant, position)
    if not variant.head_rule:
        return gen.run(a, b, head_limit=15)
    plays = gen.run(a, b, head_limit=1)
    if first_turn:
        # U-5: a second checker may leave the head only if that plays more of the roll.
        wider = gen.run(a, b, head_limit=2)
        if wider and (not plays or len(wider[0].steps) > len(plays[0].steps)):
            return wider
    return plays


class MoveGenerator:
    """Single-die steps on one position, made and undone in place; :meth:`run` answers a roll.

    Besides :func:`legal_plays`, :class:`core.turn.Turn` uses it to walk a roll step by step:
    :meth:`steps` lists the steps one die allows on the current board, :meth:`push` makes one
    and :meth:`pop` undoes it. ``own`` and ``opp`` are the current slots of the mover and the
    opponent (each in its own numbering, read them but change them only through
    :meth:`push`/:meth:`pop`); ``outside`` counts the mover's checkers outside their home
    board, ``head_left`` the checkers that left the head in this turn, at most ``head_limit``.
    """

    own: list[int]
    opp: list[int]
    #: The dice in the order the search uses them (four for doubles).
    dice: tuple[int, ...]
    outside: int
    head_left: int
    head_limit: int

    def __init__(self, variant: Variant, position: Position, head_limit: int = 15) -> None:
        self.variant = variant
        self.position = position
        self.opposite = variant.opposite
        self.hitting = variant.hitting
        self.block_rule = variant.block_rule
        self.needs_home = getattr(variant, "block_needs_home", False)
        mover, opponent = position
        self.base_key = sum(n * w for n, w in zip(mover, _WEIGHT, strict=False)) + sum(
            n * w for n, w in zip(opponent, _WEIGHT[26:], strict=False)
        )
        # U-6: the lowest point (opponent's numbering) where an opposing checker stands;
        # 0 once one has been borne off. The opponent does not move during our turn.
        lowest = 25
        if opponent[OFF]:
            lowest = 0
        else:
            for q in range(1, 25):
                if opponent[q]:
                    lowest = q
                    break
        self.opp_lowest = lowest
        self.reset(head_limit)

    @property
    def board(self) -> Position:
        """The position after the steps made so far (still seen from the mover)."""
        return Position(tuple(self.own), tuple(self.opp))

    @property
    def head_closed(self) -> bool:
        """Whether no more checkers may leave the head this turn (U-4)."""
        return self.head_left >= self.head_limit

    def reset(self, head_limit: int) -> None:
        """Put the boards back to the position, with no step made."""
        self.own = list(self.position.mover)
        self.opp = list(self.position.opponent)
        self.head_limit = head_limit
        self.head_left = 0
        self.block_refused = False
        self.outside = sum(self.own[7:26])

    def run(self, a: int, b: int, head_limit: int) -> list[Play]:
        """The legal plays of roll ``a``-``b`` with at most ``head_limit`` head checkers."""
        self.reset(head_limit)
        self.found: dict[int, Play] = {}
        self.best = 0
        self.path: list[Step] = []
        if a == b:
            self.dice = (a, a, a, a)
            self._search(0, self.base_key, BAR)
            if self.block_refused:
                # Ordering steps by falling source is complete unless the six-block rule
                # refused a step: then another order may avoid the block, so search all.
                self.found.clear()
                self.best = 0
                self._search(0, self.base_key, -1)
        else:
            # The larger die first, so that a board reached by either die alone is
            # recorded as played with the larger one (the larger-die rule below).
            hi, lo = max(a, b), min(a, b)
            self.dice = (hi, lo)
            self._search(0, self.base_key, -1)
            self.dice = (lo, hi)
            self._search(0, self.base_key, -1)
        plays = [p for p in self.found.values() if len(p.steps) == self.best]
        if self.best == 1 and a != b:
            # Only one die can be played: the larger one, if it can (common ground).
            larger = [p for p in plays if p.dice[0] == max(a, b)]
            if larger:
                plays = larger
        return plays

    def _search(self, depth: int, key: int, max_source: int) -> None:
        """Try every step for die ``depth``; ``max_source`` >= 0 orders steps (doubles)."""
        dice = self.dice
        if depth == len(dice):
            self._leaf(key, depth)
            return
        moved = False
        for step in self.steps(dice[depth], max_source if max_source >= 0 else BAR):
            moved = True
            key2 = self.push(step, key)
            self.path.append(step)
            self._search(depth + 1, key2, step.source if max_source >= 0 else -1)
            self.path.pop()
            self.pop(step)
        if not moved and depth:
            self._leaf(key, depth)

    def steps(
        self, die: int, max_source: int = BAR, *, block_rule: bool | None = None
    ) -> Iterator[Step]:
        """The single steps die ``die`` allows now, from points no higher than ``max_source``.

        ``block_rule=False`` ignores the six-block rule (U-6), to tell whether it is the rule
        that refuses a step.
        """
        own = self.own
        check_block = self.block_rule if block_rule is None else block_rule
        if own[BAR]:
            dest = BAR - die
            hit = self._landing(dest)
            if hit is not None:
                yield Step(BAR, dest, hit)
            return
        for source in range(min(max_source, 24), 0, -1):
            if not own[source]:
                continue
            dest = source - die
            if dest > 0:
                if source == HEAD and self.head_left >= self.head_limit:
                    continue
                hit = self._landing(dest)
                if hit is None:
                    continue
                if check_block and not own[dest]:
                    # Judge the board after the step: its source may leave the run.
                    own[source] -= 1
                    blocked = self._forms_block(dest)
                    own[source] += 1
                    if blocked:
                        self.block_refused = True
                        continue
                yield Step(source, dest, hit)
            elif self._may_bear_off(source, dest):
                yield Step(source, OFF, False)

    def push(self, step: Step, key: int = 0) -> int:
        """Make ``step`` on the boards; returns the position key after it."""
        source, dest, hit = step
        own = self.own
        own[source] -= 1
        own[dest] += 1
        key += _WEIGHT[dest] - _WEIGHT[source]
        self.outside -= (source > 6) - (dest > 6)
        self.head_left += source == HEAD
        if hit:
            q = self.opposite[dest]
            opp = self.opp
            opp[q] -= 1
            opp[BAR] += 1
            key += _OPP_BAR_WEIGHT - _WEIGHT[26 + q]
        return key

    def pop(self, step: Step) -> None:
        """Undo :meth:`push` of the same step."""
        source, dest, hit = step
        if hit:
            q = self.opposite[dest]
            opp = self.opp
            opp[q] += 1
            opp[BAR] -= 1
        self.head_left -= source == HEAD
        self.outside += (source > 6) - (dest > 6)
        own = self.own
        own[dest] -= 1
        own[source] += 1

    def _leaf(self, key: int, used: int) -> None:
        if used < self.best:
            return
        if used > self.best:
            # Shorter plays are illegal now; one of them may have reached this very board
            # (3/off before 3/2/off with 3-1), so forget them rather than keep their steps.
            self.best = used
            self.found.clear()
        if key not in self.found:
            self.found[key] = Play(
                tuple(self.path),
                Position(tuple(self.own), tuple(self.opp)),
                self.dice[:used],
            )

    def _landing(self, dest: int) -> bool | None:
        """None if ``dest`` is closed to the mover, else whether landing there hits (T-3)."""
        n = self.opp[self.opposite[dest]]
        if n == 0:
            return False
        if n == 1 and self.hitting:
            return True
        return None

    def _may_bear_off(self, source: int, dest: int) -> bool:
        """T-6: all checkers home; a larger die only from the highest occupied point."""
        if self.outside:
            return False
        if dest == 0:
            return True
        own = self.own
        return not any(own[p] for p in range(source + 1, 7))

    def _forms_block(self, dest: int) -> bool:
        """U-6: would a checker newly on ``dest`` make a forbidden block of six?"""
        return forms_block(self.own, dest, self.opp_lowest, self.opposite, self.needs_home)


def forms_block(
    own: Sequence[int], dest: int, opp_lowest: int, opposite: Sequence[int], needs_home: bool
) -> bool:
    """U-6: would a checker newly on ``dest`` of ``own`` make a forbidden block of six?

    ``opp_lowest`` is the opponent's lowest occupied point in its own numbering (0 once it
    has borne off a checker); ``opposite`` maps the mover's points to the opponent's.
    :mod:`core.boards_compiled` compiles this same function (NumPy arrays for the lists)."""
    # A run may not join the mover's 12 and 13: they are the opponent's 24 and 1.
    lo_limit, hi_limit = (13, 24) if dest >= 13 else (1, 12)
    lo = dest
    while lo > lo_limit and own[lo - 1]:
        lo -= 1
    hi = dest
    while hi < hi_limit and own[hi + 1]:
        hi += 1
    if hi - lo + 1 < 6:
        return False
    # The run's lowest point in the opponent's numbering is the image of its lowest.
    passed = opp_lowest < opposite[lo]
    if needs_home:
        passed = passed and opp_lowest <= 6
    return not passed


def can_play(variant: Variant, position: Position, dice: tuple[int, int]) -> bool:
    """Whether any part of the roll can be played."""
    return bool(legal_plays(variant, position, dice))
