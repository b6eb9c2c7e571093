"""Play: button presses, typed moves, resigning, calling off and claiming a game, and the
computer's turns after every action."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.i18n import t
from bot.storage.base import Chat, GameRecord, GameStatus, PlayerPrefs, StaleVersionError, User
from core.ai.cube import CubeState
from core.ai.resign import accepts_resignation
from core.errors import NotationError, NotYourTurnError
from core.game import Phase, ResultKind, ResultReason
from core.match import Match

from . import actions as A
from . import keypad
from .autoplay import play_automatic
from .base import ActionContext, ServiceBase, UserFacingError, alone, picture_state
from .commands import unknown_argument
from .presenter import result_line
from .views import MessageRef, Place, View
from .words import RESIGN_LEVELS

BOARD_REPAIRED = t("That board was behind the game: it now shows the game as it stands.")
BOARD_JUST_CHANGED = t("The board has just changed: look again.")
BOARD_OLD = t("That is an old board: your game goes on in the current one.")


class PlayMixin(ServiceBase):
    """Presses and moves on a game, and what follows each action."""

    # -- presses ---------------------------------------------------------------------

    async def _press(
        self,
        user: User,
        chat: Chat,
        place: Place,
        action: A.Action,
        message: MessageRef | None = None,
    ) -> list[View]:
        if action.code == A.SETTING:
            return await self._setting(user, chat, place, action.arg, message)
        record = await self.storage.get_game(action.game_id)
        if record is None or record.platform != place.platform or record.chat_id != place.chat_id:
            raise UserFacingError(t("I can't find that game."))
        if action.code in (A.ACCEPT, A.DECLINE):
            if record.status is not GameStatus.CHALLENGE:
                raise UserFacingError(t("This challenge is no longer open."))
            if action.version != record.version:
                raise StaleVersionError("stale challenge button")
            if action.code == A.ACCEPT:
                return await self._accept(user, chat, record)
            return await self._decline(user, chat, record)
        if action.code == A.REMATCH:
            return await self._rematch(user, chat, place, record)
        if action.code == A.ANALYSE:
            return await self._analyse_press(user, chat, place, record)
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
        if action.code == A.RESIGN_CANCEL:  # "No": the board as it was, for either player
            self._seat(record, user)
            return [await self._board(self._context(record), chat, edit=True, caption_only=True)]
        play = _GAME_ACTIONS.get(action.code)
        if play is None:
            raise UserFacingError(t("That button is not one of mine."))
        ctx = self._context(record)
        # What the chat's board picture shows, when it shows the game as it stands (it may
        # lag: a turn played on the web page, an edit still on its way).
        shown = picture_state(ctx.game) if record.shown_version >= record.version else None
        play(ctx, self._seat(record, user, ctx.game), action.arg)
        return await self._commit(ctx, chat, user, shown=shown)

    async def _repair_press(
        self, user: User, chat: Chat, record: GameRecord, pressed: MessageRef | None
    ) -> list[View]:
        """A press on a board behind its game never leaves the player stuck (design.md).

        Pressed on the game's board message (or where none is known): that message is
        redrawn at the game's current state. Pressed on an older message: the player is
        pointed to the current board (which the adapter posts anew if it is gone)."""
        notice = BOARD_REPAIRED if record.status is GameStatus.ACTIVE else None
        if record.status is GameStatus.FINISHED:
            notice = t("This game is already over.")
        board_message = record.message
        on_board = board_message is None or pressed is None or board_message.same_message(pressed)
        if (
            on_board
            and record.shown_version < record.version
            and self.clock() - record.updated < self.settings.double_press
        ):
            # A double press: the first one's board edit is on its way.
            return [self._notice(user, chat, BOARD_JUST_CHANGED)]
        view = await self._board(self._context(record), chat, edit=True)
        view.repair = True
        if on_board:
            assert notice is not None
            return [self._notice(user, chat, notice), view]
        view.point = True
        return [self._notice(user, chat, BOARD_OLD), view]

    async def _select(
        self, user: User, chat: Chat, record: GameRecord, action: A.Action
    ) -> list[View]:
        """A checker picked (or the pick taken back): its moves are shown by changing the
        keyboard alone; a checker with one move only is moved at once."""
        ctx = self._context(record)
        seat = self._seat(record, user, ctx.game)
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
                return await self._commit(ctx, chat, user)
            ctx.selected = point
        return [await self._board(ctx, chat, edit=True, keyboard_only=True)]

    # -- typed moves and commands on a game ------------------------------------------

    async def _move_command(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        if not args.strip():
            raise UserFacingError(t("Write the move after /move, for example /move 13/8 6/5"))
        return await self._move(user, chat, args, reply_to_game, quiet=False)

    async def _move(
        self, user: User, chat: Chat, text: str, game_id: int | None, *, quiet: bool
    ) -> list[View]:
        record = await self._find_game(user, chat, game_id)
        if record is None:
            if quiet:
                return []
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self._context(record)
        seat = self._seat(record, user, ctx.game)
        game = ctx.game
        if game.phase is Phase.ROLL and seat == game.awaiting:
            raise UserFacingError(t("Roll the dice first."))
        try:
            game.move_text(seat, text)
        except NotationError:
            if quiet:
                return []  # an ordinary reply in a group chat, not a move
            raise
        return await self._commit(ctx, chat, user)

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

    async def _show_board(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        ctx = self._context(record)
        return [await self._board(ctx, chat, edit=False)]

    async def _resign(
        self, *, user: User, chat: Chat, args: str, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        words = args.split()
        kind = RESIGN_LEVELS.get(words[0].casefold()) if words else ResultKind.SINGLE
        if kind is None or len(words) > 1:
            raise UserFacingError(unknown_argument("resign", words[-1]))
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to resign."))
        ctx = self._context(record)
        seat = self._seat(record, user, ctx.game)
        if kind is ResultKind.BACKGAMMON and not ctx.game.variant.backgammons:
            raise UserFacingError(t("That resignation level does not exist in this game."))
        # Asked first: one press ("Yes, resign") offers it. Nothing is saved until then.
        ctx.resigning = (seat, kind)
        return [await self._board(ctx, chat, edit=True)]

    async def _abort(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here to abort."))
        if record.settings.tournament:
            raise UserFacingError(
                t("A tournament match can't be called off; the organiser may award it.")
            )
        seat = self._seat(record, user)
        async with self.storage.transaction() as tx:
            fresh = await tx.get_game(record.stored_id)
            assert fresh is not None
            asked = fresh.settings.abort_by
            # Against the computer, or oneself, both sides agree at once.
            if fresh.settings.computer or alone(fresh) or (asked is not None and asked != seat):
                fresh.status = GameStatus.ABORTED
                fresh.rated = False
                fresh.deadline = None
                line = t("The game was called off by agreement. It is not rated.")
            else:
                fresh.settings = replace(fresh.settings, abort_by=seat)
                line = t(
                    "{name} asks to call off the game. The opponent can agree with /abort.",
                    name=user.name,
                )
            await self._save_bookkeeping(tx, fresh)
            await tx.add_events(fresh.stored_id, [("abort", {"seat": seat})])
        return [View([line], lang=self._lang(user, chat, private=False), game_id=record.id)]

    async def _claim(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        record = await self._find_game(user, chat, reply_to_game)
        if record is None:
            raise UserFacingError(t("You have no game here."))
        return await self._claim_record(user, chat, record)

    async def _claim_record(self, user: User, chat: Chat, record: GameRecord) -> list[View]:
        ctx = self._context(record)
        seat = self._seat(record, user, ctx.game)
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
        return await self._commit(ctx, chat, user)

    # -- after every action ----------------------------------------------------------

    async def _after_action_off_loop(self, ctx: ActionContext) -> None:
        """:meth:`_after_action`, in a thread when the computer may think there (between
        two people it takes microseconds, less than the hop to a thread)."""
        await self._prefs(ctx)  # the rolls and confirmations the players leave to the bot
        if ctx.record.settings.computer:
            await asyncio.to_thread(self._after_action, ctx)
        else:
            self._after_action(ctx)

    def _after_action(self, ctx: ActionContext) -> None:
        """Let the computer act, move on to the next game, log core's events, set deadlines.

        ``settings.logged`` remembers how far core's history of the current game has
        been copied into the event log, so every event is logged exactly once.
        """
        match, record = ctx.match, ctx.record
        number, count = record.settings.logged or (0, 0)
        computer = record.settings.computer
        humans = [seat for seat in (0, 1) if seat != computer]
        prefs = ctx.prefs or (PlayerPrefs(), PlayerPrefs())
        while True:
            game = ctx.game
            self._computer_turns(ctx)
            # Rolls with no choice, and the players' "by itself" settings; each may hand
            # the turn to the computer again.
            while play_automatic(game, ctx.dice, prefs, humans):
                self._computer_turns(ctx)
            current = len(match.results)
            first = count if current == number else 0
            if not game.over:
                break
            ctx.events.extend(("core", {"game": current, **e}) for e in game.history[first:])
            match.record_game()
            number, count = current + 1, 0
            if match.over:
                ctx.finished = True
                record.status = GameStatus.FINISHED
                record.deadline = None
                return
            ctx.ended.append(result_line(game, ctx.names))
            match.start_game(ctx.dice)
        game = ctx.game
        number = len(match.results)
        ctx.events.extend(("core", {"game": number, **e}) for e in game.history[first:])
        record.settings = replace(record.settings, logged=(number, len(game.history)))
        fast = record.settings.fast
        limit = self.settings.fast_turn_limit if fast else self.settings.turn_limit
        # Nobody waits for a player who plays both sides: no clock, no claim.
        record.deadline = None if alone(record) else self.clock() + limit
        record.reminded = False
        record.settings = replace(record.settings, claimable_since=None, abort_by=None)

    @staticmethod
    def _answer_resignation(ctx: ActionContext, seat: int) -> None:
        """The computer at ``seat`` accepts the resignation if it gives at least what
        playing on is worth to it (:func:`core.ai.resign.accepts_resignation`). Games
        against the computer are matches (1 point or more), never money play, so the
        Jacoby rule never applies here."""
        game, match = ctx.game, ctx.match
        _, points = game.resign_result()
        needed = None if match.money else match.length - int(match.score[seat])
        if accepts_resignation(
            game.variant,
            game.position(seat),
            points // game.cube_value,
            on_roll=game.turn == seat,
            needed=needed,
            cube=game.cube_value,
        ):
            game.accept_resign(seat)
        else:
            game.decline_resign(seat)

    def _computer_turns(self, ctx: ActionContext) -> None:
        """Play every action that waits for the computer seat, if there is one."""
        if not ctx.record.settings.computer:
            return
        seat = ctx.record.settings.computer
        player = self.computer(ctx.record.variant, ctx.record.settings.level or "club")
        game = ctx.game
        for _ in range(1000):  # a bound, not a limit anyone reaches
            if game.over:
                return
            # A resignation may be offered on the offerer's own turn; the computer answers
            # it at once, or the player would wait for an answer that never came.
            if game.resign_offer and game.resign_offer[0] != seat:
                self._answer_resignation(ctx, seat)
            elif game.awaiting != seat:
                return
            elif game.phase is Phase.DOUBLED:
                cube = CubeState.from_game(game, seat, ctx.match)
                if player.should_take(game.variant, game.position(seat), cube):
                    game.take(seat)
                else:
                    game.drop(seat)
            elif game.phase is Phase.ROLL:
                if game.may_double(seat) and player.should_double(
                    game.variant, game.position(seat), CubeState.from_game(game, seat, ctx.match)
                ):
                    game.double(seat)
                else:
                    game.roll(seat, ctx.dice)
            elif game.phase is Phase.MOVE:
                game.play(
                    seat, player.choose_play(game.variant, game.position(seat), game.legal_plays())
                )


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
