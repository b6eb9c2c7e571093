"""A game's board as a view: its caption, its buttons and its picture.

Pictures are drawn off the event loop (a drawing process pool, or one thread of this
process) and kept by what they show (:class:`renderers.picture.PictureCache`), so a board
drawn once is never drawn again. A caller that sends the views itself may have the pictures
left to it (:data:`DRAW_LATER`): it answers a press first and draws only the boards it sends.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import replace

from bot import metrics
from bot.drawing import DrawingPool
from bot.storage.base import Chat, GameRecord, GameStatus
from renderers.picture import PNG, PictureCache, picture_key, render_picture, warm_up
from renderers.view import BoardView

from .advice import hint_button
from .autoplay import BUSY
from .keypad import DEFAULT_LIMITS
from .lang import language
from .presenter import (
    ABANDON_QUESTION,
    ABANDONED,
    CALLED_OFF,
    abandon_buttons,
    board_view,
    caption,
    finished_buttons,
    game_buttons,
    own_roll_buttons,
    resign_buttons,
    resign_question,
    shown_seat,
)
from .settings import ServiceSettings
from .store import ActionContext, GameStore, nobody_to_agree
from .views import Button, View, buttons_later

#: Set while the service answers a caller that draws the board pictures itself when it
#: sends them (GameService.press with ``draw=False``): boards then come with their picture
#: due (``View.picture_due``) instead of drawn.
DRAW_LATER: ContextVar[bool] = ContextVar("tavla_draw_later", default=False)


class Boards:
    """Board views and their pictures (the settings, the store for the players' own
    settings, the drawing pool and the picture cache)."""

    def __init__(self, settings: ServiceSettings, store: GameStore) -> None:
        self.settings = settings
        self.store = store
        self._pictures = PictureCache(settings.picture_cache_bytes)
        self._render_pool: DrawingPool | None = None
        if settings.render_processes > 0 and DrawingPool.supported:
            self._render_pool = DrawingPool(settings.render_processes)
        #: Without drawing processes, pictures are drawn on this one thread: fonts are loaded
        #: per thread, so the kept text masks and measures serve every picture only when
        #: one thread draws them all (asyncio's default pool spread them over several).
        self._render_thread: ThreadPoolExecutor | None = None

    def close(self) -> None:
        """Stop the drawing processes or the drawing thread, if any."""
        if self._render_pool is not None:
            self._render_pool.close()
            self._render_pool = None
        if self._render_thread is not None:
            self._render_thread.shutdown(wait=False)
            self._render_thread = None

    def _thread(self) -> ThreadPoolExecutor:
        if self._render_thread is None:
            self._render_thread = ThreadPoolExecutor(1, thread_name_prefix="tavla-draw")
        return self._render_thread

    def warm(self) -> Future[None] | None:
        """Without drawing processes (which load their fonts as they start): the drawing
        thread loads the fonts and pieces now, before a first player's board waits for
        them; its future (None with drawing processes)."""
        if self._render_pool is not None:
            return None
        return self._thread().submit(warm_up, self.settings.theme)

    async def render(self, view: BoardView, fmt: str = PNG) -> bytes:
        """The board picture as ``fmt``: from the cache, or drawn off the event loop."""
        key = picture_key(view, fmt)
        image = self._pictures.get(key)
        if image is None:
            started = time.perf_counter()
            if self._render_pool is None:
                loop = asyncio.get_running_loop()
                image = await loop.run_in_executor(self._thread(), render_picture, view, fmt)
            else:
                image = await self._render_pool.draw(view, fmt)
            metrics.DRAWING_SECONDS.observe(time.perf_counter() - started)
            self._pictures.put(key, image)
        return image

    async def picture(self, view: BoardView, platform: str) -> tuple[bytes | None, str | None]:
        """The board's picture for ``platform``, and None; or, while :data:`DRAW_LATER` is
        set, None and the format it is due in."""
        fmt = self.settings.picture_formats.get(platform, PNG)
        if DRAW_LATER.get():
            return None, fmt
        return await self.render(view, fmt), None

    async def drawn(self, view: View) -> View:
        """``view`` with its due picture drawn (``View.picture_due``), in place."""
        if view.picture_due is not None and view.board is not None:
            view.image = await self.render(view.board, view.picture_due)
            view.picture_due = None
        return view

    async def board(
        self,
        ctx: ActionContext,
        chat: Chat,
        *,
        edit: bool,
        keyboard_only: bool = False,
        caption_only: bool = False,
    ) -> View:
        """The game's board. ``keyboard_only``: only the buttons changed (a checker picked);
        ``caption_only``: the text and buttons changed but no checker moved, no dice were
        rolled and the cube did not turn. Either way no picture is drawn: the adapter keeps
        the board's picture and changes the rest."""
        record, match = ctx.record, ctx.match
        assert record.id is not None
        game = match.game
        assert game is not None
        lang = language(
            None if chat.lang else (await self.store.players(ctx)).get(record.challenger),
            chat,
            private=False,
        )
        head = caption(match, ctx.names, record.variant)
        lines = [*head[:1], *ctx.ended, *head[1:], *ctx.notes]
        if record.status is GameStatus.ABORTED:  # nobody is to play: how it ended instead
            lines = [*head[:1], ABANDONED if nobody_to_agree(record) else CALLED_OFF]
        limits = self.settings.keypad.get(chat.platform, DEFAULT_LIMITS)
        game_id, version, selected, names = record.id, record.version, ctx.selected, ctx.names
        hint = hint_button(record) and record.status is GameStatus.ACTIVE
        humans: list[int] | None = None
        if BUSY.get() and record.status is GameStatus.ACTIVE and not game.over:
            # The bot rolls for everyone in a busy chat: who wants the cube asks for it.
            kept = record.settings.own_rolls or ()
            humans = [s for s in (0, 1) if s != record.settings.computer and s not in kept]

        def keypad() -> list[list[Button]]:
            rows = game_buttons(game_id, version, game, selected, limits, hint=hint)
            if humans is not None:
                rows = [*rows, *own_roll_buttons(game_id, version, game, names, humans)]
            return rows

        # None: the game's keypad, laid out only if the view's buttons are read.
        buttons: list[list[Button]] | None = [] if record.status is GameStatus.ABORTED else None
        if record.status is GameStatus.FINISHED:
            buttons = finished_buttons(record.id, record.version)
        elif ctx.question is not None:
            asked, buttons = ctx.question
            lines.extend(asked)
        elif ctx.resigning is not None:
            seat, kind = ctx.resigning
            lines.append(resign_question(ctx.names, seat, kind))
            buttons = resign_buttons(record.id, record.version, seat, kind)
        elif ctx.abandoning:
            lines.append(ABANDON_QUESTION)
            buttons = abandon_buttons(record.id, record.version)
        # The board is drawn from the side of the seat to act (once the game is over, the
        # side it was last seen from), in that player's own style.
        seat = shown_seat(game, record.settings.computer)
        viewer = (await self.store.prefs(ctx))[seat]
        view = board_view(
            match,
            ctx.names,
            viewer=seat,
            selected=ctx.selected,
            theme=viewer.theme or self.settings.theme,
            lang=lang,
            home=viewer.home,
        )
        if record.status is GameStatus.ABORTED:
            # Called off: nobody is to move, and the roll left is never played.
            view = replace(view, to_move=None, dice=(), dice_used=(), dice_color=None)
        image = due = None
        if self.settings.render_images and not (keyboard_only or caption_only):
            image, due = await self.picture(view, chat.platform)
        shown = View(
            lines,
            lang=lang,
            image=image,
            picture_due=due,
            buttons=buttons or [],
            game_id=record.id,
            edit=edit,
            message=record.message,
            board=view,
            version=record.version,
            keyboard_only=keyboard_only,
            caption_only=caption_only,
        )
        return shown if buttons is not None else buttons_later(shown, keypad)

    async def boards_of(self, chat: Chat, records: list[GameRecord]) -> list[View]:
        """The boards of these games, shown again (after a move or a pause): edited where
        the message is known, posted anew where it is not."""
        views = []
        for record in records:
            view = await self.board(
                self.store.context(record), chat, edit=record.message is not None
            )
            view.chat = (chat.platform, chat.chat_id)
            views.append(view)
        return views
