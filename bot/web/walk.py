"""The turn a page walks by itself: each checker move it offers, and where each one leads.

A player's page makes the checker moves of a turn on its own board, at once, and sends the
turn's steps in one action when the turn is played out (or when it walks past what it was
told, below). The page decides nothing: every node of the walk is a board reached by core's
steps, with core's moves from there, core's reason for each checker that cannot move, the
dice used and the pip counts; the page only moves the checkers its node names (a hit checker
to the bar, as the move's ``hit`` says). The service makes the steps again through core when
they come, as the chat's buttons do: nothing a page sends is taken on trust.

A turn with many boards (a double in the middle game reaches hundreds) is given in part: the
nodes nearest the start, a bounded number of them. A move whose node is not given leads the
page to send the steps made so far (the service keeps them as the chat's buttons' steps) and
to walk on from the answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from bot.i18n import translate
from bot.service.errors import error_text
from bot.service.keypad import finish_forced
from bot.service.presenter import dice_used_flags
from core.notation import format_steps
from core.position import BAR, OFF, pip_count
from core.turn import Turn

#: The boards a page is told of in one state. A turn of two different dice needs the start
#: and the boards after one die (about five at the median); a double's boards after
#: one, two and three of its four dice run to hundreds in the middle game. Past this bound the
#: page sends what it walked and goes on from the answer (one action more): a double's walk
#: stays a few milliseconds of work and a few kilobytes (16 boards cost a double 3 ms at the
#: median and 60 ms at worst, and kept the web board's slowest answers slower).
MOST_NODES = 8


def unique(values: Any) -> list[Any]:
    """``values`` without repeats, in their first order."""
    return list(dict.fromkeys(values))


def checker_moves(
    turn: Turn, only: int | None = None, *, written: bool = True
) -> dict[str, list[dict[str, Any]]]:
    """Every move of each checker that can move now, by its point: each destination it
    reaches with one die or several dice of the turn, with the steps that take it there
    (made in order by the service) and the move written as in the chat.

    The moves are core's (:meth:`core.turn.Turn.checker_moves`: each step still leads to a
    legal play; a run stops only on points it may land on and hits the blots it lands on).
    Moves with the same steps are one (the service picks the die as a chat button does); a
    point is reached in the fewest steps that reach it (a longer way stays a move of several
    taps); two ways of as many steps to the same point (one hitting on the way) both stay,
    for the player to choose. Single-die moves come first. ``only``: the moves of the
    checker on that point alone; ``written``: with each move written (the page shows it when
    two ways lead to one point, which happens at the start of a turn only: after one die of
    two, or any die of a double, a checker's way to a point is one)."""
    legal = turn.legal_steps()
    if not written and len(turn.remaining_dice) == 1:
        return _single_steps(legal, only)
    sources = unique(step.source for step, _ in legal)
    if only is not None:
        sources = [source for source in sources if source == only]
    found: dict[str, list[dict[str, Any]]] = {}
    for source in sorted(sources, reverse=True):
        seen: set[tuple[tuple[int, int], ...]] = set()
        fewest: dict[int, int] = {}  # destination -> the fewest steps that reach it
        runs = sorted(turn.checker_moves(source), key=lambda m: (len(m), -m[-1][0].dest))
        for run in runs:
            pairs = tuple((step.source, step.dest) for step, _ in run)
            dest = pairs[-1][1]
            # 6/off with the 6, not 6/1/off with both dice (that one is two taps away).
            if pairs in seen or fewest.setdefault(dest, len(pairs)) < len(pairs):
                continue
            seen.add(pairs)
            move: dict[str, Any] = {
                "to": run[-1][0].dest,
                "steps": [list(pair) for pair in pairs],
                "hit": any(step.hit for step, _ in run),
            }
            if written:
                move["text"] = format_steps(
                    ((s.source, s.dest, s.hit) for s, _ in run), turn.all_dice
                )
            found.setdefault(str(source), []).append(move)
    return found


def _single_steps(legal: list[Any], only: int | None) -> dict[str, list[dict[str, Any]]]:
    """:func:`checker_moves` with one die left: each move is one of core's legal steps (no
    run to walk; the most visited boards of a walk, worked out without the search)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for step, _ in sorted(legal, key=lambda done: -done[0].source):
        if only is None or step.source == only:
            found.setdefault(str(step.source), []).append(
                {"to": step.dest, "steps": [[step.source, step.dest]], "hit": step.hit}
            )
    return found


def stuck_reasons(turn: Turn, lang: str) -> dict[str, str]:
    """For each point of the mover's (the bar included) whose checkers cannot move now,
    core's reason, in ``lang`` (a tap there says it, as a refused move does)."""
    own = turn.position.mover
    reasons = {}
    for point in range(BAR, OFF, -1):
        if own[point]:
            error = turn.why_not(point)
            if error is not None:
                reasons[str(point)] = translate(error_text(error), lang)
    return reasons


def turn_walk(
    turn: Turn,
    most: int = MOST_NODES,
    waiting_for: Callable[[], str] | None = None,
) -> list[dict[str, Any]]:
    """The boards a page may walk to from ``turn`` as it stands (node 0) before the turn is
    played out, nearest first, at most ``most`` of them.

    Each node: ``moves`` (:func:`checker_moves`, each with ``next``: the node it leads to;
    None when it plays the turn out, or leads past the nodes given: the page then sends the
    steps), ``dice_used`` (the flags of the dice the board shows) and ``pips`` (the mover's
    and the opponent's). A move after which one way only finishes the turn leads to no node:
    the service makes that rest by itself, as after a chat button's move. No node tells why
    a checker cannot move (:func:`stuck_reasons`, the state's, for the start): a page that
    taps such a checker past the start sends the steps walked and shows the answer's reason
    (core's reasons for every board would cost as much as the rest of the walk).
    ``waiting_for``: what the game waits for, put into words with ``turn`` as it stands
    (each node's ``action_line``: "… Dice left: 2")."""
    start = list(turn.done)
    nodes: list[dict[str, Any]] = []
    index: dict[Any, int] = {}
    paths: deque[tuple[int, list[tuple[int, int]]]] = deque()

    def key() -> Any:
        return turn.position, tuple(turn.remaining_dice)

    def visit() -> dict[str, Any]:
        node = {
            "moves": checker_moves(turn, written=not nodes),
            "dice_used": list(dice_used_flags(turn)),
            "pips": [pip_count(turn.position.mover), pip_count(turn.position.opponent)],
        }
        if waiting_for is not None:
            node["action_line"] = waiting_for()
        return node

    index[key()] = 0
    nodes.append(visit())
    paths.append((0, []))
    try:
        while paths:
            at, path = paths.popleft()
            _replay(turn, start, path)
            for moves in nodes[at]["moves"].values():
                for move in moves:
                    pairs = [(a, b) for a, b in move["steps"]]
                    made = _made(turn, pairs)
                    here = key()
                    child = index.get(here)
                    if child is None and len(nodes) < most and not turn.complete:
                        child = index[here] = len(nodes)
                        nodes.append(visit())
                        paths.append((child, path + made))
                    move["next"] = child
                    for _ in made:
                        turn.undo()
    finally:
        _replay(turn, start, [])
    return nodes


def _replay(turn: Turn, start: list[Any], path: list[tuple[int, int]]) -> None:
    """Put ``turn`` back at its steps ``start`` and make ``path`` after them."""
    while len(turn.done) > len(start):
        turn.undo()
    for pair in path:
        turn.step(pair)


def _made(turn: Turn, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Make ``pairs`` on ``turn`` as the service does (each with the first legal die, then
    a rest of the turn that has one way only); the steps made."""
    before = len(turn.done)
    for pair in pairs:
        turn.step(pair)
    finish_forced(turn)
    return [(step.source, step.dest) for step, _ in turn.done[before:]]
