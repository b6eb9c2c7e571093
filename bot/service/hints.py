"""Hints: ``/hint`` and the 💡 button under a board show the best plays of the roll (or the
cube decision) with what each costs against the best, and the board after the best play.

Only where no rating or opponent is wronged: a game against the computer, one person playing
both sides, or an unrated game between two people whose players both allow them (asked once
for the game, each hint then announced to both). Never in a rated game, the pool or a
tournament.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.i18n import Text, t, translate
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User
from core.dice import larger_first
from core.learn import CubeHint, Hint, PlayHint, percent
from core.match import Match
from renderers.view import BLACK, WHITE, BoardView

from . import actions as A
from .advice import HINTS_ASKED, HINTS_OFF, HINTS_ON, Advisor, by_consent, solo_help
from .boards import Boards
from .errors import UserFacingError
from .lang import language
from .presenter import Name, picture_labels
from .store import GameStore, acting_seat, seat_of
from .tutor import CUBE_WORDS
from .views import Button, View


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
        """The hint for the decision ``record``'s game waits for from ``user``; in an
        unrated game between two people, first the opponent's consent (asked once)."""
        if record.status is not GameStatus.ACTIVE or not record.match:
            raise UserFacingError(t("That game is over."))
        consent = by_consent(record)
        if not (solo_help(record) or consent):
            raise UserFacingError(
                t(
                    "Hints are for games against the computer, games on one keyboard and "
                    "unrated games whose two players allow them; never for rated games, the "
                    "pool or tournaments."
                )
            )
        ctx = self.store.context(record)
        seat = seat_of(record, user, ctx.game)
        if consent:
            state = record.settings.hints or ""
            other = ctx.names[1 - seat]
            if state == HINTS_OFF:
                raise UserFacingError(t("Hints were declined for this game."))
            if state.startswith(HINTS_ASKED):
                asked = int(state.removeprefix(HINTS_ASKED))
                raise UserFacingError(
                    t("Waiting for {name} to allow hints.", name=ctx.names[1 - asked])
                )
            if state != HINTS_ON:
                return [await self._ask(user, chat, record, seat, other)]
        return await self._hint(user, chat, record, seat, announce=consent)

    async def _hint(
        self, user: User, chat: Chat, record: GameRecord, seat: int, *, announce: bool
    ) -> list[View]:
        """The hint itself (``announce``: headed by who used it, for both players to see)."""
        assert record.match is not None
        ctx = self.store.context(record)
        game = ctx.game
        if acting_seat(game) != seat or game.resign_offer is not None:
            raise UserFacingError(t("There is nothing for you to decide just now."))
        hint = await self.advisor.hint(record.match)
        # Announced in the game's chat in its language; else a reply to the one who asked.
        lang = language(user, chat, private=not announce)
        heading: list[Text | str] = []
        if announce:
            heading = [t("💡 {name} used a hint.", name=ctx.names[seat])]
        if hint is None:
            said = t("No choice to make here: any play is as good as another.")
            return [View([*heading, said], lang)]
        image = None
        if isinstance(hint, PlayHint) and self.boards.settings.render_images:
            image = await self.boards.render(
                self._ghost_view(ctx.match, ctx.names, seat, hint, lang)
            )
        lines = [*heading, *hint_lines(hint)]
        return [View(lines, lang=lang, image=image, image_stem=f"hint-{record.id}")]

    async def _ask(
        self, user: User, chat: Chat, record: GameRecord, seat: int, other: Name
    ) -> View:
        """Ask the opponent, once for the game, whether hints may be used in it."""
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.stored_id)
            if fresh is None or fresh.settings.hints is not None:
                raise UserFacingError(t("Hints have just been asked for: look again."))
            fresh.settings = replace(fresh.settings, hints=f"{HINTS_ASKED}{seat}")
            await self.store.save_bookkeeping(tx, fresh)
            await tx.add_events(fresh.stored_id, [("hints", {"asked": seat})])
        assert record.id is not None
        names = self.store.context(record).names
        # No game id: a message of its own, never taken for the game's board.
        buttons = [
            [
                Button(t("Allow hints"), A.encode(record.id, 0, A.HINT_YES)),
                Button(t("No hints"), A.encode(record.id, 0, A.HINT_NO)),
            ]
        ]
        line = t(
            "💡 {name} asks to use hints in this game. {other}, do you allow them? Then both "
            "of you may use them until the game ends, and each hint is announced here.",
            name=names[seat],
            other=other,
        )
        return View([line], lang=language(user, chat, private=False), buttons=buttons)

    async def answer(self, user: User, chat: Chat, record: GameRecord, allow: bool) -> list[View]:
        """The opponent's answer to the question :meth:`_ask` posted: hints on or off for
        the rest of the game; allowed, the one who asked gets the hint they asked for."""
        state = record.settings.hints or ""
        if record.status is not GameStatus.ACTIVE or not state.startswith(HINTS_ASKED):
            raise UserFacingError(t("That question has been answered."))
        asked = int(state.removeprefix(HINTS_ASKED))
        names = self.store.context(record).names
        if record.seats[1 - asked] != user.id:
            raise UserFacingError(t("Only {name} can answer that.", name=names[1 - asked]))
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.stored_id)
            if fresh is None or fresh.settings.hints != state:
                raise UserFacingError(t("That question has been answered."))
            fresh.settings = replace(fresh.settings, hints=HINTS_ON if allow else HINTS_OFF)
            fresh = await self.store.save_bookkeeping(tx, fresh)
            await tx.add_events(fresh.stored_id, [("hints", {"allowed": allow})])
        lang = language(user, chat, private=False)
        said = (
            t(
                "💡 {name} allowed hints in this game: each one is announced here.",
                name=names[1 - asked],
            )
            if allow
            else t("{name} declined hints: none in this game.", name=names[1 - asked])
        )
        views = [View([said], lang=lang, game_id=record.id, edit=True, replace_pressed=True)]
        if allow:
            asker = await self.store.seat_user(fresh, asked)
            # No longer theirs to decide: the next 💡 press gives it.
            with contextlib.suppress(UserFacingError):
                views += await self._hint(asker, chat, fresh, asked, announce=True)
        return views

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
            dice_used=(True,) * 4,  # the whole roll is played: a double's four dice too
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
