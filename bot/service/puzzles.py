"""Puzzles: ``/puzzle`` in a private chat shows a position from a real game where a player
made a very bad play, with the candidate plays as buttons; one try, then the answer with
every candidate's equity, and the player's puzzle rating (Glicko-2) and streak.

The puzzles come from the computer's seeded self-play shipped with the bot
(``core/learn/shipped``), stored on first use; the storage keeps puzzles of games played
here too (never naming who played), taken out when a player keeps their games out.
"""

from __future__ import annotations

import json
import logging
from importlib import resources
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import Chat, PuzzlePlayer, Storage, StorageError, StoredPuzzle, User
from core.dice import larger_first
from core.errors import TavlaError
from core.learn.puzzles import Puzzle
from core.variants import variant_by_name
from renderers.view import WHITE, BoardView

from . import actions as A
from . import words as W
from .boards import Boards
from .errors import UserFacingError, error_text
from .lang import language
from .presenter import picture_labels
from .settings import ServiceSettings
from .views import Button, View

log = logging.getLogger(__name__)

#: The candidate's argument of the "next puzzle" button.
NEXT = "n"
TITLES: dict[str, Text] = {
    "tavla": t("Tavla"),
    "turkish": t("Turkish tavla"),
    "uzun": t("Uzun Tavla"),
}


def shipped_puzzles() -> list[Puzzle]:
    """The puzzles shipped with the bot (core/learn/shipped/*.jsonl)."""
    found: list[Puzzle] = []
    folder = resources.files("core.learn").joinpath("shipped")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".jsonl"):
            for line in entry.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    found.append(Puzzle.from_dict(json.loads(line)))
    return found


def signed(value: float) -> str:
    """An equity with its sign (a true minus sign)."""
    return f"{value:+.3f}".replace("-", "−")


