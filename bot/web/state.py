"""A stored game as the web page sees it: plain JSON, from one viewer's side.

Nothing here decides a rule: the position, legal destinations and the actions on offer come
from core through the presenter, the same source as the chat's picture and buttons.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot.i18n import tn, translate, translate_lines
from bot.service import actions as A
from bot.service.presenter import (
    KIND_NAMES,
    action_line,
    board_view,
    caption,
    finished_buttons,
    game_buttons,
    play_lines,
    recent_play_lines,
    result_line,
    seat_color,
)
from bot.service.store import seat_names
from bot.service.views import GameRecord, GameStatus
from core.game import Game, Phase, ResultKind
from core.match import Match
from core.notation import format_steps
from core.position import BAR, OFF

from .walk import checker_moves, stuck_reasons, turn_walk, unique

#: The action codes of the chat's buttons the page offers as its own buttons, by name.
BUTTON_NAMES = {
    A.ROLL: "roll",
    A.DOUBLE: "double",
    A.TAKE: "take",
    A.DROP: "pass",
    A.UNDO: "undo",
    A.CONFIRM: "confirm",
    A.RESIGN_ACCEPT: "accept_resign",
    A.RESIGN_DECLINE: "decline_resign",
    A.REMATCH: "rematch",
    A.ANALYSE: "analyse",
}
#: Under a finished contest, for its players: the chat's buttons there (finished_buttons).
FINISHED_BUTTONS = [
    BUTTON_NAMES[A.decode(b.action).code]  # type: ignore[union-attr]
    for row in finished_buttons(0, 0)
    for b in row
]
#: The plays a page lists (the newest are shown when the screen has room for fewer).
MOST_PLAYS = 8
#: What the page sends, by name: the buttons above, and the take-back of a move confirmed by
#: itself (the same Undo press, offered to the player who moved until the opponent acts).
ACTION_CODES = {name: code for code, name in BUTTON_NAMES.items()} | {"take_back": A.UNDO}


def run_to(
    record: GameRecord,
    seat: int,
    source: int,
    dest: int,
    known: dict[str, list[dict[str, Any]]] | None = None,
) -> list[tuple[int, int]]:
    """The steps that take the checker on ``source`` to ``dest`` this turn (a page or a
    client that names only the two points): core's move there over one die or several, the
    first listed when two ways lead there; just the two points when no move leads there
    (the service then says why) or it is not ``seat``'s move. ``known``: the ``moves`` of
    ``record``'s state already worked out for ``seat`` on its move (:func:`game_state`)."""
    pair = [(source, dest)]
    if record.match is None or record.status is not GameStatus.ACTIVE:
        return pair
    if known is not None:
        moves = known
    else:
        game = Match.from_dict(record.match).game
        turn = game.current_turn if game is not None else None
        if game is None or game.over or game.awaiting != seat or turn is None:
            return pair
        moves = checker_moves(turn, only=source)
    ways = [m for m in moves.get(str(source), []) if m["to"] == dest]
    return [(a, b) for a, b in ways[0]["steps"]] if ways else pair


def capitalised(text: str, lang: str) -> str:
    """``text`` with a capital first letter, as a button's label starts ("A gammon (mars)",
    Turkish "İ" for "i")."""
    first = text[:1]
    upper = "İ" if lang == "tr" and first == "i" else first.upper()
    return upper + text[1:]


def resign_levels(game: Game, opponent: str, lang: str) -> list[dict[str, str]]:
    """The page's choice of resignations: each level the game allows (core's
    :meth:`~core.game.Game.resign_levels`), its button and the question that confirms it."""
    return [dict(level) for level in _resign_levels(tuple(game.resign_levels()), opponent, lang)]


@lru_cache(maxsize=4096)
def _resign_levels(
    levels: tuple[tuple[ResultKind, int], ...], opponent: str, lang: str
) -> tuple[dict[str, str], ...]:
    """:func:`resign_levels`' words, the same for every state of a game until the cube
    turns: put into words once (each page of each action had them translated anew)."""
    return tuple(
        {
            "kind": kind.value,
            "label": capitalised(
                translate(
                    tn("{kind}: {n} point", "{kind}: {n} points", points, kind=KIND_NAMES[kind]),
                    lang,
                ),
                lang,
            ),
            "question": translate(
                tn(
                    "Resign {kind}? If {name} accepts, they win {n} point.",
                    "Resign {kind}? If {name} accepts, they win {n} points.",
                    points,
                    kind=KIND_NAMES[kind],
                    name=opponent,
                ),
                lang,
            ),
        }
        for kind, points in levels
    )


