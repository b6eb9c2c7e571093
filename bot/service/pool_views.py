"""What the pool's messages say: the wish, the waiting message with its counts, the offer of
the computer meanwhile, the opponent found, and the question to a player busy with the
computer when an opponent comes (:mod:`bot.service.pool_asks`)."""

from __future__ import annotations

from bot.i18n import Text, t
from bot.storage.base import Bucket, GameRecord, PoolEntry

from . import actions as A
from .presenter import VARIANT_NAMES
from .views import Button, View

#: What the pool's buttons carry after the code: Cancel, Play the computer meanwhile; the
#: answers of a player busy with the computer: start Now, After this game, Decline; a game
#: of ``/games`` Opened (its id in the action's game id).
CANCEL, COMPUTER = "c", "b"
NOW, AFTER, DECLINE = "n", "a", "d"
OPEN = "o"

Counts = dict[Bucket, int]


def pace_of(record: GameRecord) -> str:
    """A pool game's pace: ``fast`` or ``daily``."""
    return "fast" if record.settings.fast else "daily"


def wish(variant: str, length: int, pace: str) -> Text:
    """What a player wants, in words: "Tavla, a match to 3, daily"."""
    contest = t("one game") if length == 1 else t("a match to {n}", n=length)
    speed = t("fast") if pace == "fast" else t("daily")
    return t(
        "{title}, {contest}, {pace}", title=VARIANT_NAMES[variant], contest=contest, pace=speed
    )


def seen(entry: PoolEntry, counts: Counts) -> list[int]:
    """How many wait for what the entry wants, and in all (as its message says)."""
    return [counts.get(entry.bucket, 1), sum(counts.values())]


def cancel_row() -> list[Button]:
    return [Button(t("Cancel"), A.encode(0, 0, A.POOL, CANCEL))]


def addressed(view: View, entry: PoolEntry, *, new: bool = False) -> View:
    """``view`` to the entry's chat, editing its waiting message when it has one, or posted
    ``new`` beside it (in its channel) so that the player is notified."""
    view.chat = (entry.platform, entry.chat_id)
    view.channel = entry.message
    view.message = None if new else entry.message
    view.edit = view.message is not None
    return view


def waiting_view(entry: PoolEntry, counts: Counts, lang: str, note: Text | None = None) -> View:
    """The waiting message: what the player wants, how many wait, and Cancel; ``note``
    first when something happened (the player found could not play)."""
    same, everyone = seen(entry, counts)
    lines: list[Text | str] = [note] if note is not None else []
    lines += [
        t("🔎 Looking for an opponent: {wish}.", wish=wish(*entry.bucket)),
        t("Waiting for this: {n}. In the pool: {m}.", n=same, m=everyone),
    ]
    return View(lines, lang=lang, buttons=[cancel_row()])


def offer_view(entry: PoolEntry, lang: str) -> View:
    """A minute without an opponent: play the computer meanwhile (the search goes on)."""
    view = View(
        [
            t("🔎 Looking for an opponent: {wish}.", wish=wish(*entry.bucket)),
            t("Nobody yet. Play the computer meanwhile? The search goes on."),
        ],
        lang=lang,
        buttons=[
            [
                Button(t("Play the computer"), A.encode(0, 0, A.POOL, COMPUTER)),
                Button(t("Cancel"), A.encode(0, 0, A.POOL, CANCEL)),
            ]
        ],
    )
    return addressed(view, entry)


def found_line(name: str, rating: float, entry: PoolEntry) -> Text:
    """Who the opponent is: their display name and rating, and the game."""
    return t(
        "🎲 Opponent found: {name} (rating {r}). {wish}. Good luck!",
        name=name,
        r=round(rating),
        wish=wish(*entry.bucket),
    )


def question_view(entry: PoolEntry, name: str, rating: float, lang: str) -> View:
    """To a player who plays the computer while waiting: an opponent came; now, after the
    game against the computer, or not at all?"""
    view = View(
        [
            t(
                "🎲 Opponent found: {name} (rating {r}). {wish}.",
                name=name,
                r=round(rating),
                wish=wish(*entry.bucket),
            ),
            t(
                "You are playing the computer. Start now (that game waits for you), after it, "
                "or not at all?"
            ),
        ],
        lang=lang,
        buttons=[
            [
                Button(t("Start now"), A.encode(0, 0, A.POOL, NOW)),
                Button(t("After this game"), A.encode(0, 0, A.POOL, AFTER)),
            ],
            [Button(t("Decline"), A.encode(0, 0, A.POOL, DECLINE))],
        ],
    )
    # A new message: the player is busy with another board and should be notified.
    return addressed(view, entry, new=True)


def after_view(entry: PoolEntry, name: str, lang: str) -> View:
    """The answer "after this game": the pool game starts when the computer's ends."""
    view = View(
        [
            t(
                "Your game against {name} starts when your game against the computer ends.",
                name=name,
            )
        ],
        lang=lang,
        buttons=[
            [
                Button(t("Start now"), A.encode(0, 0, A.POOL, NOW)),
                Button(t("Decline"), A.encode(0, 0, A.POOL, DECLINE)),
            ]
        ],
    )
    return addressed(view, entry)


def asked_view(entry: PoolEntry, name: str, rating: float, lang: str, *, after: bool) -> View:
    """To the other player meanwhile: the one found is busy with the computer (asked, or
    finishing that game first)."""
    view = View(
        [
            t(
                "🎲 Opponent found: {name} (rating {r}). {wish}.",
                name=name,
                r=round(rating),
                wish=wish(*entry.bucket),
            ),
            t(
                "{name} is finishing a game against the computer: yours starts when it ends.",
                name=name,
            )
            if after
            else t("{name} is playing the computer and is asked whether to start now.", name=name),
        ],
        lang=lang,
        buttons=[cancel_row()],
    )
    return addressed(view, entry)


def left_view(entry: PoolEntry, lang: str, why: Text | None = None) -> View:
    """The player is out of the pool (cancelled, declined, did not answer)."""
    lines: list[Text | str] = [why] if why is not None else []
    lines.append(t("You left the pool. /play to look again."))
    return addressed(View(lines, lang=lang), entry)


__all__ = [
    "AFTER",
    "CANCEL",
    "COMPUTER",
    "DECLINE",
    "NOW",
    "OPEN",
    "addressed",
    "after_view",
    "asked_view",
    "found_line",
    "left_view",
    "offer_view",
    "pace_of",
    "question_view",
    "seen",
    "waiting_view",
    "wish",
]