class Puzzles:
    """``/puzzle`` and its buttons (the storage, the boards for the pictures, the settings,
    the clock)."""

    def __init__(
        self, storage: Storage, boards: Boards, settings: ServiceSettings, clock: Any
    ) -> None:
        self.storage = storage
        self.boards = boards
        self.settings = settings
        self.clock = clock
        self._stocked = False

    async def stock(self) -> None:
        """Store the shipped puzzles once (a puzzle already stored is kept as it is)."""
        if self._stocked:
            return
        now = self.clock()
        for puzzle in shipped_puzzles():
            await self.storage.puzzles.add(
                puzzle.key, puzzle.variant, puzzle.to_dict(), puzzle.source, None, now
            )
        self._stocked = True

    async def command(self, *, user: User, chat: Chat, args: str, **_: Any) -> list[View]:
        """``/puzzle [tavla|turkish|uzun]``: the next puzzle, in private."""
        if not chat.private:
            raise UserFacingError(t("Puzzles are solved in a private chat with me: /puzzle."))
        variant = W.kind_of(args.strip()) if args.strip() else None
        return await self.next_puzzle(user, chat, variant)

    async def next_puzzle(self, user: User, chat: Chat, variant: str | None) -> list[View]:
        await self.stock()
        player = await self.storage.puzzles.player(user.id)
        stored = await self.storage.puzzles.next_for(user.id, variant, player.rating)
        lang = language(user, chat)
        if stored is None:
            return [
                View([t("You have tried every puzzle I have. New ones come from games.")], lang)
            ]
        # Open here, so that a move typed in this chat answers it (see typed).
        await self.storage.puzzles.open(
            user.id, chat.platform, chat.chat_id, stored.id, self.clock()
        )
        return [await self.puzzle_view(stored, player, lang, user)]

    async def puzzle_view(
        self, stored: StoredPuzzle, player: PuzzlePlayer, lang: str, user: User
    ) -> View:
        """The puzzle's board and its candidates as buttons."""
        puzzle = Puzzle.from_dict(stored.data)
        a, b = larger_first(puzzle.dice)
        lines: list[Text | str] = [
            t(
                "🧩 Puzzle {id} ({game}): you play White and rolled {a}-{b}.",
                id=stored.id,
                game=TITLES.get(puzzle.variant, puzzle.variant),
                a=a,
                b=b,
            ),
            t("A player chose badly here. Find the best play: press it or type it; one try."),
            t(
                "Your puzzle rating: {rating} · streak {streak}",
                rating=round(player.rating),
                streak=player.streak,
            ),
        ]
        buttons = candidate_buttons(stored.id, puzzle)
        drawn = self.board(puzzle, lang, user)
        image = await self.picture(drawn)
        # The board goes along too: its text is what the console shows (no picture there).
        return View(
            lines,
            lang=lang,
            image=image,
            image_stem=f"puzzle-{stored.id}",
            buttons=buttons,
            board=drawn,
        )

    async def picture(self, board: BoardView) -> bytes | None:
        """A puzzle's ``board`` (see :meth:`board`) drawn; None when pictures are off."""
        if not self.settings.render_images:
            return None
        return await self.boards.render(board)

    def board(self, puzzle: Puzzle, lang: str, user: User | None) -> BoardView:
        """The puzzle's board, White on roll (in ``user``'s theme, if given)."""
        variant = variant_by_name(puzzle.variant)
        state = puzzle.cube_state
        fields: dict[str, Any] = {}
        if state is not None and variant.cube:
            fields["cube_value"] = state.value
            if state.owner:
                fields["cube_owner"] = WHITE if state.owner > 0 else "black"
            fields["match_length"] = max(0, state.match_length)
        return BoardView.from_position(
            variant,
            puzzle.before(),
            mover_color=WHITE,
            dice=larger_first(puzzle.dice),
            labels=picture_labels(lang),
            theme=(user_theme(user) if user else None) or self.settings.theme,
            **fields,
        )

    async def press(self, user: User, chat: Chat, action: A.Action) -> list[View]:
        """A candidate pressed (or "Next puzzle")."""
        if action.arg == NEXT:
            return await self.next_puzzle(user, chat, None)
        stored = await self.storage.puzzles.get(action.game_id)
        if stored is None:
            raise UserFacingError(t("That puzzle is no longer here. /puzzle gives another."))
        puzzle = Puzzle.from_dict(stored.data)
        chosen = int(action.arg)
        if not 0 <= chosen < len(puzzle.candidates):
            raise UserFacingError(t("That button is not one of mine."))
        return await self.answer(user, chat, stored, puzzle, chosen)

    async def open_here(self, user: User, chat: Chat) -> int | None:
        """The puzzle a play the player types in this private chat answers, if any (while
        it is the thing on their screen: see :meth:`PuzzleStorage.opened`)."""
        if not chat.private:
            return None
        return await self.storage.puzzles.opened(user.id, chat.platform, chat.chat_id, self.clock())

    async def tidy(self) -> None:
        """Forget the open puzzles no typed play answers any more (the deadline rounds; a
        database that does not answer now is tidied at a later round)."""
        try:
            await self.storage.puzzles.close_stale(self.clock())
        except StorageError:
            log.warning("tick: storage unavailable for open puzzles", exc_info=True)

    async def typed(self, user: User, chat: Chat, text: str, puzzle_id: int) -> list[View] | None:
        """A move typed as the answer to the open puzzle ``puzzle_id``: the answer pressing
        that play's button gives; None when the puzzle is no longer here."""
        stored = await self.storage.puzzles.get(puzzle_id)
        if stored is None:
            return None
        puzzle = Puzzle.from_dict(stored.data)
        try:
            chosen = puzzle.typed(text)
        except TavlaError as error:  # unreadable, or not legal here: refused as in a game
            refusal: Text = error_text(error)
        else:
            if chosen is not None:
                return await self.answer(user, chat, stored, puzzle, chosen)
            refusal = t("{play} is not one of this puzzle's choices.", play=text.strip())
        # No try is spent: the reason, how to answer, and the choices again.
        lines: list[Text | str] = [
            refusal,
            t(
                "To answer puzzle {id}, press one of its plays or type it as its button writes it.",
                id=stored.id,
            ),
        ]
        lang = language(user, chat)
        return [View(lines, lang=lang, buttons=candidate_buttons(stored.id, puzzle))]

    async def answer(
        self, user: User, chat: Chat, stored: StoredPuzzle, puzzle: Puzzle, chosen: int
    ) -> list[View]:
        """The player's one try at ``puzzle``: candidate ``chosen``, pressed or typed."""
        await self.storage.puzzles.close(user.id, stored.id)
        solved = chosen == puzzle.answer
        result = await self.storage.puzzles.attempt(
            user.id, stored.id, chosen, solved, "", self.clock()
        )
        if result is None:
            raise UserFacingError(t("You have answered this puzzle already: one try each."))
        before, after = result
        lang = language(user, chat)
        lines = answer_lines(puzzle, chosen)
        change = round(after.rating) - round(before.rating)
        lines.append(
            t(
                "Puzzle rating {rating} ({change}) · streak {streak}",
                rating=round(after.rating),
                change=f"{change:+d}".replace("-", "−"),
                streak=after.streak,
            )
        )
        buttons = [[Button(t("🧩 Next puzzle"), A.encode(0, 0, A.PUZZLE, NEXT))]]
        return [View(lines, lang=lang, buttons=buttons)]


def candidate_buttons(puzzle_id: int, puzzle: Puzzle) -> list[list[Button]]:
    """The puzzle's candidate plays as buttons, one a row, in the order shown."""
    return [
        [Button(c.text, A.encode(puzzle_id, 0, A.PUZZLE, n))]
        for n, c in enumerate(puzzle.candidates)
    ]


def answer_lines(puzzle: Puzzle, chosen: int) -> list[Text | str]:
    """The answer: right or wrong, the best play, every candidate's equity, and what the
    player in the game chose."""
    best = puzzle.best
    lines: list[Text | str] = [
        t("✅ Right: {play} is the best play.", play=best.text)
        if chosen == puzzle.answer
        else t("❌ Not this one: the best play is {play}.", play=best.text)
    ]
    ranked = sorted(puzzle.candidates, key=lambda c: -c.equity)
    for c in ranked:
        mark = " ✓" if c is best else ""
        lines.append(f"{c.text}: {signed(c.equity)}{mark}")
    lines.append(
        t(
            "In the game {play} was played: it gave away {loss} (about {percent}% of the "
            "winning chances). The best play leads the next by {margin}.",
            play=puzzle.candidates[puzzle.played].text,
            loss=f"{puzzle.loss:.3f}",
            percent=round(puzzle.loss * 50),
            margin=f"{puzzle.margin:.3f}",
        )
    )
    return lines


def user_theme(user: User) -> str | None:
    """The player's board theme, if they chose one."""
    prefs = getattr(user, "prefs", None)
    return getattr(prefs, "theme", None)
