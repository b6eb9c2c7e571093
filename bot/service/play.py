"""Play: button presses on a game's board, typed moves, resigning, calling off and claiming
a game. What follows each action (the computer's turns, the save, the board) is
:meth:`bot.service.contests.Contests.commit`'s."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.i18n import t
from bot.storage.base import Chat, GameRecord, GameStatus, StaleVersionError, Storage, User
from core.errors import NotationError, NotYourTurnError
from core.game import Phase, ResultKind, ResultReason
from core.match import Match

from . import actions as A
from . import keypad
from .boards import Boards
from .commands import clashing_arguments, resign_usage, unknown_argument
from .contests import Contests
from .errors import UserFacingError
from .lang import language, notice
from .presenter import ABANDONED, CALLED_OFF, VARIANT_NAMES
from .store import ActionContext, GameStore, alone, nobody_to_agree, picture_state, seat_of
from .tournaments import Tournaments
from .tutor import Tutor, anyway_action
from .views import MessageRef, View
from .words import RESIGN_LEVELS, clash, joined

BOARD_REPAIRED = t("That board was behind the game: it now shows the game as it stands.")
BOARD_JUST_CHANGED = t("The board has just changed: look again.")
BOARD_OLD = t("That is an old board: your game goes on in the current one.")
OWN_ROLLS = t("From now on you roll yourself in this game, so you may double first.")


@dataclass(eq=False)
class Play:
    """Presses and moves on a game (the storage and the store, the boards, the contests
    that save each action, the tournaments a match lost on time belongs to, the clock and
    how soon a second press counts as a double press)."""

    storage: Storage
    store: GameStore
    boards: Boards
    contests: Contests
    tournaments: Tournaments
    clock: Callable[[], float]
    #: Seconds after a change within which a second press is a double press.
    double_press: float
    #: Asks before a costly play or cube action, where it watches the player.
    tutor: Tutor | None = None

    async def press(
        self,
        user: User,
        chat: Chat,
        record: GameRecord,
        action: A.Action,
        message: MessageRef | None = None,
    ) -> list[View]:
        """A button of a game's board (``record``, found in this chat by the façade)."""
        if action.code == A.OWN_ROLLS:  # a wish for the whole game, from any board of it
            return await self._own_rolls(user, chat, record, int(action.arg))
        # Saves the board does not show (a reminder, say) leave its buttons valid.
        current = _state_version(record) <= action.version
        elsewhere = (  # pressed on an older board message than the game's board
            message is not None
            and record.message is not None
            and action.code != A.CLAIM
            and not record.message.same_message(message)
        )
        if (elsewhere or not (current and action.version <= record.version)) and (
            record.status in (GameStatus.ACTIVE, GameStatus.FINISHED)
        ):
            return await self._repair_press(user, chat, record, message)
        if record.status is not GameStatus.ACTIVE:
            raise UserFacingError(t("This game is already over."))
        if not current:
            raise StaleVersionError("stale game button")
        if action.code in (A.SELECT, A.BACK):
            return await self._select(user, chat, record, action)
        if action.code == A.CLAIM:
            return await self._claim_record(user, chat, record)
        if action.code == A.ABANDON:
            if not alone(record):
                raise UserFacingError(t("That button is not one of mine."))
            await self._call_off(user, chat, record, seat_of(record, user))
            ended = await self.storage.get_game(record.stored_id)
            assert ended is not None  # the question's board says so, with no buttons now
            return [
                await self.boards.board(
                    self.store.context(ended), chat, edit=True, caption_only=True
                )
            ]
        if action.code in (A.RESIGN_CANCEL, A.TUTOR_BACK):  # "No": the board as it was
            seat_of(record, user)
            return [
                await self.boards.board(
                    self.store.context(record), chat, edit=True, caption_only=True
                )
            ]
        asked = self.tutor is not None and action.code != A.TUTOR_OK
        if action.code == A.TUTOR_OK:  # "Play it anyway": the press the tutor asked about
            action = anyway_action(action)
        play = _GAME_ACTIONS.get(action.code)
        if play is None:
            raise UserFacingError(t("That button is not one of mine."))
        ctx = self.store.context(record)
        if asked and self.tutor is not None:
            seat = seat_of(record, user, ctx.game)
            ctx.question = await self.tutor.question(user, ctx, seat, action)
            if ctx.question is not None:
                return [await self.boards.board(ctx, chat, edit=True, caption_only=True)]
        # What the chat's board picture shows, when it shows the game as it stands (it may
        # lag: a turn played on the web page, an edit still on its way).
        shown = picture_state(ctx.game) if record.shown_version >= record.version else None
        play(ctx, seat_of(record, user, ctx.game), action.arg)
        return await self.contests.commit(ctx, chat, user, shown=shown)

    async def _own_rolls(self, user: User, chat: Chat, record: GameRecord, seat: int) -> list[View]:
        """In a busy chat: ``seat`` rolls themselves from now on in this game, so that they
        may double first. Only answered (a board edit would cost the busy chat a message):
        the button goes at the board's next change."""
        if record.status is not GameStatus.ACTIVE:
            raise UserFacingError(t("This game is already over."))
        if record.seats[seat] != user.id:
            raise UserFacingError(t("That button is for the other player."))
        kept = record.settings.own_rolls or ()
        if seat not in kept:
            async with self.storage.transaction() as tx:
                fresh = await tx.get_game(record.stored_id)
                if fresh is None:
                    raise UserFacingError(t("I can't find that game."))
                own = tuple(sorted({*(fresh.settings.own_rolls or ()), seat}))
                fresh.settings = replace(fresh.settings, own_rolls=own)
                await self.store.save_bookkeeping(tx, fresh)
        return [notice(user, chat, OWN_ROLLS)]

    async def _repair_press(
        self, user: User, chat: Chat, record: GameRecord, pressed: MessageRef | None
    ) -> list[View]:
        """A press on a board behind its game never leaves the player stuck (design.md).

        Pressed on the game's board message (or where none is known): that message is
        redrawn at the game's current state. Pressed on an older message: the player is
        pointed to the current board (which the adapter posts anew if it is gone)."""
        said = BOARD_REPAIRED if record.status is GameStatus.ACTIVE else None
        if record.status is GameStatus.FINISHED:
            said = t("This game is already over.")
        board_message = record.message
        on_board = board_message is None or pressed is None or board_message.same_message(pressed)
        if (
            on_board
            and record.shown_version < record.version
            and self.clock() - record.updated < self.double_press
        ):
            # A double press: the first one's board edit is on its way.
            return [notice(user, chat, BOARD_JUST_CHANGED)]
        view = await self.boards.board(self.store.context(record), chat, edit=True)
        view.repair = True
        if on_board:
            assert said is not None
            return [notice(user, chat, said), view]
        view.point = True
        return [notice(user, chat, BOARD_OLD), view]

    async def _select(
        self, user: User, chat: Chat, record: GameRecord, action: A.Action
    ) -> list[View]:
        """A checker picked (or the pick taken back): its moves are shown by changing the
        keyboard alone; a checker with one move only is moved at once."""
        ctx = self.store.context(record)
        seat = seat_of(record, user, ctx.game)
        game = ctx.game
        if seat != game.awaiting:
            raise NotYourTurnError("It is not your turn")
        if action.code == A.SELECT:
            point = int(action.arg)
            turn = game.current_turn
            if turn is None or not turn.targets(point):
                raise UserFacingError(t("That checker can't move now."))
            only = keypad.select(turn, point)
            if only is not None:
                keypad.make_steps(game, seat, [(s.source, s.dest) for s, _ in only])
                return await self.contests.commit(ctx, chat, user)
            ctx.selected = point
        return [await self.boards.board(ctx, chat, edit=True, keyboard_only=True)]

    # -- typed moves and commands on a game ------------------------------------------

    async def move_command(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/move 13/8 6/5``: a typed move."""
        if not args.strip():
            raise UserFacingError(t("Write the move after /move, for example /move 13/8 6/5"))
        return await self.move(user, chat, args, reply_to_game, quiet=False)

    async def move(
        self, user: User, chat: Chat, text: str, game_id: int | None, *, quiet: bool
    ) -> list[View]:
        """A typed move in the player's game here (or the one replied to); ``quiet``: text that
        is no move is not answered (an ordinary message in a group)."""
        record = await self._find_game(user, chat, game_id)
        if record is None:
            if quiet:
                return []
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self.store.context(record)
        seat = seat_of(record, user, ctx.game)
        game = ctx.game
        if game.phase is Phase.ROLL and seat == game.awaiting:
            if game.may_double(seat):  # T-8: doubling comes before the roll
                raise UserFacingError(
                    t(
                        "Roll the dice first, or double: press 🎲 Roll or Double to {value}.",
                        value=game.cube_value * 2,
                    )
                )
            raise UserFacingError(t("Roll the dice first."))
        if game.phase is Phase.DOUBLED and seat == game.awaiting:
            raise UserFacingError(
                t(
                    "Your opponent doubled to {value}: take or pass first.",
                    value=game.cube_value * 2,
                )
            )
        try:
            game.move_text(seat, text)
        except NotationError:
            if quiet:
                return []  # an ordinary reply in a group chat, not a move
            raise
        return await self.contests.commit(ctx, chat, user)

    async def _find_game(self, user: User, chat: Chat, game_id: int | None) -> GameRecord | None:
        if game_id is not None:
            record = await self.storage.get_game(game_id)
            if record and record.status is GameStatus.ACTIVE and user.id in record.seats:
                return record
            return None
        games = [
            g
            for g in await self.storage.games_in_chat(
                chat.platform, chat.chat_id, (GameStatus.ACTIVE,)
            )
            if user.id in g.seats
        ]
        if not games:
            return None
        # Prefer a game that waits for this player.
        for record in games:
            match = Match.from_dict(record.match or {})
            if match.game and record.seats[match.game.awaiting] == user.id:
                return record
        return games[0]

    async def show_board(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/board``: the player's game's board, posted anew."""
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self.store.context(record)
        board = await self.boards.board(ctx, chat, edit=False)
        # In a game in two chats, the asker's board alone is posted anew.
        board.for_seat = record.seats.index(user.id) if user.id in record.seats else None
        return [board]

    async def resign(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/resign [gammon|backgammon]``: the board asks the player to confirm the resignation
        (one press offers it)."""
        record = await self._find_game(user, chat, reply_to_game)
        ctx = self.store.context(record) if record is not None else None
        variant = ctx.game.variant if ctx is not None else None
        # The usage names only the levels of the game played here (T-9, U-9).
        usage = resign_usage(variant)
        words = joined(args)
        if len(words) > 1 and (pair := clash(args)) is not None:
            raise UserFacingError(clashing_arguments("resign", *pair, usage=usage))
        kind = RESIGN_LEVELS.get(words[0].casefold()) if words else ResultKind.SINGLE
        if kind is None or len(words) > 1:
            raise UserFacingError(unknown_argument("resign", words[-1], usage=usage))
        if record is None or ctx is None:
            raise UserFacingError(t("You have no game here to resign."))
        seat = seat_of(record, user, ctx.game)
        if kind is ResultKind.BACKGAMMON and not ctx.game.variant.backgammons:
            raise UserFacingError(
                t(
                    "There is no backgammon in this game ({game}). {usage}",
                    game=VARIANT_NAMES[ctx.game.variant.name],
                    usage=usage,
                )
            )
        # Asked first: one press ("Yes, resign") offers it. Nothing is saved until then.
        ctx.resigning = (seat, kind)
        return [await self.boards.board(ctx, chat, edit=True)]

    async def abort(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/abort``: ask to call the game off (agreed when both ask; at once against the
        computer; confirmed with one press by the one person who holds both seats)."""
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to abort."))
        if record.settings.tournament:
            raise UserFacingError(
                t("A tournament match can't be called off; the organiser may award it.")
            )
        seat = seat_of(record, user)
        if alone(record):
            # One person holds both seats: nobody else can agree, so the board asks them to
            # confirm (one press calls it off). Nothing is saved until then.
            ctx = self.store.context(record)
            ctx.abandoning = True
            return [await self.boards.board(ctx, chat, edit=True)]
        return await self._call_off(user, chat, record, seat)

    async def _call_off(self, user: User, chat: Chat, record: GameRecord, seat: int) -> list[View]:
        """``seat`` asks to call the game off: agreed at once against the computer, or by
        the one person who holds both seats (confirmed); otherwise when both have asked."""
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.stored_id)
            assert fresh is not None
            if fresh.status is not GameStatus.ACTIVE:
                raise UserFacingError(t("This game is already over."))
            asked = fresh.settings.abort_by
            if nobody_to_agree(fresh) or (asked is not None and asked != seat):
                fresh.status = GameStatus.ABORTED
                fresh.rated = False
                fresh.deadline = None
                # Nobody agreed with a player alone or against the computer: they abandoned it.
                line = ABANDONED if nobody_to_agree(fresh) else CALLED_OFF
            else:
                fresh.settings = replace(fresh.settings, abort_by=seat)
                line = t(
                    "{name} asks to call off the game. The opponent can agree with /abort.",
                    name=user.name,
                )
            await self.store.save_bookkeeping(tx, fresh)
            await tx.add_events(fresh.stored_id, [("abort", {"seat": seat})])
        return [View([line], lang=language(user, chat, private=False), game_id=record.id)]

    async def claim(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/claim``: the game won when the opponent ran out of time."""
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here."))
        return await self._claim_record(user, chat, record)

    async def _claim_record(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        ctx = self.store.context(record)
        seat = seat_of(record, user, ctx.game)
        game = ctx.game
        now = self.clock()
        deadline = record.deadline
        if deadline is None:
            deadline = record.settings.claimable_since
        if deadline is None or now < deadline or game.awaiting == seat:
            raise UserFacingError(
                t("You can claim the game only when your opponent has run out of time.")
            )
        if record.settings.tournament:  # the whole match, as at the deadline (TN-7)
            return await self.tournaments.timed_out(record, now)
        ctx.events.append(("claim", {"seat": seat}))
        game.forfeit(game.awaiting, ResultReason.TIMEOUT)
        return await self.contests.commit(ctx, chat, user)


def _steps(ctx: ActionContext, seat: int, arg: str) -> None:
    """A MOVE button: one checker's step, a checker's run or a whole play (``13-7.7-2``,
    checked by decode), then a rest of the turn that has one way only."""
    keypad.make_steps(ctx.game, seat, keypad.decode_steps(arg))


def _resign_confirmed(ctx: ActionContext, seat: int, arg: str) -> None:
    """ "Yes, resign": the resignation asked about is offered (``arg``: its seat and level,
    checked by decode). Only the player it was asked of can confirm it."""
    asked = int(arg[0])
    if asked != seat:
        raise UserFacingError(t("Only {name} can answer that.", name=ctx.names[asked]))
    ctx.game.resign(seat, RESIGN_LEVELS[arg[1]])


def _undo(ctx: ActionContext, seat: int, _: str) -> None:
    """Take back the whole turn being played, or a move confirmed by itself while the
    opponent has not acted yet."""
    game = ctx.game
    if game.phase is Phase.ROLL:
        game.take_back(seat)
        return
    if game.undo(seat) is None:
        raise UserFacingError(t("There is nothing to take back."))
    while game.undo(seat) is not None:
        pass


#: The presses that act on a game through core, by action code: (context, seat, argument).
_GAME_ACTIONS: dict[str, Callable[[ActionContext, int, str], object]] = {
    A.ROLL: lambda ctx, seat, _: ctx.game.roll(seat, ctx.dice),
    A.DOUBLE: lambda ctx, seat, _: ctx.game.double(seat),
    A.TAKE: lambda ctx, seat, _: ctx.game.take(seat),
    A.DROP: lambda ctx, seat, _: ctx.game.drop(seat),
    A.UNDO: _undo,
    A.CONFIRM: lambda ctx, seat, _: ctx.game.confirm(seat),
    A.RESIGN_ACCEPT: lambda ctx, seat, _: ctx.game.accept_resign(seat),
    A.RESIGN_DECLINE: lambda ctx, seat, _: ctx.game.decline_resign(seat),
    A.RESIGN: _resign_confirmed,
    A.MOVE: _steps,
}


def _state_version(record: GameRecord) -> int:
    """The version of the game's last state change (older stored games: their version)."""
    state = record.settings.state_version
    return record.version if state is None else state
