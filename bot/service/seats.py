"""Games whose two seats are in two chats (a pool game): each player plays in their own
private chat with the bot, perhaps on another platform than the opponent.

The game is one record, kept and played as any other (its chat is the first seat's); where
each seat plays is stored beside it (``seat_chats``). Whatever the service answers for such
a game, made for one chat, is split here into each seat's copy: the board drawn from that
seat's side, in that player's language and style, edited in place in their chat; the other
messages (the dice commitment, the result) in their language, with no mention (a mention
would carry the platform's user id to a stranger); a message about one seat (a reminder, a
claim offered) to that seat's chat alone. The copy for the player who
asked is the answer; the other's is delivered through the platform's outlet
(:class:`~bot.service.background.Background`), as a view made outside a request is.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import Chat, GameStatus, SeatChat, Storage, User

from . import actions as A
from .background import Background
from .boards import Boards
from .lang import language
from .mentions import Mention
from .presenter import board_view
from .settings import ServiceSettings
from .store import GameStore
from .views import Button, MessageRef, Place, View

#: Games remembered as played in one chat or in two (never changes for a game).
_KNOWN_GAMES = 20_000


def unmentioned(line: Text | str) -> Text | str:
    """``line`` with every mention written as the plain name."""
    if isinstance(line, Text):
        return line.with_args({k: _plain(v) for k, v in line.args.items()})
    return line


def _plain(value: Any) -> Any:
    if isinstance(value, Mention):
        return value.name
    if isinstance(value, Text):
        return unmentioned(value)
    return value


@dataclass(eq=False)
class Seats:
    """Each seat's copy of the views of a game in two chats (the storage, the store and the
    boards that draw each side, the settings, the outlets that deliver the other's)."""

    storage: Storage
    store: GameStore
    boards: Boards
    settings: ServiceSettings
    background: Background
    clock: Callable[[], float]
    _known: OrderedDict[int, bool] = field(default_factory=OrderedDict)

    async def of(self, game_id: int) -> list[SeatChat]:
        """Where each seat of the game plays; [] for a game in one chat."""
        if self._known.get(game_id) is False:
            return []
        seats = await self.storage.pool.seat_chats(game_id)
        self._known[game_id] = bool(seats)
        if len(self._known) > _KNOWN_GAMES:
            self._known.popitem(last=False)
        return seats

    async def plays_in(self, game_id: int, place: Place, user: User) -> bool:
        """Whether ``user`` plays a seat of the game in ``place``."""
        return any(
            s.user_id == user.id and (s.platform, s.chat_id) == (place.platform, place.chat_id)
            for s in await self.of(game_id)
        )

    async def board_shown(
        self,
        game_id: int,
        version: int,
        message: MessageRef | None,
        shown_in: MessageRef | None = None,
    ) -> bool:
        """Record a board shown of a game in two chats: the seat told by the message it was
        posted in (``message``) or edited in (``shown_in``); every seat when neither says.
        False for a game in one chat, which the caller records as usual."""
        seats = await self.of(game_id)
        if not seats:
            return False
        where = message or shown_in
        seat = _seat_of_message(seats, where) if where is not None else None
        if where is not None and seat is None:
            # Two seats in one channel (a Discord server): a board posted there is bound to
            # its seat by the copy's own ``posted`` (see :meth:`_copy`).
            return True
        low = await self.storage.pool.seat_board_shown(
            game_id, seat.seat if seat is not None else None, version, message
        )
        # The game counts as shown when every seat's board is: the deadline rounds redraw
        # the boards of a seat left behind (a crash between the two chats' edits).
        await self.storage.mark_board_shown(game_id, low)
        return True

    async def split(self, views: list[View]) -> dict[int, list[View]] | None:
        """Each seat's copy of ``views`` (seat → views, every one addressed to the seat's
        chat), or None when none of them is about a game in two chats. Views of no such
        game go to nobody; notices (a toast for the one who acted) are left out too."""
        game_ids = {v.game_id for v in views if v.game_id is not None}
        seats_of: dict[int, list[SeatChat]] = {}
        for game_id in game_ids:
            seats = await self.of(game_id)
            if seats:
                seats_of[game_id] = seats
        if not seats_of:
            return None
        out: dict[int, list[View]] = {0: [], 1: []}
        people: dict[int, tuple[User | None, Chat]] = {}
        for view in views:
            these = seats_of.get(view.game_id or -1)
            if these is None or view.notice or view.seat_copy:
                continue
            for seat in these:
                if view.for_seat is not None and view.for_seat != seat.seat:
                    continue
                if seat.seat not in people:
                    people[seat.seat] = (
                        await self.storage.get_user(seat.user_id),
                        await self.storage.get_chat(seat.platform, seat.chat_id),
                    )
                user, chat = people[seat.seat]
                copy = await self._copy(view, seat, user, chat)
                if copy is not None:
                    out[seat.seat].append(copy)
        return out

    async def _copy(self, view: View, seat: SeatChat, user: User | None, chat: Chat) -> View | None:
        lang = language(user, chat)
        where = (seat.platform, seat.chat_id)
        lines = [unmentioned(line) for line in view.lines]
        board = view.board is not None or view.image is not None
        if not (board or view.caption_only or view.keyboard_only or view.version is not None):
            # Posted anew where the seat's board is: a Discord seat's channel is told by it
            # (the game's own board message is not the seat's).
            return replace(
                view,
                lines=lines,
                lang=lang,
                chat=where,
                message=None,
                channel=view.channel or seat.message,
                edit=False,
                seat_copy=True,
            )
        # A board: the seat's own message, drawn from the seat's side.
        image = due = None
        drawn = None
        if board:
            assert view.game_id is not None
            record = await self.storage.get_game(view.game_id)
            if record is None or record.match is None:
                return None
            ctx = self.store.context(record)
            prefs = user.prefs if user is not None else None
            drawn = board_view(
                ctx.match,
                ctx.names,
                viewer=seat.seat,
                theme=(prefs.theme if prefs else None) or self.settings.theme,
                lang=lang,
                home=prefs.home if prefs else "right",
            )
            if view.image is not None or view.picture_due is not None:
                image, due = await self.boards.picture(drawn, seat.platform)
        edit = seat.message is not None and (view.edit or view.repair or view.point)
        # A rematch would be a challenge in one chat: strangers meet again through /play,
        # or never again (the board's Block button).
        buttons = [
            [
                Button(t("🚫 Never pair us again"), A.encode(a.game_id, 0, A.POOL, "k"))
                if (a := A.decode(b.action)) is not None and a.code == A.REMATCH
                else b
                for b in row
            ]
            for row in view.buttons
        ]
        copy = replace(
            view,
            lines=lines,
            lang=lang,
            chat=where,
            buttons=[row for row in buttons if row],
            image=image,
            picture_due=due,
            board=drawn,
            text_board=None,
            message=seat.message,
            channel=seat.message,
            edit=edit,
            point=False,
            seat_copy=True,
        )
        if view.game_id is not None and view.version is not None:
            copy.posted = self._binder(seat, view.version, view.posted)
        return copy

    def _binder(
        self,
        seat: SeatChat,
        version: int,
        then: Callable[[MessageRef], Awaitable[None]] | None,
    ) -> Callable[[MessageRef], Awaitable[None]]:
        """Where a seat's board copy was posted anew, bound to that seat: its board from
        now on (two seats in one channel are not told apart by the channel)."""

        async def posted(ref: MessageRef) -> None:
            await self.storage.pool.seat_board_shown(seat.game_id, seat.seat, version, ref)
            if then is not None:
                await then(ref)

        return posted

    async def others_board(self, game_id: int, user: User, message: MessageRef | None) -> bool:
        """Whether ``message`` is the board of another seat than ``user``'s (two players in
        one channel: each presses their own)."""
        if message is None:
            return False
        return any(
            s.user_id != user.id and s.message is not None and s.message.same_message(message)
            for s in await self.of(game_id)
        )

    async def answer(self, user: User | None, place: Place | None, views: list[View]) -> list[View]:
        """Views answering ``user`` in ``place``: for a game in two chats, the asker's copy
        is returned and the other seat's delivered; views of other games pass as they are.
        Without a seat of the asker here (a page of the web board, a deadline round), every
        copy is delivered and only the notices are returned."""
        split = await self.split(views)
        if split is None:
            return views
        mine: int | None = None
        if user is not None and place is not None:
            for game_id in {v.game_id for v in views if v.game_id is not None}:
                for chair in await self.of(game_id):
                    if chair.user_id == user.id and (chair.platform, chair.chat_id) == (
                        place.platform,
                        place.chat_id,
                    ):
                        mine = chair.seat
        pool_ids = {s.game_id for copies in split.values() for s in copies if s.game_id}
        kept = [v for v in views if v.notice or v.seat_copy or v.game_id not in pool_ids]
        for seat, copies in split.items():
            if seat == mine:
                kept.extend(copies)
            else:  # a checker picked changes only the picker's buttons
                theirs = [c for c in copies if not c.keyboard_only]
                self.deliver(theirs + await self._turn_notice(seat, theirs))
        return kept

    async def addressed(self, views: list[View]) -> list[View]:
        """Views of a deadline round: those of games in two chats replaced by each seat's
        addressed copy (the runner delivers them by their address)."""
        split = await self.split(views)
        if split is None:
            return views
        pool_ids = {s.game_id for copies in split.values() for s in copies if s.game_id}
        kept = [v for v in views if v.seat_copy or v.game_id not in pool_ids]
        for seat, copies in split.items():
            for copy in copies:
                if copy.repair and await self._shows(copy, seat):
                    continue  # this seat's board is up to date: only the other is redrawn
                kept.append(copy)
        return kept

    async def _shows(self, copy: View, seat: int) -> bool:
        """Whether the seat's board shows the version of ``copy`` already."""
        chairs = await self.of(copy.game_id or 0)
        return any(
            c.seat == seat and copy.version is not None and c.shown_version >= copy.version
            for c in chairs
        )

    async def _turn_notice(self, seat: int, copies: list[View]) -> list[View]:
        """A message telling the seat it is their turn in a daily game (a board edit
        notifies nobody), at most once an hour a game."""
        board = next((c for c in copies if c.version is not None and c.game_id), None)
        if board is None or board.game_id is None:
            return []
        record = await self.storage.get_game(board.game_id)
        if record is None or record.status is not GameStatus.ACTIVE or record.settings.fast:
            return []
        game = self.store.context(record).game
        if game.awaiting != seat:
            return []
        now = self.clock()
        player = await self.storage.get_user(record.seats[seat] or 0)
        if player is not None and quiet_now(player.prefs.utc_offset, now):
            return []  # the board says it in the morning; no message in the night
        if not await self.storage.pool.turn_notice(
            board.game_id, seat, now, self.settings.turn_notice_every
        ):
            return []
        names = record.settings.names or ("?", "?")
        # A new message where the seat's board is (its chat and channel), in its language.
        return [
            View(
                [
                    t(
                        "⏰ Your turn in game #{id} against {name}.",
                        id=board.game_id,
                        name=names[1 - seat],
                    )
                ],
                lang=board.lang,
                chat=board.chat,
                channel=board.channel,
                seat_copy=True,
            )
        ]

    def deliver(self, views: list[View]) -> None:
        """Deliver views made for another chat, in order, in the background."""
        if not views:
            return

        async def send() -> None:
            for view in views:
                await self.background.deliver_later(view)

        self.background.spawn(send())


