"""The tutor: before a play or cube action that loses at least 0.08 (gnubg's "bad") is made,
the player is asked "That loses about N% — play it anyway?" with the better choice named.

Only where hints are allowed (against the computer, or one person on both sides). The
setting (``/settings``: the tutor) is on for a player's first ten games against the
computer unless they chose; the same threshold serves all three games.

The tutor is advice nobody asked for: when the advice worker is busy (a crowd of games
against the computer asks for more verdicts than it gives) or slow to answer, the play is
made without a question rather than the player kept waiting (``Advisor.advisory``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import GameRecord, GameStatus, PlayerPrefs, Storage, User
from core.game import Phase
from core.learn import Advice, tutor_cube, tutor_play
from core.match import Match
from core.position import Position

from . import actions as A
from . import keypad
from .advice import ADVISORY_WAIT, Advisor, solo_help
from .autoplay import BUSY, confirms_by_itself
from .store import ActionContext, GameStore
from .views import Button

#: What each cube press is, for the tutor.
_CUBE = {A.DOUBLE: "double", A.ROLL: "no double", A.TAKE: "take", A.DROP: "pass"}
#: The argument of "Play it anyway" for each press it stands for.
_ANYWAY = {A.CONFIRM: "", A.DOUBLE: "d", A.ROLL: "r", A.TAKE: "t", A.DROP: "p"}
#: …and back.
ANYWAY_CODES = {arg: code for code, arg in _ANYWAY.items()}
#: The cube actions as a player reads them.
CUBE_WORDS: dict[str, Text] = {
    "double": t("Double"),
    "no double": t("No double"),
    "take": t("Take"),
    "pass": t("Pass"),
}


def play_verdict(match: dict[str, Any], after: Position) -> Advice | None:
    """:func:`core.learn.tutor_play` on a stored match (in the advice worker)."""
    restored = Match.from_dict(match)
    assert restored.game is not None
    return tutor_play(restored.game, after, restored)


def cube_verdict(match: dict[str, Any], action: str) -> Advice | None:
    """:func:`core.learn.tutor_cube` on a stored match (in the advice worker)."""
    restored = Match.from_dict(match)
    assert restored.game is not None
    return tutor_cube(restored.game, action, restored)


#: The tutor's question and its "anyway" button for each press it asks about: a Take is
#: asked "take anyway?", not "play it anyway?".
_QUESTIONS: dict[str, tuple[Text, Text]] = {
    A.MOVE: (
        t("🧑‍🏫 That loses about {percent}% — play it anyway? Better: {better}."),
        t("Play it anyway"),
    ),
    A.DOUBLE: (
        t("🧑‍🏫 Doubling loses about {percent}% — double anyway? Better: {better}."),
        t("Double anyway"),
    ),
    A.ROLL: (
        t("🧑‍🏫 Not doubling loses about {percent}% — roll anyway? Better: {better}."),
        t("Roll anyway"),
    ),
    A.TAKE: (
        t("🧑‍🏫 Taking loses about {percent}% — take anyway? Better: {better}."),
        t("Take anyway"),
    ),
    A.DROP: (
        t("🧑‍🏫 Passing loses about {percent}% — pass anyway? Better: {better}."),
        t("Pass anyway"),
    ),
}


def anyway_action(action: A.Action) -> A.Action:
    """The press "Play it anyway" stands for: the same, without asking again."""
    if action.arg in ANYWAY_CODES:
        return action._replace(code=ANYWAY_CODES[action.arg], arg="")
    return action._replace(code=A.MOVE)


class Tutor:
    """The tutor's question (the storage, the store for the players' settings, the advisor
    that judges off the event loop)."""

    def __init__(
        self,
        storage: Storage,
        store: GameStore,
        advisor: Advisor,
        first_games: int = 10,
        wait: float = ADVISORY_WAIT,
    ) -> None:
        self.storage = storage
        self.store = store
        self.advisor = advisor
        #: On by itself for a player's first so many games against the computer.
        self.first_games = first_games
        #: Seconds a press waits at most for a verdict (see Advisor.advisory).
        self.wait = wait

    async def active(self, user: User, record: GameRecord) -> bool:
        """Whether the tutor watches ``user`` in this game."""
        if not solo_help(record):
            return False
        if user.prefs.tutor is not None:
            return user.prefs.tutor
        if record.settings.computer is None or self.first_games <= 0:
            return False
        played = await self.storage.count_computer_games(
            user.id, (GameStatus.FINISHED,), at_most=self.first_games
        )
        return played < self.first_games

    async def question(
        self, user: User, ctx: ActionContext, seat: int, action: A.Action
    ) -> tuple[list[Text | str], list[list[Button]]] | None:
        """The tutor's question about ``action`` before it is made, or None (no loss of
        0.08 or more, the tutor off, nothing to judge)."""
        if action.code not in (A.MOVE, *_ANYWAY) or not await self.active(user, ctx.record):
            return None
        game = ctx.game
        if seat != game.awaiting or game.resign_offer is not None:
            return None
        stored = ctx.match.to_dict()
        advice: Advice | None = None
        if action.code in (A.MOVE, A.CONFIRM):
            after = self._after(ctx, seat, action, await self.store.prefs(ctx))
            if after is None:
                return None
            advice = await self.advisor.advisory(play_verdict, stored, after, wait=self.wait)
        elif game.variant.cube:
            if action.code == A.ROLL and not game.may_double(seat):
                return None
            if action.code in (A.TAKE, A.DROP) and game.phase is not Phase.DOUBLED:
                return None
            advice = await self.advisor.advisory(
                cube_verdict, stored, _CUBE[action.code], wait=self.wait
            )
        if advice is None:
            return None
        return self._ask(ctx, action, advice)

    @staticmethod
    def _after(
        ctx: ActionContext, seat: int, action: A.Action, prefs: Sequence[PlayerPrefs]
    ) -> Position | None:
        """The board a MOVE or CONFIRM would leave (None: it does not end the turn, or the
        player confirms it later with a press of its own)."""
        game = ctx.game
        turn = game.current_turn
        if turn is None or len(turn.plays) < 2:
            return None
        if action.code == A.CONFIRM:
            return turn.position if turn.complete else None
        trial = Match.from_dict(ctx.match.to_dict())
        assert trial.game is not None
        keypad.make_steps(trial.game, seat, keypad.decode_steps(action.arg))
        tried = trial.game.current_turn
        humans = {s for s in (0, 1) if s != ctx.record.settings.computer}
        busy = BUSY.get()
        if tried is None or not confirms_by_itself(trial.game, seat, prefs, humans, busy=busy):
            return None  # not finished, or asked at Confirm
        return tried.position

    @staticmethod
    def _ask(
        ctx: ActionContext, action: A.Action, advice: Advice
    ) -> tuple[list[Text | str], list[list[Button]]]:
        record = ctx.record
        assert record.id is not None
        better: Text | str = CUBE_WORDS.get(advice.better, advice.better)
        question, anyway = _QUESTIONS.get(action.code, _QUESTIONS[A.MOVE])
        lines: list[Text | str] = [t(question.msgid, percent=advice.percent, better=better)]
        arg = action.arg if action.code == A.MOVE else _ANYWAY[action.code]
        buttons = [
            [
                Button(anyway, A.encode(record.id, record.version, A.TUTOR_OK, arg)),
                Button(t("Think again"), A.encode(record.id, record.version, A.TUTOR_BACK)),
            ]
        ]
        return lines, buttons
