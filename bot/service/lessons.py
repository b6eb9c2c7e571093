"""The guided first game: ``/learn [tavla|turkish|uzun]`` plays a game against the computer
at its easiest level that explains itself as it goes.

At the start: how to read the board, the goal and who begins. Then each thing the first
time it comes up in that game (:func:`core.learn.lesson.moments`): the roll and how to enter
a move with the buttons and by typing, where a checker may land, the cube, a hit either way
and the bar, a roll that cannot come in (a dance), every checker home and bearing off, the
first checker off and what a gammon is; at the end, what to try next. The game is never
rated (no game against the computer is). The topics told are kept with the contest
(``ContestSettings.lesson``), so each is told once, whichever chat or worker answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import Chat, GameRecord, Storage, User
from core.ai import player_for
from core.dice import larger_first
from core.game import Game
from core.learn import lesson as L
from core.movegen import Play
from core.notation import format_play

from . import actions as A
from . import keypad
from . import words as W
from .commands import unknown_argument
from .errors import UserFacingError
from .presenter import VARIANT_NAMES, seat_color
from .store import ActionContext, GameStore
from .views import Place, View

#: The computer's level in a guided game.
LEVEL = "beginner"

_BOTTOM = {"right": t("bottom right"), "left": t("bottom left")}


def learner_seat(record: GameRecord) -> int:
    """The seat of the person learning (the one the computer does not hold)."""
    return 1 - (record.settings.computer or 1)


def due(ctx: ActionContext) -> list[L.Moment]:
    """The moments of a guided game not told yet, marked as told in the contest's settings
    (saved with the action); none for any other contest."""
    taught = ctx.record.settings.lesson
    if taught is None:
        return []
    found = L.moments(ctx.game, learner_seat(ctx.record), taught)
    if found:
        told = (*taught, *(m.topic for m in found))
        ctx.record.settings = replace(ctx.record.settings, lesson=told)
    return found


def around(ctx: ActionContext, chat: Chat, views: list[View]) -> list[View]:
    """``views`` (the game's board first) with the lesson's messages for the moments
    :func:`due` found in this action (``ctx.taught``): what came up and what to do now
    before the board (read before its buttons), the end's after everything."""
    if not ctx.taught:
        return views
    board = views[0]
    learner = learner_seat(ctx.record)
    before: list[Text | str] = []
    after: list[Text | str] = []
    for moment in ctx.taught:
        lines = _lines(ctx.game, ctx.record.variant, learner, moment, chat, board)
        (after if moment.topic == L.END else before).extend(lines)
    first = [View(before, lang=board.lang, game_id=ctx.record.id)] if before else []
    last = [View(after, lang=board.lang, game_id=ctx.record.id)] if after else []
    return [*first, *views, *last]


def welcome_lines(game: Game, variant: str, learner: int, home: str) -> list[Text | str]:
    """What the guided game says before its first board: the board, the goal, the start."""
    colour = seat_color(game, learner)
    corner = _BOTTOM.get(home, _BOTTOM["right"])
    lines: list[Text | str] = [
        t(
            "📘 Your first game of {game}, step by step. You play the computer at its easiest "
            "level; the game is not rated, and I explain each thing the first time it comes up.",
            game=VARIANT_NAMES[variant],
        ),
        t("You play the white checkers, at the bottom of the board; each side has 15.")
        if colour == "white"
        else t("You play the black checkers, at the bottom of the board; each side has 15."),
    ]
    if variant == "uzun":
        lines.append(
            t(
                "The numbers round the edge are your points. All your checkers start on your "
                "head, point 24, above your home board (points 1–6, {corner}). They travel "
                "along the top to 13, then along the bottom from 12 down to 1. The computer's "
                "head is your point 12, and its checkers travel the same way round as yours.",
                corner=corner,
            )
        )
    else:
        lines.append(
            t(
                "The numbers round the edge are your points. Your home board is points 1–6 "
                "({corner}). Your checkers travel from 24, above it, along the top to 13, then "
                "along the bottom from 12 down to 1. The computer's checkers come the other "
                "way round, to its home board above yours.",
                corner=corner,
            )
        )
    lines.append(
        t(
            "The goal: bring all 15 checkers into your home board, then take them off the "
            "board (bear off). The first to bear off all 15 wins."
        )
    )
    lines.append(
        t(
            "To begin, each side rolls one die: the higher one plays White and rolls both "
            "dice for the first move."
        )
        if variant == "uzun"
        else t("To begin, each side rolls one die: the higher one starts with those two numbers.")
    )
    return lines


def _lines(
    game: Game, variant: str, learner: int, moment: L.Moment, chat: Chat, board: View
) -> list[Text | str]:
    """What is said about one moment to the player at seat ``learner``."""
    topic = moment.topic
    a, b = larger_first(moment.dice or (0, 0))
    if topic == L.MOVE:
        return _move_lines(game, chat.private, board)
    if topic == L.ROLL:
        return [
            t(
                "🎲 Press 🎲 Roll to roll your dice. Double offers the doubling cube first: the "
                "game would count twice, and the computer either takes or gives up the game "
                "at once. You can leave the cube for later games."
            )
        ]
    if topic == L.DOUBLED:
        return [
            t(
                "⚖️ The computer doubles. Take: play on for twice the stake, and the cube is "
                "yours (only you may double next). Pass: give up the game now at the present "
                "stake."
            )
        ]
    if topic == L.HIT:
        return [
            t(
                "💥 You hit! The computer's checker on your point {point} stood there alone "
                "(a blot), so it went to the bar in the middle; a hit is written with a star, "
                "like 13/8*. It must come back in through your home board before the computer "
                "may move anything else.",
                point=moment.point,
            )
        ]
    if topic == L.HIT_YOU:
        return [
            t(
                "💥 The computer hit your checker on point {point}: it is on the bar, in the "
                "middle. Before anything else it must come back in, in the computer's home "
                "board: a die of N enters on your point 25−N (a 3 on point 22, written "
                "bar/22), unless two or more of the computer's checkers stand there.",
                point=moment.point,
            )
        ]
    if topic == L.DANCE:
        return [
            t(
                "🚫 You could not come in from the bar with {a}-{b}: those points are "
                "closed, so the whole roll was lost (a dance). Every open point of the "
                "computer's home board is a chance next time.",
                a=a,
                b=b,
            )
        ]
    if topic == L.DANCE_THEM:
        return [
            t(
                "🚫 The computer could not come in from the bar with {a}-{b} and lost its "
                "roll. The more points of your home board you hold, the more often that "
                "happens.",
                a=a,
                b=b,
            )
        ]
    if topic == L.STUCK:
        if moment.seat == learner:
            return [
                t(
                    "🚫 You rolled {a}-{b} and could not move: every point those dice led to "
                    "was closed, so the roll was lost.",
                    a=a,
                    b=b,
                )
            ]
        return [
            t(
                "🚫 The computer rolled {a}-{b} and could not move: every point those dice "
                "led to was closed, so it lost the roll.",
                a=a,
                b=b,
            )
        ]
    if topic == L.BLOCK:
        return [
            t(
                "🧱 You hold five points in a row. A sixth would make a block, which is "
                "allowed only once at least one of the computer's checkers is past it: you "
                "may never shut all of them in behind six points."
            )
        ]
    if topic == L.HOME:
        lines: list[Text | str] = [
            t(
                "🏠 All your checkers are home: now bear them off. A die of N takes a checker "
                "off point N (its button reads N/off, like 6/off). If point N is empty, move "
                "inside your home board instead; if no checker stands higher than N, take "
                "one off your highest point."
            )
        ]
        if game.variant.hitting:
            lines.append(t("A checker hit now must come home again before you bear off more."))
        return lines
    if topic == L.OFF_YOU:
        if game.variant.backgammons:
            return [
                t(
                    "✅ Your first checker is off. Whoever bears off all 15 first wins one "
                    "point; two (a gammon, mars) if the loser has borne off none; three (a "
                    "backgammon) if the loser also still has a checker on the bar or in the "
                    "winner's home board. The cube multiplies them."
                )
            ]
        return [
            t(
                "✅ Your first checker is off. Whoever bears off all 15 first wins one point, "
                "or two (mars) if the loser has borne off none."
            )
        ]
    if topic == L.OFF_THEM:
        return [
            t(
                "The computer has started bearing off. If it bears off all 15 before you "
                "bear off one, you lose double (mars): hurry home!"
            )
        ]
    if topic == L.END:
        kind = "" if variant == "tavla" else f" {variant}"
        return [
            t(
                "🎓 That was your first game! Next: {bot} plays the computer again ({bot} "
                "expert plays stronger), {puzzle} gives you positions from real games to "
                "solve, {play} finds a person to play, and {rules} has the whole rule book.",
                bot=f"/bot{kind}",
                puzzle=f"/puzzle{kind}",
                play=f"/play{kind}",
                rules=f"/rules{kind}",  # Turkish tavla's own: /rules is the cube game's
            )
        ]
    return []


def _example_play(game: Game) -> Play:
    """The play the first move's note shows as typed: the one ``club`` chooses, so that a
    learner who copies it learns a sound move (the first legal play is often a poor one,
    such as running both back checkers with 3-1)."""
    player = player_for(game.variant.name, "club")
    return player.choose_play(game.variant, game.position(), game.legal_plays())


def _move_lines(game: Game, private: bool, board: View) -> list[Text | str]:
    """The first move: the dice, the buttons, typing, where a checker may land."""
    assert game.dice is not None
    a, b = larger_first(game.dice)
    lines: list[Text | str] = [
        t(
            "🎲 Your roll: {a}-{b}, drawn on the board and named under it. Each die moves one "
            "checker that many points, and one checker may use both; a double is played four "
            "times. You must use both dice if you can.",
            a=a,
            b=b,
        ),
        _buttons_line(board),
        t("↩ Undo takes back; ✅ Confirm ends your turn; 💡 shows the best plays."),
    ]
    play = format_play(_example_play(game))
    if private:
        lines.append(
            t(
                "Or type a whole move the way moves are written, a / from the point a "
                "checker leaves to the point it reaches: {play} is one of yours now.",
                play=play,
            )
        )
    else:
        lines.append(
            t(
                "Or reply to the board with a whole move, or send /move and the move, the "
                "way moves are written (a / from the point a checker leaves to the point it "
                "reaches): /move {play} is one of yours now.",
                play=play,
            )
        )
    if game.variant.hitting:
        lines.append(
            t(
                "A checker may land on an empty point, on your own checkers, or on a point "
                "with a single opposing checker (a blot), which it hits. Two or more opposing "
                "checkers close a point; jumping over it is fine."
            )
        )
    else:
        lines.append(
            t(
                "There is no hitting in Uzun Tavla: a checker may land only on an empty point "
                "or on your own; even one opposing checker closes a point. Only one checker "
                "may leave the head (point 24) a turn; on a first turn a second one leaves when "
                "one alone cannot play the whole roll (6-6, 4-4 and 3-3 at the start, and for "
                "the second player a roll the first player's checker blocks)."
            )
        )
    return lines


def _buttons_line(board: View) -> Text:
    """How this board's buttons enter a move: a checker's move, a whole move, or a point
    to pick first (bot/service/keypad.py lays them out one of these ways)."""
    for row in board.buttons:
        for button in row:
            action = A.decode(button.action)
            if action is None:
                continue
            if action.code == A.SELECT:
                return t(
                    "To move, press the point of a checker, then where it goes; only the "
                    "moves you may make are offered."
                )
            if action.code != A.MOVE:
                continue
            pairs = keypad.decode_steps(action.arg)
            one_checker = all(pairs[i][1] == pairs[i + 1][0] for i in range(len(pairs) - 1))
            if one_checker:
                return t(
                    "To move, press the buttons: {label} moves a checker from point {source} "
                    "to point {dest}. Only the moves you may make are offered.",
                    label=str(button.label),
                    source=_point(pairs[0][0]),
                    dest=_point(pairs[-1][1]),
                )
            return t(
                "To move, press a button: each is a whole move for this roll, such as "
                "{label}. Only the moves you may make are offered.",
                label=str(button.label),
            )
    return t("To move, press the buttons under the board: only the moves you may make are offered.")


def _point(point: int) -> str:
    return "bar" if point == 25 else "off" if point == 0 else str(point)


@dataclass(eq=False)
class Lessons:
    """``/learn``: the guided first game (the storage and the store for the new contest,
    and how a game against the computer starts: ``Challenges.computer_game``)."""

    storage: Storage
    store: GameStore
    computer_game: Callable[..., Awaitable[list[View]]]

    async def command(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        """``/learn [tavla|turkish|uzun]``: the guided game starts, its welcome first."""
        variant = "tavla"
        for word in args.split():
            kind = W.kind_of(word)
            if kind is None:
                raise UserFacingError(unknown_argument("learn", word))
            variant = kind
        views = await self.computer_game(user, chat, place, variant, 1, LEVEL, lesson=True)
        boards = [v for v in views if v.board is not None and v.game_id is not None]
        game_id = boards[0].game_id if boards else None
        record = await self.storage.get_game(game_id) if game_id is not None else None
        if record is None or record.settings.lesson is None or any(v.notice for v in views):
            return views  # a game against the computer runs here already: its board
        ctx = self.store.context(record)
        learner = learner_seat(record)
        home = (await self.store.prefs(ctx))[learner].home
        welcome = welcome_lines(ctx.game, record.variant, learner, home)
        return [View(welcome, lang=boards[0].lang, game_id=record.id), *views]
