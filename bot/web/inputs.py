"""What the page sends, read strictly: a game id in the path, an action's JSON body.

Numbers go through :mod:`bot.service.numbers` (ASCII digits, within a database integer) or
must be JSON integers; a body's nesting is measured before ``json.loads`` sees it (a body of
200,000 ``[`` would otherwise end in a RecursionError); anything else is :class:`BadInput`,
answered with a 400.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bot.service.numbers import MAX_ID, parse_id
from core.position import BAR

#: An action is a flat object; a little room for what a later page may add.
MAX_DEPTH = 4
#: The levels of a resignation the page may name (core.game.ResultKind's values), with the
#: digit that names each in the "Yes, resign" press (bot.service.words.RESIGN_LEVELS).
RESIGN_DIGITS = {"single": "1", "gammon": "2", "backgammon": "3"}
RESIGN_KINDS = tuple(RESIGN_DIGITS)
#: A move is at most a double's four steps.
MAX_STEPS = 4
#: An action's body is a few dozen bytes.
MAX_BODY = 4096


class BadInput(ValueError):
    """The request is malformed (its text says how, for the 400)."""


def game_id(text: str) -> int | None:
    """The game id of a path, or None (then: no such game)."""
    return parse_id(text)


def nesting(raw: str) -> int:
    """How deep arrays and objects nest in the JSON text ``raw`` (brackets inside strings
    do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def json_object(raw: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``raw`` as a JSON object nested at most ``max_depth`` deep; :class:`BadInput` if not."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput("the body is not UTF-8") from exc
    if nesting(text) > max_depth:
        raise BadInput("the body nests too deep")
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise BadInput("the body is not JSON") from exc
    if not isinstance(body, dict):
        raise BadInput("the body is not a JSON object")
    return body


def integer(value: Any, low: int, high: int) -> int | None:
    """``value`` when it is a JSON integer (not true/false, not 5.0, not "5") in
    ``low..high``; else None."""
    if type(value) is not int or not low <= value <= high:
        return None
    return value


@dataclass(frozen=True)
class ActionBody:
    """An action the page sends: its name, the game version it was chosen on, and for a
    move its steps, made in order (each two points in the player's own numbering: 25 the
    bar, 0 off): one checker's single step, or its run over several dice."""

    name: str
    version: int
    move: tuple[tuple[int, int], ...] | None = None
    #: A resignation's level: single, gammon or backgammon (core says which the game has).
    kind: str = "single"


def action_body(raw: bytes) -> ActionBody:
    """The action in ``raw``; :class:`BadInput` if it is not one."""
    body = json_object(raw)
    name = body.get("action")
    version = integer(body.get("version"), 0, MAX_ID)
    if not isinstance(name, str) or version is None:
        raise BadInput("an action needs 'action' and 'version'")
    if name == "resign":
        kind = body.get("kind", "single")
        if kind not in RESIGN_KINDS:
            raise BadInput("'kind' is one of " + ", ".join(RESIGN_KINDS))
        return ActionBody(name, version, kind=kind)
    if name != "move":
        return ActionBody(name, version)
    if "steps" in body:
        steps = body["steps"]
        if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
            raise BadInput(f"'steps' is a list of 1 to {MAX_STEPS} steps")
        pairs = []
        for step in steps:
            pair = _pair(step[0], step[1]) if isinstance(step, list) and len(step) == 2 else None
            if pair is None:
                raise BadInput("a step is [from, to]")
            pairs.append(pair)
        return ActionBody(name, version, tuple(pairs))
    pair = _pair(body.get("from"), body.get("to"))
    if pair is None:
        raise BadInput("a move needs 'from' and 'to', or 'steps'")
    return ActionBody(name, version, (pair,))


def _pair(source: Any, dest: Any) -> tuple[int, int] | None:
    """Two points of a step (0 off .. 25 the bar), or None."""
    a, b = integer(source, 0, BAR), integer(dest, 0, BAR)
    return None if a is None or b is None else (a, b)
