"""The games as stored: load one into an action, check who may act, save it with its events.

Every state change follows design.md: one transaction loads the game, checks the version the
action was made against, applies the action through core, saves the game with its events and
commits (:meth:`GameStore.save`, inside the transaction
:meth:`bot.service.contests.Contests.commit` opens). Changes the board does not show (a
reminder sent, clocks moved) go through :meth:`GameStore.save_bookkeeping`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.i18n import Text
from bot.storage.base import (
    Chat,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    StaleVersionError,
    Storage,
    User,
)
from core.dice import SeededDice
from core.errors import ErrorCode, NotYourTurnError
from core.game import Game, Phase, ResultKind
from core.match import Match

from .lang import language
from .presenter import Name, computer_name

log = logging.getLogger(__name__)


@dataclass
class ActionContext:
    """One action on one game, inside its transaction."""

    record: GameRecord
    match: Match
    dice: SeededDice
    names: list[Name]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)
    #: How the games that ended during the action ended, when the match goes on: the next
    #: game's board says it under its first line (who resigned, passed or bore off).
    ended: list[Text] = field(default_factory=list)
    selected: int | None = None
    #: A resignation asked for and not yet confirmed (seat, level): the board asks to.
    resigning: tuple[int, ResultKind] | None = None
    #: /abort asked in a game against oneself, not yet confirmed: the board asks to.
    abandoning: bool = False
    finished: bool = False
    #: The seats' own settings, once loaded (:meth:`GameStore.prefs`).
    prefs: tuple[PlayerPrefs, PlayerPrefs] | None = None
    #: A question the board asks before the action is made (the tutor's): its lines and
    #: the buttons that answer it, in place of the game's.
    question: tuple[list[Any], list[list[Any]]] | None = None
    #: The players' and the challenger's users by id, once loaded (:meth:`GameStore.players`).
    users: dict[int, User] | None = None
    #: A guided game's moments first come up in this action, told with its answer
    #: (:mod:`bot.service.lessons`).
    taught: list[Any] = field(default_factory=list)

    @property
    def game(self) -> Game:
        assert self.match.game is not None
        return self.match.game


def alone(record: GameRecord) -> bool:
    """Whether one person holds both seats of ``record`` (a game against oneself)."""
    return record.seats[0] is not None and record.seats[0] == record.seats[1]


def nobody_to_agree(record: GameRecord) -> bool:
    """Whether calling ``record`` off needs nobody else's word: one person holds both seats,
    or the other seat is the computer's. Such a game is abandoned, not agreed."""
    return alone(record) or record.settings.computer is not None


def acting_seat(game: Game) -> int:
    """The seat whose answer the game waits for: the other side of a resignation offered,
    else the seat to act (the taker of a double, the player on roll)."""
    if game.resign_offer is not None:
        return 1 - game.resign_offer[0]
    return game.awaiting


def picture_state(game: Game) -> tuple[Any, ...]:
    """What a board picture shows that matters to the players: the checkers, the cube and
    the rolls made (not the dice put away when a move is confirmed). Only a change here is
    worth drawing and uploading a new picture."""
    position = game.position(0)
    rolls = sum(1 for event in game.history if event["type"] == "roll")
    return (
        position.mover,
        position.opponent,
        rolls,
        game.cube_value,
        game.cube_owner,
        game.phase is Phase.DOUBLED,
        game.over,
    )


def seat_of(record: GameRecord, user: User, game: Game | None = None) -> int:
    """The seat ``user`` acts for in ``record``; a refusal for someone who does not play in
    it. In a game against oneself (both seats theirs) that is the seat ``game`` waits for
    (:func:`acting_seat`); without ``game``, their first seat."""
    if user.id not in record.seats:
        raise NotYourTurnError("You are not a player in this game", ErrorCode.NOT_A_PLAYER)
    if game is not None and alone(record):
        return acting_seat(game)
    return record.seats.index(user.id)


def seat_names(record: GameRecord, unknown: tuple[str, str] = ("?", "?")) -> list[Name]:
    """The players' names as shown, seat by seat: the computer's is translated where it is
    read, its level in the reader's words (the stored name has the English word)."""
    names: list[Name] = list(record.settings.names or unknown)
    seat = record.settings.computer
    if seat is not None and 0 <= seat < len(names):
        names[seat] = computer_name(record.settings.level)
    return names


