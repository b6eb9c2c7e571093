"""Hints: ``/hint`` and the 💡 button under a board show the best plays of the roll (or the
cube decision) with what each costs against the best, and the board after the best play.

Only where no rating or opponent is wronged: a game against the computer, or one person
playing both sides. Never in a rated game or a tournament.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.i18n import Text, t, translate
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User
from core.dice import larger_first
from core.learn import CubeHint, Hint, PlayHint, percent
from core.match import Match
from renderers.view import BLACK, WHITE, BoardView

from .advice import Advisor, hints_allowed
from .boards import Boards
from .errors import UserFacingError
from .lang import language
from .presenter import Name, picture_labels
from .store import GameStore, acting_seat, seat_of
from .tutor import CUBE_WORDS
from .views import View


def cost_text(cost: float) -> str:
    """A cost as equity and winning chances: ``−0.229 (−11%)``."""
    return f"−{cost:.3f} (−{percent(cost)}%)"


def hint_lines(hint: Hint) -> list[Text | str]:
    """The hint as lines: the best first, then each other choice with its cost."""
    if isinstance(hint, PlayHint):
        a, b = larger_first(hint.dice)
        lines: list[Text | str] = [t("💡 The best plays of {a}-{b}:", a=a, b=b)]
        for n, option in enumerate(hint.options, 1):
            if option.cost <= 0:
                lines.append(t("{n}. {play} — best", n=n, play=option.text))
            else:
                lines.append(f"{n}. {option.text} — {cost_text(option.cost)}")
        return lines
    assert isinstance(hint, CubeHint)
    head = t("💡 To double?") if hint.kind == "double" else t("💡 Take or pass?")
    lines = [head]
    for choice in hint.options:
        word = CUBE_WORDS[choice.action]
        if choice.cost <= 0:
            lines.append(t("{action} — best", action=word))
        else:
            lines.append(t("{action} — {cost}", action=word, cost=cost_text(choice.cost)))
    return lines


class Hints:
    """``/hint`` and the 💡 button (the storage, the store, the boards for the picture, the
    advisor that computes the hint off the event loop)."""

    def __init__(self, storage: Storage, store: GameStore, boards: Boards, advisor: Advisor):
        self.storage = storage
        self.store = store
        self.boards = boards
        self.advisor = advisor

    async def command(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/hint``: the hint for the player's game here."""
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to ask a hint for."))
        return await self.hint(user, chat, record)

    async def press(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """The 💡 button under the board."""
        return await self.hint(user, chat, record)

    async def hint(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        """The hint for the decision ``record``'s game waits for from ``user``."""
        if record.status is not GameStatus.ACTIVE or not record.match:
            raise UserFacingError(t("That game is over."))
        if not hints_allowed(record):
            raise UserFacingError(
                t(
                    "Hints are only for games against the computer and games on one "
                    "keyboard, never for rated games or tournaments."
                )
            )
        ctx = self.store.context(record)
        game = ctx.game
        seat = seat_of(record, user, game)
        if acting_seat(game) != seat or game.resign_offer is not None:
            raise UserFacingError(t("There is nothing for you to decide just now."))
        hint = await self.advisor.hint(record.match)
        lang = language(user, chat)
        if hint is None:
            return [View([t("No choice to make here: any play is as good as another.")], lang)]
        image = None
        if isinstance(hint, PlayHint) and self.boards.settings.render_images:
            image = await self.boards.render(
                self._ghost_view(ctx.match, ctx.names, seat, hint, lang)
            )
        return [View(hint_lines(hint), lang=lang, image=image, image_stem=f"hint-{record.id}")]

    @staticmethod
    def _ghost_view(
        match: Match, names: Sequence[Name], seat: int, hint: PlayHint, lang: str
    ) -> BoardView:
        """The board after the best play, its checkers' starting points drawn as ghosts."""
        game = match.game
        assert game is not None
        colour = WHITE if game.white == seat else BLACK
        theirs = BLACK if colour == WHITE else WHITE
        best = hint.best.play
        return BoardView.from_position(
            game.variant,
            best.after,
            mover_color=colour,
            dice=larger_first(hint.dice),
            dice_used=(True, True),
            last_play=best.steps,
            last_play_color=colour,
            cube_value=game.cube_value if game.variant.cube else None,
            labels=picture_labels(lang),
            names={colour: translate(names[seat], lang), theirs: translate(names[1 - seat], lang)},
        )

    async def _find_game(self, user: User, chat: Chat, game_id: int | None) -> GameRecord | None:
        """The player's active game here (the one replied to, or one waiting for them)."""
        if game_id is not None:
            record = await self.storage.get_game(game_id)
            ok = record is not None and record.status is GameStatus.ACTIVE
            return record if ok and record is not None and user.id in record.seats else None
        games = [
            g
            for g in await self.storage.games_in_chat(
                chat.platform, chat.chat_id, (GameStatus.ACTIVE,)
            )
            if user.id in g.seats
        ]
        for record in games:
            match = Match.from_dict(record.match or {})
            if match.game and record.seats[acting_seat(match.game)] == user.id:
                return record
        return games[0] if games else None
