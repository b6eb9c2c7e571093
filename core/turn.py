"""One player's turn with a roll: playing it whole, step by step, or from typed notation.

A :class:`Turn` knows every legal play of its roll (from :mod:`core.movegen`) and lets the
player reach one of them one step at a time, with undo. Only steps that still lead to a legal
play are offered or accepted, so a half-played turn can never get stuck.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .errors import AmbiguousPlayError, ErrorCode, IllegalPlayError
from .movegen import MoveGenerator, Play, Step, legal_plays
from .notation import Leg, format_steps, parse_legs, point_name
from .position import BAR, HEAD, OFF, SLOTS, Position
from .variants import Variant

DoneStep = tuple[Step, int]
_WalkKey = tuple[str, bytes, int | None]
#: A board as a short key: each slot's count one byte, the mover's slots then the opponent's;
#: a state is a board followed by the dice left.
_BOARD = 2 * SLOTS


def _board_key(position: Position) -> bytes:
    return bytes(position.mover) + bytes(position.opponent)


class _Roll:
    """What one roll allows from one position, shared by every :class:`Turn` of it.

    A chat bot rebuilds the turn of a game for every button press and walks its steps again
    for every keyboard, so the legal plays and the answers of the step search are kept here,
    filled in as turns ask (pure memoisation: every answer depends only on the board reached
    and the dice left, the state that the keys hold).
    """

    __slots__ = (
        "best",
        "final_boards",
        "finals",
        "finish",
        "head_limit",
        "plays",
        "steps",
        "walks",
    )

    def __init__(
        self, variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool
    ) -> None:
        self.plays: tuple[Play, ...] = tuple(legal_plays(variant, position, dice, first_turn))
        self.best = len(self.plays[0].steps) if self.plays else 0
        self.finals: dict[Position, Play] = {play.after: play for play in self.plays}
        self.final_boards = frozenset(_board_key(board) for board in self.finals)
        head_limit = 15
        if variant.head_rule:
            head_limit = max(
                (sum(s.source == HEAD for s in p.steps) for p in self.plays), default=1
            )
            head_limit = max(head_limit, 1)
        self.head_limit = head_limit
        #: state (dice left in rising order) -> can the turn still end in a legal play.
        self.finish: dict[bytes, bool] = {}
        #: state -> the legal steps from there (:meth:`Turn.legal_steps`).
        self.steps: dict[bytes, tuple[DoneStep, ...]] = {}
        #: (what was walked, state, its argument) -> the walk's answer.
        self.walks: dict[_WalkKey, Any] = {}


_UNKNOWN = object()

#: Rolls kept, the least recently used forgotten first: the turns under way in a thousand
#: games between two presses on one of them, in about 25 MB (mostly the legal plays).
ROLLS_KEPT = 1024


@lru_cache(maxsize=ROLLS_KEPT)
def _roll(variant: Variant, position: Position, dice: tuple[int, int], first_turn: bool) -> _Roll:
    return _Roll(variant, position, dice, first_turn)


class Turn:
    """The play of one roll by the player on roll of ``position``."""

    def __init__(
        self,
        variant: Variant,
        position: Position,
        dice: tuple[int, int],
        first_turn: bool = False,
    ) -> None:
        self.variant = variant
        self.start = position
        self.dice = dice
        self.first_turn = first_turn
        roll = _roll(variant, position, (dice[0], dice[1]), bool(first_turn))
        self._roll = roll
        self.plays: list[Play] = list(roll.plays)
        self.best = roll.best
        self.finals = roll.finals
        self._gen = MoveGenerator(variant, position, roll.head_limit)
        self.done: list[DoneStep] = []

    # -- state ---------------------------------------------------------------------------

    @property
    def all_dice(self) -> tuple[int, ...]:
        a, b = self.dice
        return (a, a, a, a) if a == b else (a, b)

    @property
    def remaining_dice(self) -> list[int]:
        """The dice not used yet, largest first."""
        left = list(self.all_dice)
        for _, die in self.done:
            left.remove(die)
        left.sort(reverse=True)
        return left

    @property
    def position(self) -> Position:
        """The board as it stands after the steps made so far."""
        return self._gen.board

    @property
    def can_move(self) -> bool:
        """False when the roll cannot be played at all (the turn passes)."""
        return bool(self.plays)

    @property
    def complete(self) -> bool:
        """True when the steps made form a whole legal play."""
        return len(self.done) == self.best and self.position in self.finals

    @property
    def forced(self) -> Play | None:
        """The only legal play, when there is exactly one (it is then made for the player)."""
        return self.plays[0] if len(self.plays) == 1 else None

    def play(self) -> Play:
        """The legal play the steps made so far amount to (the turn must be complete)."""
        if not self.complete:
            raise IllegalPlayError("The move is not finished yet", ErrorCode.PLAY_UNFINISHED)
        play = self.finals[self.position]
        # Keep the steps as the player made them (the notation shows their hits).
        return Play(tuple(s for s, _ in self.done), play.after, tuple(d for _, d in self.done))

    def notation(self) -> str:
        """The steps made so far in canonical notation."""
        return format_steps((s for s, _ in self.done), self.all_dice)

    # -- steps ---------------------------------------------------------------------------

    def legal_steps(self) -> list[DoneStep]:
        """Every (step, die) that can be made now and still leads to a legal play."""
        remaining = self.remaining_dice
        return list(self._steps_at(self._state(remaining), remaining))

    def _state(self, dice: Sequence[int]) -> bytes:
        """The current board with ``dice`` left, as a key of the kept answers."""
        gen = self._gen
        return bytes(gen.own) + bytes(gen.opp) + bytes(dice)

    def _steps_at(self, state: bytes, remaining: list[int]) -> tuple[DoneStep, ...]:
        """:meth:`legal_steps` in ``state`` (the current one, ``remaining`` dice left)."""
        known = self._roll.steps.get(state)
        if known is None:
            known = tuple(self._legal_steps(remaining))
            self._roll.steps[state] = known
        return known

    def _legal_steps(self, remaining: list[int]) -> list[DoneStep]:
        gen = self._gen
        out: list[DoneStep] = []
        seen: set[Step] = set()
        for die in sorted(set(remaining), reverse=True):
            rest = list(remaining)
            rest.remove(die)
            for step in list(gen.steps(die)):
                if step in seen:
                    continue
                gen.push(step)
                ok = self._can_finish(rest, len(self.done) + 1)
                gen.pop(step)
                if ok:
                    seen.add(step)
                    out.append((step, die))
        return out

    def why_not(self, source: int) -> IllegalPlayError | None:
        """Why the checker on ``source`` cannot move now (the rule its move with the largest
        die left breaks), or None when it can."""
        if any(step.source == source for step, _ in self.legal_steps()):
            return None
        dice = self.remaining_dice
        dest = max(source - dice[0], OFF) if dice and source != OFF else OFF
        return self._explain(Leg((source, dest), (False,)))

    def targets(self, source: int) -> list[DoneStep]:
        """The legal steps of the checker on ``source`` (for buttons and highlights)."""
        return [(s, d) for s, d in self.legal_steps() if s.source == source]

    def step(self, step: Step | tuple[int, int], die: int | None = None) -> DoneStep:
        """Make one step (``(source, dest)`` is enough); raises if it leads nowhere legal."""
        source, dest = step[0], step[1]
        for legal, legal_die in self.legal_steps():
            if legal.source == source and legal.dest == dest and die in (None, legal_die):
                self._push(legal, legal_die)
                return legal, legal_die
        raise self._explain(Leg((source, dest), (False,)))

    def undo(self) -> DoneStep | None:
        """Take back the last step of this turn, if any."""
        if not self.done:
            return None
        step, die = self.done.pop()
        self._gen.pop(step)
        return step, die

    def reset(self) -> None:
        """Take back every step of this turn."""
        while self.done:
            self.undo()

    def apply_play(self, play: Play) -> None:
        """Make a whole legal play from :attr:`plays` (e.g. one chosen by the computer)."""
        if play.after not in self.finals:
            raise IllegalPlayError("That is not a legal play", ErrorCode.ILLEGAL_PLAY)
        self.reset()
        for step, die in zip(play.steps, play.dice, strict=True):
            self._push(step, die)

    def _push(self, step: Step, die: int) -> None:
        self._gen.push(step)
        self.done.append((step, die))

    # -- shortcuts for buttons -------------------------------------------------------------

    def _walked(self, what: str, arg: int | None) -> tuple[_WalkKey, Any]:
        """The key of a walk from the turn as it stands, and its answer if known."""
        key = (what, self._state(self.remaining_dice), arg)
        return key, self._roll.walks.get(key, _UNKNOWN)

    def completions(self, limit: int | None = None) -> list[list[DoneStep]] | None:
        """Every distinct way to finish the turn from here, one per board it ends in, as the
        steps still to make; ``None`` as soon as there are more than ``limit`` of them.

        A finished turn has one completion, the empty one. Each completion is made again by
        :meth:`step` with its (source, dest) pairs in order, since both take the first legal
        die of :meth:`legal_steps`.
        """
        key, known = self._walked("completions", limit)
        if known is _UNKNOWN:
            found = self._completions(limit)
            known = None if found is None else tuple(tuple(c) for c in found)
            self._roll.walks[key] = known
        return None if known is None else [list(c) for c in known]

    def _completions(self, limit: int | None) -> list[list[DoneStep]] | None:
        final_boards = self._roll.final_boards
        found: dict[bytes, list[DoneStep]] = {}
        seen: set[bytes] = set()
        path: list[DoneStep] = []

        def walk(remaining: list[int]) -> bool:  # False once over the limit
            state = self._state(remaining)
            board = state[:_BOARD]
            if len(self.done) == self.best and board in final_boards:  # complete
                found.setdefault(board, list(path))
                return limit is None or len(found) <= limit
            if state in seen:
                return True
            seen.add(state)
            for step, die in self._steps_at(state, remaining):
                self._push(step, die)
                path.append((step, die))
                left = list(remaining)
                left.remove(die)
                ok = walk(left)
                path.pop()
                self.undo()
                if not ok:
                    return False
            return True

        return list(found.values()) if walk(self.remaining_dice) else None

    def checker_moves(self, source: int) -> list[list[DoneStep]]:
        """The distinct moves of the checker on ``source``: one die, or several dice in a row
        (``13/7/2``), each as its steps and each still leading to a legal play.

        Moves that leave the same board and the same dice are one move; moves that reach the
        same point differently (hitting on the way, or by another die) stay apart.
        """
        key, known = self._walked("checker_moves", source)
        if known is _UNKNOWN:
            known = tuple(tuple(m) for m in self._checker_moves(source))
            self._roll.walks[key] = known
        return [list(m) for m in known]

    def _checker_moves(self, source: int) -> list[list[DoneStep]]:
        found: dict[bytes, list[DoneStep]] = {}
        path: list[DoneStep] = []

        def walk(at: int, state: bytes, remaining: list[int]) -> None:
            for step, die in self._steps_at(state, remaining):
                if step.source != at:
                    continue
                self._push(step, die)
                path.append((step, die))
                left = list(remaining)
                left.remove(die)
                after = self._state(left)
                found.setdefault(after, list(path))
                if step.dest != OFF and left:
                    walk(step.dest, after, left)
                path.pop()
                self.undo()

        remaining = self.remaining_dice
        walk(source, self._state(remaining), remaining)
        return list(found.values())

    # -- typed notation ------------------------------------------------------------------

    def apply_text(self, text: str) -> list[DoneStep]:
        """Make the move written in ``text`` (whole or part of the turn) and return its steps.

        Raises :class:`NotationError`, :class:`IllegalPlayError` (with the reason as its
        code) or :class:`AmbiguousPlayError` (with the possible readings).
        """
        legs = parse_legs(text)
        if not self.remaining_dice:  # the move is made: it only waits for Confirm
            raise IllegalPlayError("All the dice have been played", ErrorCode.NO_DICE_LEFT)
        steps = self.resolve(legs)
        for step, die in steps:
            self._push(step, die)
        return steps

    def resolve(self, legs: Sequence[Leg]) -> list[DoneStep]:
        """The steps that ``legs`` mean from the current state, without making them."""
        if len(legs) > len(self.remaining_dice):
            raise IllegalPlayError(
                f"That is more moves than the dice left allow ({len(self.remaining_dice)})",
                ErrorCode.TOO_MANY_MOVES,
                dice=len(self.remaining_dice),
            )
        found: list[list[DoneStep]] = []
        self._match(legs, [(leg.source, 1) for leg in legs], [], found)
        if not found and any(any(leg.hits) for leg in legs):
            # A '*' where no blot stands is a slip of the pen, not a different move.
            plain = [Leg(leg.points, (False,) * len(leg.hits)) for leg in legs]
            self._match(plain, [(leg.source, 1) for leg in plain], [], found)
        if not found:
            raise self._explain_legs(legs)
        # Read a leg as gnubg does: one die where one die will do, and no hit on a stop
        # the writer left out (``13/6`` passes a blot on 12; ``13/12*/6`` hits it).
        written = {p for leg in legs for p in leg.points[1:]}

        def hidden_hits(cand: list[DoneStep]) -> int:
            return sum(1 for s, _ in cand if s.hit and s.dest not in written)

        fewest = min((len(c), hidden_hits(c)) for c in found)
        found = [c for c in found if (len(c), hidden_hits(c)) == fewest]
        # Same board reached with different dice: prefer exact distances, then keep the
        # larger dice for later.
        found.sort(key=lambda c: (sum(s.distance != d for s, d in c), sorted(d for _, d in c)))
        by_board: dict[Position, list[DoneStep]] = {}
        for cand in found:
            for s, _ in cand:
                self._gen.push(s)
            board = self.position
            for s, _ in reversed(cand):
                self._gen.pop(s)
            by_board.setdefault(board, cand)
        if len(by_board) > 1:
            options = [format_steps((s for s, _ in c), self.all_dice) for c in by_board.values()]
            raise AmbiguousPlayError(
                "That move can be read in more than one way: " + " or ".join(options),
                ErrorCode.AMBIGUOUS_PLAY,
                options=options,
            )
        return next(iter(by_board.values()))

    def _match(
        self,
        legs: Sequence[Leg],
        progress: list[tuple[int, int]],
        acc: list[DoneStep],
        found: list[list[DoneStep]],
    ) -> None:
        """Advance the legs' checkers die by die, in any interleaving (two checkers on the
        bar must both enter before either moves on), recording each way that ends well.

        ``progress[i]`` is where leg ``i``'s checker stands and the index of its next
        written stop (``len(points)`` once the leg is done).
        """
        if all(stop == len(leg.points) for leg, (_, stop) in zip(legs, progress, strict=True)):
            if self._can_finish(self._rest_after(acc), len(self.done) + len(acc)):
                found.append(list(acc))
            return
        gen = self._gen
        tried: set[tuple[Leg, tuple[int, int]]] = set()
        for i, leg in enumerate(legs):
            at, stop = progress[i]
            if stop == len(leg.points) or (leg, progress[i]) in tried:
                continue
            tried.add((leg, progress[i]))
            target = leg.points[stop]
            for die in sorted(set(self._rest_after(acc)), reverse=True):
                for step in list(gen.steps(die)):
                    if step.source != at:
                        continue
                    if step.dest < target or (step.dest == OFF and target != OFF):
                        continue
                    reached = step.dest == target
                    if reached and leg.hits[stop - 1] and not step.hit:
                        continue
                    gen.push(step)
                    acc.append((step, die))
                    progress[i] = (step.dest, stop + 1 if reached else stop)
                    self._match(legs, progress, acc, found)
                    progress[i] = (at, stop)
                    acc.pop()
                    gen.pop(step)

    def _rest_after(self, acc: Sequence[DoneStep]) -> list[int]:
        rest = self.remaining_dice
        for _, die in acc:
            rest.remove(die)
        return rest

    def _can_finish(self, rest: list[int], made: int) -> bool:
        """Can the current boards, with dice ``rest`` left, still end in a legal play?"""
        key = self._state(sorted(rest))
        memo = self._roll.finish
        if key in memo:
            return memo[key]
        gen = self._gen
        result = False
        moved = False
        for die in sorted(set(rest), reverse=True):
            left = list(rest)
            left.remove(die)
            for step in list(gen.steps(die)):
                moved = True
                gen.push(step)
                result = self._can_finish(left, made + 1)
                gen.pop(step)
                if result:
                    break
            if result:
                break
        if not moved:
            result = made == self.best and key[:_BOARD] in self._roll.final_boards
        memo[key] = result
        return result

    # -- explanations --------------------------------------------------------------------

    def _explain_legs(self, legs: Sequence[Leg]) -> IllegalPlayError:
        # Explain each leg after the ones before it that can be made: in ``24/18 24/19``
        # it is the second head checker that breaks a rule (U-4), not the first.
        made = 0
        try:
            for leg in legs if len(legs) > 1 else ():
                try:
                    steps = self.resolve([leg])
                except IllegalPlayError as error:
                    if error.code != ErrorCode.MUST_USE_DICE:
                        return error
                    break
                except AmbiguousPlayError:
                    break
                for step, die in steps:
                    self._push(step, die)
                    made += 1
        finally:
            for _ in range(made):
                self.undo()
        # From the position before them all: a leg that starts where an earlier one ends
        # (``14/11* 11/8``) is explained by that one, not by what stood there before.
        arrived: set[int] = set()
        for leg in legs:
            if leg.source in arrived:
                continue
            reason = self._explain(leg)
            if reason.code != ErrorCode.MUST_USE_DICE:
                return reason
            arrived.add(leg.dest)
        return self._explain(legs[0]) if legs else IllegalPlayError("Illegal move")

    @staticmethod
    def _no_die(leg: Leg, dice: Sequence[int]) -> IllegalPlayError:
        """No die left fits ``leg``: named with the move and the dice still to play (another
        move of the same turn may well fit the dice the player has in mind)."""
        move = f"{point_name(leg.source)}/{point_name(leg.dest)}"
        left = " ".join(map(str, sorted(dice, reverse=True)))
        return IllegalPlayError(
            f"No die left ({left}) fits {move}", ErrorCode.NO_DIE, move=move, dice=left
        )

    def _explain(self, leg: Leg) -> IllegalPlayError:
        """Why the checker move ``leg`` cannot be made now: the first rule it breaks."""
        gen = self._gen
        own, opp = gen.own, gen.opp
        source, dest = leg.source, leg.dest
        where = point_name(source)
        dice = self.remaining_dice
        if not dice:
            return IllegalPlayError("All the dice have been played", ErrorCode.NO_DICE_LEFT)
        if source == BAR and not self.variant.hitting:  # U-3: nothing is hit, no bar
            return IllegalPlayError(
                "Uzun Tavla has no bar: no checker is ever hit", ErrorCode.NO_BAR
            )
        if own[BAR] and source != BAR:
            return IllegalPlayError(
                "You have a checker on the bar: enter it first", ErrorCode.MUST_ENTER_FIRST
            )
        if not own[source]:
            if source == BAR:  # none left: "bar/23 bar/22" with one checker up
                return IllegalPlayError(
                    "You have no checker on the bar", ErrorCode.NO_CHECKER_ON_BAR
                )
            if opp[self.variant.opposite[source]]:
                return IllegalPlayError(
                    f"The checkers on {where} are your opponent's",
                    ErrorCode.OPPONENTS_CHECKER,
                    point=where,
                )
            return IllegalPlayError(
                f"You have no checker on {where}", ErrorCode.NO_CHECKER, point=where
            )
        distance = source - dest
        sums = {sum(dice[:k]) for k in range(1, len(dice) + 1)} | set(dice)
        if dest == OFF:
            if gen.outside:
                return IllegalPlayError(
                    "You can bear off only when all your checkers are in your home board",
                    ErrorCode.BEAR_OFF_NOT_HOME,
                )
            if max(dice) < distance and distance not in sums:
                return self._no_die(leg, dice)
        elif distance not in sums:
            return self._no_die(leg, dice)
        if dest != OFF:
            n = opp[self.variant.opposite[dest]]
            if n >= 2 or (n == 1 and not self.variant.hitting):
                return IllegalPlayError(
                    f"Point {dest} is closed: your opponent holds it", ErrorCode.BLOCKED, point=dest
                )
        if source == HEAD and self.variant.head_rule and gen.head_closed:
            return IllegalPlayError(
                "Only one checker may leave the head each turn", ErrorCode.HEAD_RULE
            )
        # The steps that head for ``dest``: the leg's own die when one die covers it, else
        # a first stop short of ``dest``. The six-block rule is to blame when the steps
        # would be there without it.
        single = dest == OFF or distance in dice

        def heading(block_rule: bool | None = None) -> list[Step]:
            return [
                s
                for d in set(dice)
                for s in gen.steps(d, block_rule=block_rule)
                if s.source == source and (s.dest == dest if single else s.dest > dest)
            ]

        reachable = heading()
        unblocked = reachable
        if not reachable and self.variant.block_rule:
            unblocked = heading(block_rule=False)
        if unblocked and not reachable:
            return IllegalPlayError(
                "That would build a wall of six points that no opposing checker has passed",
                ErrorCode.SIX_BLOCK,
            )
        if dest == OFF and not reachable:
            return IllegalPlayError(
                "Bear off from your highest points first, or move inside your home board",
                ErrorCode.BEAR_OFF_HIGHER_FIRST,
            )
        if not reachable:
            return IllegalPlayError("That checker can't move there", ErrorCode.ILLEGAL_PLAY)
        if len(set(dice)) == 2 and self.best - len(self.done) == 1:
            return IllegalPlayError(
                "Only one die can be played, so you must play the larger one",
                ErrorCode.MUST_PLAY_LARGER,
            )
        return IllegalPlayError(
            "That move would leave dice unplayed: you must use as much of the roll as you can",
            ErrorCode.MUST_USE_DICE,
        )
