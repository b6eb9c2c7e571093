"""The console adapter: play in a terminal, with no chat platform and no token.

It is a chat of its own through the same game service as Telegram and Discord. You play the
computer (``/bot``) or both sides on one keyboard (``/tavla``, ``/uzun``): the console always
acts as the player the game waits for. Boards are printed as text and their pictures written
to a folder. Buttons are listed with numbers: type the number to press one; type a move such
as ``13/8 6/5`` to play it; ``/help`` lists the commands. The numbers press the buttons of
the newest message that has them; when messages without buttons came after it, a number
first lists those buttons again and says whose they are.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

from bot.i18n import Text, t, translate, translate_lines
from bot.service.commands import find_command
from bot.service.numbers import parse_number
from bot.service.runner import DeadlineRunner
from bot.service.service import GameService
from bot.service.views import Actor, Button, GameStatus, MessageRef, Place, View

log = logging.getLogger(__name__)

PLATFORM = "console"
# Third-person names: the texts say "{name} wants to play…" (a "You" read "You wants…").
PLAYERS = (Actor(PLATFORM, "1", "Ali"), Actor(PLATFORM, "2", "Veli"))
PLACE = Place(PLATFORM, "local", private=True, title="Console")
#: The commands that start a game of both sides on this keyboard.
HOT_SEAT = ("tavla", "uzun", "nardy")


class ConsoleAdapter:
    """Reads lines, calls the service, prints its views."""

    def __init__(
        self,
        service: GameService,
        *,
        board_dir: Path,
        out: TextIO = sys.stdout,
        lang: str = "en",
        web_links: Callable[[int], Awaitable[list[tuple[str, str]]]] | None = None,
    ) -> None:
        self.service = service
        #: The web board's links of a game, printed once per game when the board is served.
        self.web_links = web_links
        self._linked: int | None = None
        self.board_dir = board_dir
        self.out = out
        self.lang = lang
        self.buttons: list[Button] = []
        #: Whether the numbered buttons are on the newest message printed; when not, a
        #: number first says which message's buttons the numbers press.
        self._fresh = True
        #: The game whose board holds the numbered buttons (None: another message).
        self._owner: int | None = None
        self._buttons_lang = lang
        self.game_id: int | None = None
        self._posted: set[asyncio.Future[None]] = set()
        self._shown = 0  # views printed: the console's message numbers
        #: Deadline rounds run after every line typed (the console has no clock of its own).
        self.deadlines = DeadlineRunner(service)
        self.deadlines.serve(PLATFORM, self._show_one)

    def follow_web(self) -> None:
        """Print the board after each turn finished on the web board's page, as a chat's
        board is edited after one, so the terminal follows a game played there (when
        ``python -m bot`` serves the page)."""
        from bot.web import relay  # only with the web board served

        async def show(views: list[View], _chat_id: str) -> None:
            await self.show(views)

        relay.register(PLATFORM, show)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def tell(self, text: Text, lang: str) -> None:
        """Print one of the console's own messages in the player's language."""
        self.say(translate(text, lang))

    async def language(self, actor: Actor | None = None) -> str:
        """The language the player at the keyboard chose with ``/lang``."""
        return await self.service.language_of(actor or PLAYERS[0], PLACE)

    async def actor(self) -> Actor:
        """The local player the current game waits for, else the first one. Hot-seat games
        have the first player in both seats; those started by earlier versions had the
        second one in the other seat, and go on with it."""
        if self.game_id is not None:
            awaited = await self.service.player_to_act(self.game_id)
            for player in PLAYERS:
                if player.user_id == awaited:
                    return player
        return PLAYERS[0]

    async def handle(self, line: str) -> None:
        """One line typed by the player."""
        line = line.strip()
        if not line:
            return
        actor = await self.actor()
        if line.isdigit() and self.buttons:
            number = parse_number(line, 1, len(self.buttons))
            if number is None:
                self.tell(t("Choose 1 to {n}.", n=len(self.buttons)), await self.language(actor))
                return
            if not self._fresh:
                # Messages without buttons came since: say whose buttons the numbers press
                # rather than press one the player may have forgotten (an old Rematch).
                lang = await self.language(actor)
                if self._owner is not None:
                    owner = t(
                        "The numbers are the buttons of the board of game {id} above:",
                        id=self._owner,
                    )
                else:
                    owner = t("The numbers are the buttons of the message above:")
                self.tell(owner, lang)
                self._list_buttons()
                self.tell(t("Type the number again to press it."), lang)
                self._fresh = True
                return
            views = await self.service.press(actor, PLACE, self.buttons[number - 1].action)
        elif line.startswith("/"):
            name, _, args = line[1:].partition(" ")
            spec = find_command(name)
            if spec is not None and spec.name in HOT_SEAT:
                # One person at the keyboard plays both sides: both seats are theirs, so the
                # game is never rated and every answer (a resignation, an abort) is theirs.
                sides = (PLAYERS[0].name, PLAYERS[1].name)
                views = await self.service.hot_seat(PLAYERS[0], PLACE, name, args, sides=sides)
            else:
                # /analyse takes a finished game: the one on screen, going on, is not one.
                analyse = spec is not None and spec.name == "analyse"
                on_screen = None if analyse else await self._on_screen()
                views = await self.service.command(
                    actor, PLACE, name, args, reply_to_game=on_screen
                )
                if spec is not None and spec.name == "abort":
                    views += await self._other_agrees(actor)
        else:
            # Typed text goes to the game on screen while it goes on (a move), else to what
            # the service finds: a puzzle shown since, or the player's game still going.
            on_screen = await self._on_screen()
            views = await self.service.text(actor, PLACE, line, reply_to_game=on_screen)
            if not views:
                self.tell(t("Nothing to do with that. Type /help."), await self.language(actor))
        await self.show(views)
        if line.startswith("/") and not any(view.buttons for view in views):
            self._fresh = False  # a command answered without buttons: they are further up
        if self.web_links and self.game_id is not None and self.game_id != self._linked:
            self._linked = self.game_id
            lang = await self.language(actor)
            for name, url in await self.web_links(self.game_id):
                if name:
                    self.tell(t("Web board for {name}: {url}", name=name, url=url), lang)
                else:
                    self.tell(t("Web board to watch: {url}", url=url), lang)

    async def _on_screen(self) -> int | None:
        """The game whose board was printed last while it goes on: a command acts on it, as
        a chat's command replying to that board does (the keyboard may hold several games,
        and the service's own choice could be an older one). None once it is over: the
        service then finds the player's game still going, or the last one finished."""
        if self.game_id is None:
            return None
        record = await self.service.game_record(self.game_id)
        if record is None or record.status is not GameStatus.ACTIVE:
            return None
        return self.game_id

    async def _other_agrees(self, actor: Actor) -> list[View]:
        """A hot-seat game started by an earlier version has the two local players in its
        seats: an abort asked by one is agreed by the other at once."""
        if self.game_id is None:
            return []
        record = await self.service.game_record(self.game_id)
        if (
            record is None
            or record.status is not GameStatus.ACTIVE
            or record.settings.abort_by is None
        ):
            return []
        other = PLAYERS[1] if actor == PLAYERS[0] else PLAYERS[0]
        return await self.service.command(other, PLACE, "abort", "", reply_to_game=self.game_id)

    async def show(self, views: list[View]) -> None:
        """Print ``views`` and confirm each board printed, as a chat adapter confirms a board
        on screen (a board never confirmed is redrawn by the service, here over the game
        being played)."""
        if any(view.buttons for view in views):
            self._fresh = True
        elif any(not view.notice for view in views):
            self._fresh = False  # a newer message without buttons: the old ones are ambiguous
        for view in views:
            if view.edit_only:
                continue  # an older message made a pointer: the console prints anew anyway
            self._shown += 1
            lang = view.lang or self.lang
            said = translate_lines(view.lines, lang)
            if view.text_board:
                self.say("")
                self.say(view.text_board)
                # A finished board's text ends with the result the lines say too.
                tail = view.text_board.rsplit("\n", 1)[-1]
                said = "\n".join(line for line in said.split("\n") if line != tail)
            self.say(said)
            if view.image and view.game_id is not None:
                self._write(f"game-{view.game_id}.png", view.image, lang)
            elif view.image:  # an analysis card, a rating chart, standings: each its own file
                self._write(view.image_name, view.image, lang)
            if view.document:
                self._write(*view.document, lang, picture=False)
            if view.game_id is not None and not view.notice:
                self.game_id = view.game_id
            if view.buttons:
                self.buttons = [b for row in view.buttons for b in row]
                self._buttons_lang = lang
                self._owner = (
                    view.game_id if view.game_id is not None and view.shows_board else None
                )
                self._list_buttons()
            if view.posted is not None:
                # Later news of this message ("working…") is printed as new lines.
                where = MessageRef(self._shown, chat_id=PLACE.chat_id)
                self._posted.add(asyncio.ensure_future(view.posted(where)))
                self._posted = {task for task in self._posted if not task.done()}
            if view.game_id is not None and view.version is not None and not view.keyboard_only:
                await self.service.board_shown(view.game_id, view.version)

    def _list_buttons(self) -> None:
        self.say(
            "  ".join(
                f"[{i}] {translate(b.label, self._buttons_lang)}"
                for i, b in enumerate(self.buttons, 1)
            )
        )

    async def _show_one(self, view: View) -> None:
        await self.show([view])

    def _write(self, name: str, data: bytes, lang: str, *, picture: bool = True) -> None:
        """Save a picture or file; a full or read-only disk must not stop the game."""
        path = self.board_dir / name
        try:
            self.board_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except OSError as exc:
            log.warning("could not write %s: %s", path, exc)
            error = exc.strerror or str(exc)
            if picture:
                failed = t(
                    "(could not save the picture to {path}: {error})", path=path, error=error
                )
            else:
                failed = t("(could not save the file to {path}: {error})", path=path, error=error)
            self.tell(failed, lang)
            return
        self.tell(
            t("(picture: {path})", path=path) if picture else t("(file: {path})", path=path), lang
        )

    async def run(self, read_line: Callable[[], str] | None = None) -> None:
        """The loop: read a line, answer, until end of input or /quit."""
        lang = await self.language()
        self.tell(
            t(
                "Tavla — console. /learn plays a first game that teaches as it goes, /bot plays "
                "the computer, /tavla or /uzun plays both sides."
            ),
            lang,
        )
        self.tell(
            t("Type a number to press a button, a move such as 13/8 6/5, /help, or /quit."), lang
        )
        reader = read_line or (lambda: sys.stdin.readline())
        while True:
            line = await asyncio.to_thread(reader)
            if not line or line.strip() in ("/quit", "/exit"):
                return
            try:
                await self.handle(line)
                await self.deadlines.round()
            except Exception:  # the console must never die on one bad line
                log.exception("console: line %r failed", line)
                self.tell(
                    t("Sorry, something went wrong. Your game is safe; please try again."),
                    await self._safe_language(),
                )

    async def _safe_language(self) -> str:
        """The player's language, or the console's when even that cannot be read."""
        try:
            return await self.language()
        except Exception:
            return self.lang