class GameStore:
    """Games loaded into actions and saved from them (the storage, the clock)."""

    def __init__(self, storage: Storage, clock: Callable[[], float]) -> None:
        self.storage = storage
        self.clock = clock

    def context(self, record: GameRecord) -> ActionContext:
        """An action on the stored game ``record``: its match and dice as they stand."""
        match = Match.from_dict(record.match or {})
        return ActionContext(record, match, SeededDice.from_dict(record.dice), seat_names(record))

    async def seat_user(self, record: GameRecord, seat: int) -> User:
        """The person on ``seat``."""
        user_id = record.seats[seat]
        user = await self.storage.get_user(user_id) if user_id is not None else None
        assert user is not None
        return user

    async def players(self, ctx: ActionContext) -> dict[int, User]:
        """The users of both seats and of the challenger (whose language a group without
        one of its own speaks), loaded once per action in one query."""
        if ctx.users is None:
            record = ctx.record
            ids = {user_id for user_id in record.seats if user_id is not None}
            ctx.users = await self.storage.get_users({*ids, record.challenger})
        return ctx.users

    async def prefs(self, ctx: ActionContext) -> tuple[PlayerPrefs, PlayerPrefs]:
        """The two seats' own settings (the computer's are the defaults), loaded once."""
        if ctx.prefs is None:
            users = await self.players(ctx)
            found = []
            for user_id in ctx.record.seats:
                user = users.get(user_id) if user_id is not None else None
                found.append(user.prefs if user is not None else PlayerPrefs())
            ctx.prefs = (found[0], found[1])
        return ctx.prefs

    async def game_lang(self, record: GameRecord, chat: Chat) -> str:
        """The language of what the bot posts about a game in its chat."""
        if chat.lang:  # a group's own language wins; no need to look up the challenger
            return chat.lang
        user = await self.storage.get_user(record.challenger)
        return language(user, chat, private=False)

    async def save(self, tx: Any, ctx: ActionContext) -> GameRecord:
        """Write the action's match and dice over the version it was made against (inside
        ``tx``; :class:`StaleVersionError` when someone acted first)."""
        record = ctx.record
        expected = record.version
        record.match = ctx.match.to_dict()
        record.dice = ctx.dice.to_dict()
        record.updated = self.clock()
        record.settings = replace(record.settings, state_version=expected + 1)
        return await tx.save_game(record, expected)

    async def save_bookkeeping(self, tx: Any, record: GameRecord) -> GameRecord:
        """Save a change the board does not show (a reminder sent, a claim offered, clocks
        moved): the board's buttons stay valid (``state_version``), and a board that was up
        to date stays so rather than counting as lagging."""
        shown = record.shown_version >= record.version
        before = record.version
        if record.settings.state_version is None:
            record.settings = replace(record.settings, state_version=record.version)
        saved = await tx.save_game(record, record.version)
        assert saved.id is not None
        # A game in two chats: each seat's board that was up to date stays so.
        seats = await self.storage.pool.bookkeeping_shown(saved.id, before, saved.version)
        if seats is not None:
            await self.storage.mark_board_shown(saved.id, seats)
        elif shown:
            await self.storage.mark_board_shown(saved.id, saved.version)
        return saved

    async def resume(self, chat: Chat) -> None:
        """Unpause the chat; its games' clocks restart where they stood."""
        paused, now = chat.paused, self.clock()
        chat.paused = None
        await self.storage.set_chat_paused(chat.platform, chat.chat_id, None)
        if paused is None:
            return
        for record in await self.storage.games_in_chat(
            chat.platform, chat.chat_id, (GameStatus.ACTIVE,)
        ):
            if record.deadline is None:
                continue
            try:
                async with self.storage.transaction() as tx:
                    fresh = await tx.get_game(record.stored_id)
                    if fresh is None or fresh.deadline is None:
                        continue
                    fresh.deadline += max(0.0, now - paused)
                    await self.save_bookkeeping(tx, fresh)
            except StaleVersionError:
                continue
        log.info("chat %s:%s is reachable again", chat.platform, chat.chat_id)