def quiet_now(utc_offset: int | None, now: float) -> bool:
    """Whether it is night (22:00 to 8:00) for a player at ``utc_offset`` hours from UTC;
    never for a player who set no time."""
    if utc_offset is None:
        return False
    hour = int((now / 3600 + utc_offset) % 24)
    return hour >= 22 or hour < 8


def _seat_of_message(seats: list[SeatChat], message: MessageRef) -> SeatChat | None:
    """The seat a board message belongs to: by its message when known, else by its chat or
    channel when only one seat plays there; None when that does not tell."""
    for seat in seats:
        if seat.message is not None and seat.message.same_message(message):
            return seat
    in_chat = [
        s
        for s in seats
        if message.chat_id is not None
        and message.chat_id in (s.chat_id, s.message.channel_id if s.message else None)
    ]
    if len(in_chat) == 1:
        return in_chat[0]
    if in_chat:
        # Two seats in this chat (a Discord server's channel): only the message tells them
        # apart; the one seat already bound there is not thereby the owner of a new message.
        return None
    if message.channel_id is not None:
        in_channel = [
            s for s in seats if s.message is not None and s.message.channel_id == message.channel_id
        ]
        if len(in_channel) == 1:
            return in_channel[0]
    return None


__all__ = ["Seats", "quiet_now", "unmentioned"]
