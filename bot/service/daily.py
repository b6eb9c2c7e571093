"""A group's daily puzzle: with it on (``/settings`` in the group, its administrators), the
deadline rounds post one puzzle a day at the group's hour, in the group's time zone;
everyone answers once with the buttons and is told privately that their answer is in (a
toast, so nobody gives it away); at the group's evening hour the answer is posted, in reply
to the morning's puzzle, with who found it and the group's puzzle leaderboard. Answers in a
group are not rated: the puzzle rating is for ``/puzzle`` in private.

The puzzle is the one shown least recently in any group's puzzle of the day, of the game
the group had least recently, among those the group has not had: groups do not all get the
same puzzle on the same day, and the three games take turns.

Each step is claimed in the storage (the day's puzzle by the chat's and day's key, the answer
by marking the day revealed), so two workers running rounds post each message once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from bot.i18n import Text, t
from bot.storage.base import Chat, DailyPuzzle, Storage, StoredPuzzle, User
from core.dice import larger_first
from core.errors import NotationError, TavlaError
from core.learn.puzzles import Puzzle

from . import actions as A
from .errors import UserFacingError, error_text
from .lang import language, notice
from .puzzles import TITLES, Puzzles, signed
from .views import Button, MessageRef, View
from .zones import day_and_hour, zone_label

#: The furthest east a group's time may be (UTC+14): a group's day is never later than it.
EAST = 14 * 3600

#: How many of the group's solvers the leaderboard shows.
LEADERS = 5

CLOSED = t("This puzzle is closed; its answer is posted here.")


def scope_of(platform: str, chat_id: str, day: str) -> str:
    """The attempts' scope of a group's puzzle of ``day`` (``daily:`` and the chat first,
    so that the group's leaderboard is a prefix)."""
    return f"{chat_prefix(platform, chat_id)}{day}"


def chat_prefix(platform: str, chat_id: str) -> str:
    return f"daily:{platform}:{chat_id}:"


@dataclass(eq=False)
class DailyPuzzles:
    """The groups' daily puzzles (the storage, the private puzzles for their pictures and
    words, the clock)."""

    storage: Storage
    puzzles: Puzzles
    clock: Callable[[], float]

    async def tick(self, platforms: Collection[str] | None = None) -> list[View]:
        """A deadline round: the answers due, then the puzzles due, of the chats served,
        each at its hours in its own time."""
        now = self.clock()
        views: list[View] = []
        latest, _ = day_and_hour(now + EAST)  # no group's day is later than this
        for daily in await self.storage.puzzles.dailies_to_reveal(latest):
            if platforms is not None and daily.platform not in platforms:
                continue
            chat = await self.storage.get_chat(daily.platform, daily.chat_id)
            day, hour = day_and_hour(now, chat.prefs.timezone)
            due = daily.day < day or (daily.day == day and hour >= chat.prefs.reveal_hour)
            if due and await self.storage.puzzles.reveal_daily(
                daily.platform, daily.chat_id, daily.day
            ):
                views.append(await self.answer_view(daily, chat))
        for platform, chat_id in await self.storage.puzzles.daily_chats():
            if platforms is not None and platform not in platforms:
                continue
            chat = await self.storage.get_chat(platform, chat_id)
            prefs = chat.prefs
            day, hour = day_and_hour(now, prefs.timezone)
            if not prefs.daily_puzzle or not prefs.puzzle_hour <= hour < prefs.reveal_hour:
                continue
            if await self.storage.puzzles.daily(platform, chat_id, day) is not None:
                continue
            view = await self.post(chat, day)
            if view is not None:
                views.append(view)
        return views

    async def post(self, chat: Chat, day: str) -> View | None:
        """The day's puzzle for the chat, claimed in the storage (None: none left, or
        another worker posted it). Where it is posted is kept, for the answer's reply."""
        await self.puzzles.stock()
        stored = await self.storage.puzzles.next_daily(chat.platform, chat.chat_id, day)
        if stored is None:
            return None
        if not await self.storage.puzzles.set_daily(
            chat.platform, chat.chat_id, day, stored.id, self.clock()
        ):
            return None
        lang = language(None, chat, private=False)
        puzzle = Puzzle.from_dict(stored.data)
        a, b = larger_first(puzzle.dice)
        lines: list[Text | str] = [
            t(
                "🧩 Puzzle of the day ({game}): White to play {a}-{b}.",
                game=TITLES.get(puzzle.variant, puzzle.variant),
                a=a,
                b=b,
            ),
            t(
                "A player chose badly here. Find the best play: everyone answers once, and the "
                "answer comes at {hour}:00 ({zone}).",
                hour=chat.prefs.reveal_hour,
                zone=zone_label(chat.prefs.timezone, self.clock()),
            ),
        ]
        buttons = [
            [Button(c.text, A.encode(stored.id, 0, A.PUZZLE, n))]
            for n, c in enumerate(puzzle.candidates)
        ]

        async def posted(where: MessageRef) -> None:
            await self.storage.puzzles.set_daily_message(chat.platform, chat.chat_id, day, where)

        channel = None
        if chat.prefs.puzzle_channel is not None:  # Discord: the server's channel for it
            channel = MessageRef(0, chat_id=chat.chat_id, channel_id=chat.prefs.puzzle_channel)
        return View(
            lines,
            lang=lang,
            image=await self.puzzles.picture(self.puzzles.board(puzzle, lang, None)),
            image_stem=f"puzzle-{stored.id}",
            buttons=buttons,
            chat=(chat.platform, chat.chat_id),
            posted=posted,
            channel=channel,
        )

    async def press(self, user: User, chat: Chat, action: A.Action) -> list[View]:
        """A candidate pressed under the group's puzzle: the one answer kept, acknowledged
        to the person alone."""
        daily = await self.storage.puzzles.daily(chat.platform, chat.chat_id, self._today(chat))
        if daily is None or daily.puzzle_id != action.game_id:
            raise UserFacingError(CLOSED)
        puzzle = await self._puzzle(daily)
        if not action.arg.isdigit() or not 0 <= int(action.arg) < len(puzzle.candidates):
            raise UserFacingError(t("That button is not one of mine."))
        return await self._answer(user, chat, daily, puzzle, int(action.arg))

    async def posted_as(self, chat: Chat, message: MessageRef) -> DailyPuzzle | None:
        """The chat's puzzle of the day that ``message`` is (a message replied to), or None."""
        return await self.storage.puzzles.daily_posted_as(chat.platform, chat.chat_id, message)

    async def typed(
        self, user: User, chat: Chat, daily: DailyPuzzle, text: str, *, quiet: bool
    ) -> list[View]:
        """A play typed in reply to the group's puzzle ``daily`` (or ``/move`` in reply to
        it): the one answer kept, as its button's press keeps it. ``quiet``: a reply that is
        no move at all is not answered (a remark on the puzzle, in the group's talk); a play
        that is not legal or not among the choices spends no try and says how to answer."""
        puzzle = await self._puzzle(daily)
        refusal: Text | None = None
        chosen: int | None = None
        try:
            chosen = puzzle.typed(text)
        except NotationError as error:
            if quiet:
                return []
            refusal = error_text(error)
        except TavlaError as error:
            refusal = error_text(error)
        if daily.revealed or daily.day != self._today(chat):
            raise UserFacingError(CLOSED)
        if chosen is not None:
            return await self._answer(user, chat, daily, puzzle, chosen)
        lines: list[Text | str] = [
            refusal or t("{play} is not one of this puzzle's choices.", play=text.strip()),
            t(
                "To answer the puzzle of the day, press one of its plays or reply to it with "
                "the play as its button writes it."
            ),
        ]
        return [View(lines, lang=language(user, chat), notice=True)]

    def _today(self, chat: Chat) -> str:
        day, _ = day_and_hour(self.clock(), chat.prefs.timezone)
        return day

    async def _puzzle(self, daily: DailyPuzzle) -> Puzzle:
        stored = await self.storage.puzzles.get(daily.puzzle_id)
        if stored is None:
            raise UserFacingError(t("That puzzle is no longer here."))
        return Puzzle.from_dict(stored.data)

    async def _answer(
        self, user: User, chat: Chat, daily: DailyPuzzle, puzzle: Puzzle, chosen: int
    ) -> list[View]:
        """The person's one answer to the day's puzzle (pressed or typed), kept unless the
        puzzle is answered or they answered before; acknowledged to them alone."""
        if daily.revealed:
            raise UserFacingError(CLOSED)
        kept = await self.storage.puzzles.attempt(
            user.id,
            daily.puzzle_id,
            chosen,
            chosen == puzzle.answer,
            scope_of(chat.platform, chat.chat_id, daily.day),
            self.clock(),
        )
        if kept is None:
            raise UserFacingError(t("You have answered this puzzle already: one try each."))
        return [
            notice(
                user,
                chat,
                t(
                    "Your answer is in: {play}. The answer comes at {hour}:00 ({zone}).",
                    play=puzzle.candidates[chosen].text,
                    hour=chat.prefs.reveal_hour,
                    zone=zone_label(chat.prefs.timezone, self.clock()),
                ),
            )
        ]

    async def answer_view(self, daily: DailyPuzzle, chat: Chat) -> View:
        """The day's answer, in reply to the morning's puzzle: the best play, every
        candidate's equity, who found it, and the group's puzzle leaderboard."""
        stored = await self.storage.puzzles.get(daily.puzzle_id)
        lines: list[Text | str] = []
        if stored is not None:
            lines.extend(await self._answer_lines(daily, stored))
        leaders = await self.storage.puzzles.leaderboard(
            chat_prefix(daily.platform, daily.chat_id), LEADERS
        )
        if leaders:
            users = await self.storage.get_users([u for u, _ in leaders])
            lines.append(t("🏆 This group's puzzle solvers:"))
            for place, (user_id, solved) in enumerate(leaders, 1):
                name = users[user_id].name if user_id in users else "?"
                lines.append(f"{place}. {name} — {solved}")
        channel = None
        if chat.prefs.puzzle_channel is not None:
            channel = MessageRef(0, chat_id=chat.chat_id, channel_id=chat.prefs.puzzle_channel)
        return View(
            lines,
            lang=language(None, chat, private=False),
            chat=(daily.platform, daily.chat_id),
            reply_to=daily.message,
            channel=channel,
        )

    async def _answer_lines(self, daily: DailyPuzzle, stored: StoredPuzzle) -> list[Text | str]:
        puzzle = Puzzle.from_dict(stored.data)
        best = puzzle.best
        lines: list[Text | str] = [
            t("🧩 The answer to today's puzzle: {play}.", play=best.text),
        ]
        for c in sorted(puzzle.candidates, key=lambda c: -c.equity):
            lines.append(f"{c.text}: {signed(c.equity)}{' ✓' if c is best else ''}")
        tries = await self.storage.puzzles.attempts(
            scope_of(daily.platform, daily.chat_id, daily.day)
        )
        finders = [user_id for user_id, _, solved in tries if solved]
        users = await self.storage.get_users(finders)
        names = ", ".join(users[u].name for u in finders if u in users)
        if names:
            lines.append(
                t(
                    "Found by {names} ({found} of {answered}).",
                    names=names,
                    found=len(finders),
                    answered=len(tries),
                )
            )
        elif tries:
            lines.append(t("Nobody found it ({answered} answered).", answered=len(tries)))
        else:
            lines.append(t("Nobody answered today."))
        return lines