def game_state(record: GameRecord, seat: int | None, lang: str) -> dict[str, Any]:
    """The page's state of ``record`` for a player in ``seat`` (None: a spectator).

    The board is seen from ``seat`` (a spectator sees it from seat 0), with its points,
    legal destinations and last play in that side's numbering, as the player types moves.
    """
    state: dict[str, Any] = {
        "game": record.id,
        "version": record.version,
        "status": str(record.status.value),
        "variant": record.variant,
        "seat": seat,
        "lang": lang,
    }
    if record.match is None or record.status in (GameStatus.CHALLENGE, GameStatus.DECLINED):
        state["board"] = None
        return state
    match = Match.from_dict(record.match)
    game = match.game
    assert game is not None
    names = [translate(name, lang) for name in seat_names(record)]
    viewer = 0 if seat is None else seat
    view = board_view(match, names, viewer=viewer, lang=lang)
    colors = [seat_color(game, s) for s in (0, 1)]
    me, them = view.viewer, view.opponent
    points = [None] + [
        {"color": color, "count": count} if color else None for color, count in view.points()[1:]
    ]
    last = [
        {
            "from": view.to_viewer(view.last_play_color or me, s.source),
            "to": view.to_viewer(view.last_play_color or me, s.dest),
            "hit": s.hit,
        }
        for s in view.last_play
    ]
    playing = record.status is GameStatus.ACTIVE and not game.over
    # A resignation is answered by the other seat; otherwise the game waits for ``awaiting``.
    acting = 1 - game.resign_offer[0] if game.resign_offer else game.awaiting
    my_turn = playing and seat is not None and acting == seat
    legal: dict[str, list[int]] = {}
    moves: dict[str, list[dict[str, Any]]] = {}
    stuck: dict[str, str] = {}
    walk: list[dict[str, Any]] = []
    buttons: list[str] = []
    if my_turn:
        turn = game.current_turn
        if game.phase is Phase.MOVE and turn is not None:
            # The game's current turn is the one walked: each board's line is its own.
            walk = turn_walk(turn, waiting_for=lambda: translate(action_line(game, names), lang))
            moves = walk[0]["moves"]
            legal = {source: unique(m["to"] for m in ms) for source, ms in moves.items()}
            stuck = stuck_reasons(turn, lang)
        codes = [
            A.decode(b.action).code  # type: ignore[union-attr]
            for row in game_buttons(record.id or 0, record.version, game, moves=False)
            for b in row
        ]
        if game.phase is Phase.ROLL:  # the Undo there is the opponent's take-back
            codes = [c for c in codes if c != A.UNDO]
        buttons = [BUTTON_NAMES[c] for c in codes if c in BUTTON_NAMES]
    elif record.status is GameStatus.FINISHED and seat is not None:
        buttons = list(FINISHED_BUTTONS)
    elif playing and seat is not None and game.may_take_back(seat):
        # A move confirmed by itself: the mover may take it back until the
        # opponent rolls, doubles or resigns.
        buttons = ["take_back"]
    pips = view.pips()
    state["board"] = {
        "bottom": me,
        "top": them,
        "colors": colors,
        "names": {colors[s]: names[s] for s in (0, 1)},
        "score": {colors[s]: match.score[s] for s in (0, 1)},
        "length": match.length,
        "points": points,
        "bar": {c: view.side(c)[BAR] for c in (me, them)},
        "off": {c: view.side(c)[OFF] for c in (me, them)},
        "pips": {c: pips[c] for c in (me, them)},
        "dice": list(view.all_dice),
        "dice_used": [view.die_used(i) for i in range(len(view.all_dice))],
        "dice_color": view.roller if view.dice else None,
        "cube": view.cube_value,
        "cube_owner": view.cube_owner,
        "to_move": view.to_move,
        "winner": view.winner,
        "phase": str(game.phase.value),
        "last_play": last,
        "last_play_text": format_steps(view.last_play, ()) if view.last_play else "",
        "last_play_color": view.last_play_color,
    }
    state["my_turn"] = my_turn
    state["legal"] = legal
    state["moves"] = moves
    state["stuck"] = stuck
    # The boards the page walks to by itself this turn (see walk.py): node 0 is this one.
    state["walk"] = walk
    state["buttons"] = buttons
    state["can_resign"] = bool(playing and seat is not None and not game.resign_offer)
    # The levels the rules allow here (core's), each with what the opponent would win.
    state["resign_levels"] = (
        resign_levels(game, names[1 - seat], lang)
        if state["can_resign"] and seat is not None
        else []
    )
    lines = caption(match, names, record.variant)
    state["caption"] = translate_lines(lines, lang).split("\n")
    # The contest: the players and the score, the game and the match length.
    state["contest"] = translate(lines[0], lang)
    # The last plays of both sides, where a phone has room under the board.
    state["plays"] = [translate(line, lang) for line in play_lines(game, names, MOST_PLAYS)]
    state["action_line"] = translate(action_line(game, names), lang)
    # What happened since the player to act last chose: the computer's answer, a double
    # taken, a resignation declined (the chat's caption tells the same).
    state["news"] = [translate(line, lang) for line in recent_play_lines(game, names)]
    state["over"] = record.status in (GameStatus.FINISHED, GameStatus.ABORTED)
    # How it ended, as the chat words it ("Ali resigned a gammon (mars): Veli wins 2 …").
    state["result"] = translate(result_line(game, names), lang) if game.result else ""
    return state
