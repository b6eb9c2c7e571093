"""What the game service needs from storage: records and one transactional interface.

Only storage modules speak SQL (design.md). The service works with these records and with
:class:`Transaction`, which wraps one database transaction (``BEGIN IMMEDIATE`` on SQLite):
the service loads a game, checks the version its action was made against, applies the action
through core, saves the game with its events, and commits, or nothing happens at all.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, Self

from bot.storage.refs import MessageRef
from core.pool import Seeker


class StorageError(RuntimeError):
    """The database failed or is unavailable; the action can be tried again."""


class StorageUnreachable(StorageError):
    """The database cannot be reached (yet): refused, starting up, timed out. Opening may
    succeed a little later, as when the bot and its database start together."""


class StaleVersionError(StorageError):
    """The game changed since the action was made (an old button, a double press)."""


class GameStatus(StrEnum):
    CHALLENGE = "challenge"  # waiting for an opponent to accept
    ACTIVE = "active"
    FINISHED = "finished"
    DECLINED = "declined"
    EXPIRED = "expired"  # a challenge nobody accepted in time
    ABORTED = "aborted"  # ended by agreement, unrated


OPEN_STATUSES = (GameStatus.CHALLENGE, GameStatus.ACTIVE)


HOME_SIDES = ("right", "left")

#: When a finished move is confirmed without a Confirm press: "undoable" (the default) when
#: the opponent must then press Roll or Double, so it can be taken back until they do;
#: "always"; "never" (every move waits for Confirm).
CONFIRM_MODES = ("undoable", "always", "never")


class StoredSettings:
    """Settings kept as a JSON object in one column (a player's, a chat's): only what differs
    from the defaults is stored, so a new default reaches everyone who never chose."""

    def to_json(self) -> str:
        """The settings that differ from the defaults, as stored."""
        assert dataclasses.is_dataclass(self)
        changed = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }
        return json.dumps(changed, sort_keys=True)

    @classmethod
    def _known(cls, text: str | None) -> dict[str, Any]:
        """The stored values this version knows (keys of other versions are ignored)."""
        assert dataclasses.is_dataclass(cls)
        data = json.loads(text or "{}")
        known = {f.name for f in dataclasses.fields(cls)}
        return {k: v for k, v in data.items() if k in known}

    @classmethod
    def from_json(cls, text: str | None) -> Self:
        """Stored settings; keys this version does not know are ignored."""
        return cls(**cls._known(text))


@dataclass(frozen=True)
class PlayerPrefs(StoredSettings):
    """A player's own settings (``/settings``); the defaults are what a new player gets."""

    #: Roll by itself even when the player could double (FIBS's "autoroll").
    auto_roll: bool = False
    #: When a finished move is confirmed by itself (one of CONFIRM_MODES); it can be taken
    #: back until the opponent acts.
    auto_confirm: str = "undoable"
    #: A board theme's name (renderers.THEMES); None follows the bot's default.
    theme: str | None = None
    #: The side the player's home board is drawn on: "right" or "left".
    home: str = "right"
    #: The player's time as hours from UTC (-12 to 14), for quiet nights; None: not set.
    utc_offset: int | None = None
    #: The tutor asks before a play or cube action that loses 0.08 or more; None: on for a
    #: player's first ten games against the computer, then off.
    tutor: bool | None = None
    #: The player's games may become puzzles (without their name).
    puzzles: bool = True

    @classmethod
    def from_json(cls, text: str | None) -> Self:
        """Stored settings; keys this version does not know are ignored, and values it
        does not accept fall back to the defaults."""
        data = cls._known(text)
        if data.get("home") not in HOME_SIDES:
            data.pop("home", None)
        if data.get("auto_confirm") is True:  # saved by the old on/off switch: "on"
            data["auto_confirm"] = "always"
        if data.get("auto_confirm") not in CONFIRM_MODES:
            data.pop("auto_confirm", None)
        offset = data.get("utc_offset")
        if offset is not None and not (isinstance(offset, int) and -12 <= offset <= 14):
            data.pop("utc_offset", None)
        return cls(**data)

    def __post_init__(self) -> None:
        if self.auto_confirm not in CONFIRM_MODES:
            raise ValueError(f"auto_confirm must be one of {CONFIRM_MODES}")


@dataclass
class User:
    """A person on one platform (the same person on two platforms is two users)."""

    id: int
    platform: str
    platform_id: str
    name: str
    lang: str | None = None  # chosen with /lang; None = follow the platform's language
    platform_lang: str | None = None  # the language the platform reports
    is_bot: bool = False  # the computer player
    prefs: PlayerPrefs = field(default_factory=PlayerPrefs)


#: The hours (the group's time) a group's daily puzzle may be posted at, and its answer.
DAILY_HOURS = (7, 9, 12, 15)
REVEAL_HOURS = (18, 20, 22)
#: The named time zones a group may choose (the tz database's names); any other time is a
#: whole-hour offset from UTC, written ``UTC+3`` or ``UTC-5`` (``UTC`` alone: no offset).
ZONE_NAMES = ("Europe/Istanbul", "Europe/Moscow", "Europe/Berlin")
_OFFSET = re.compile(r"UTC(?:[+-](?:[1-9]|1[0-4]))?")


def valid_zone(name: object) -> bool:
    """Whether ``name`` is a time zone a group may have (see :data:`ZONE_NAMES`)."""
    if not isinstance(name, str):
        return False
    if name in ZONE_NAMES:
        return True
    match = _OFFSET.fullmatch(name)
    return match is not None and int(name[3:] or 0) >= -12


@dataclass(frozen=True)
class ChatPrefs(StoredSettings):
    """A chat's own settings (``/settings`` in a group, admins only); the defaults are what
    a new chat gets."""

    #: Every finished rated match in the chat is analysed and its card posted.
    auto_analysis: bool = False
    #: A puzzle is posted every day and answered by the group's members.
    daily_puzzle: bool = False
    #: The hour the day's puzzle is posted (one of DAILY_HOURS), in the group's time…
    puzzle_hour: int = 9
    #: … and the hour its answer is posted (one of REVEAL_HOURS).
    reveal_hour: int = 20
    #: The group's time zone (see :func:`valid_zone`).
    timezone: str = "UTC"
    #: Discord: the channel of the server the puzzle of the day is posted in (where it was
    #: turned on); None on Telegram, where the chat is the channel.
    puzzle_channel: str | None = None

    @classmethod
    def from_json(cls, text: str | None) -> Self:
        """Stored settings; keys this version does not know are ignored, and an hour or a
        time zone it does not offer falls back to the default."""
        data = cls._known(text)
        if data.get("puzzle_hour") not in DAILY_HOURS:
            data.pop("puzzle_hour", None)
        if data.get("reveal_hour") not in REVEAL_HOURS:
            data.pop("reveal_hour", None)
        if not valid_zone(data.get("timezone")):
            data.pop("timezone", None)
        if not isinstance(data.get("puzzle_channel"), str):
            data.pop("puzzle_channel", None)
        return cls(**data)


@dataclass
class Chat:
    """A chat (Telegram) or channel/server (Discord) where games are played."""

    platform: str
    chat_id: str
    lang: str | None = None
    title: str | None = None
    #: Since when (epoch seconds) the bot cannot post here (removed, muted, chat gone);
    #: None while it can. Games here wait and resume when the chat is heard from again.
    paused: float | None = None
    prefs: ChatPrefs = field(default_factory=ChatPrefs)
    #: The group's language until one is set with /lang: the one most of its players use
    #: (at first, the first person's heard there), kept (bot.service.group_lang).
    group_lang: str | None = None
    #: A private chat with the bot (told by the incoming update, not stored).
    private: bool = field(default=False, init=False, compare=False)

    @property
    def scope(self) -> str:
        """The leaderboard scope of this chat."""
        return f"{self.platform}:{self.chat_id}"


@dataclass(frozen=True)
class ContestSettings:
    """A contest's settings and the service's bookkeeping for it, stored as one JSON object.

    Stored as it always was: only the fields that are set are written, under the same keys,
    and keys this version does not know are kept in ``extra`` and written back unchanged.
    Change it with :func:`dataclasses.replace`.
    """

    length: int = 1  # the match length (points)
    fast: bool = False  # minutes rather than hours per move
    scope: str = "global"  # the leaderboard it counts in
    #: The computer's seat in a game against it (always 1 today), None between people.
    computer: int | None = None
    level: str | None = None  # the computer's strength
    #: The players' names at the start (seat 0, seat 1), once the game starts.
    names: tuple[str, ...] | None = None
    tournament: int | None = None  # the tournament of a tournament match, and its pairing
    pairing: str | None = None
    #: The version of the game whose state the board last changed to (buttons of a board
    #: drawn since are still current: a pick changes only the buttons).
    state_version: int | None = None
    #: How far core's history has been logged as events: (game number, events logged).
    logged: tuple[int, int] | None = None
    #: Since when the player to act may be claimed against (their time ran out).
    claimable_since: float | None = None
    abort_by: int | None = None  # the seat that asked to call the game off
    #: Seats that roll themselves even while the chat is busy (bot.service.autoplay.BUSY),
    #: so that they may double first.
    own_rolls: tuple[int, ...] | None = None
    #: A guided first game (``/learn``): the topics explained so far; None: not a lesson.
    lesson: tuple[str, ...] | None = None
    #: A game between two people its challenge asked to be unrated (``/tavla unrated``).
    unrated: bool | None = None
    #: Hints in an unrated game between two people: None until one asks, ``asked0`` or
    #: ``asked1`` while the other seat decides, then ``on`` or ``off`` for the game.
    hints: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    _ALWAYS = ("length", "fast", "scope")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContestSettings:
        """Settings as stored (every row ever written)."""
        known = _CONTEST_FIELDS
        values: dict[str, Any] = {k: v for k, v in data.items() if k in known}
        if values.get("names") is not None:
            values["names"] = tuple(values["names"])
        if values.get("own_rolls") is not None:
            values["own_rolls"] = tuple(values["own_rolls"])
        if values.get("lesson") is not None:
            values["lesson"] = tuple(values["lesson"])
        if values.get("logged") is not None:
            number, count = values["logged"]
            values["logged"] = (number, count)
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**values, extra=extra)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object to store: the fields that are set, then the unknown keys."""
        out: dict[str, Any] = {}
        for name in _CONTEST_FIELDS:
            value = getattr(self, name)
            if value is None and name not in self._ALWAYS:
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        out.update(self.extra)
        return out


#: The stored keys of :class:`ContestSettings`, in the order of its fields.
_CONTEST_FIELDS = tuple(f.name for f in dataclasses.fields(ContestSettings) if f.name != "extra")


@dataclass
class GameRecord:
    """One contest (a single game or a match) with its whole state."""

    platform: str
    chat_id: str
    variant: str
    status: GameStatus
    #: User ids of seats 0 and 1; seat 1 is None while a challenge is open to anyone.
    seats: list[int | None]
    challenger: int
    #: core.match.Match.to_dict() (None while a challenge waits).
    match: dict[str, Any] | None = None
    #: core.dice.SeededDice.to_dict(): the secret seed and the next nonce.
    dice: dict[str, Any] = field(default_factory=dict)
    commitment: str = ""
    #: Challenge and game settings: length, fast, scope, computer level, tournament…
    settings: ContestSettings = field(default_factory=ContestSettings)
    #: Where the board is shown (the message the adapter posted it as).
    message: MessageRef | None = None
    deadline: float | None = None  # epoch seconds; the player to act loses the right after
    reminded: bool = False
    rated: bool = False
    created: float = 0.0
    updated: float = 0.0
    version: int = 0
    id: int | None = None
    #: The game version the board message last showed (confirmed by the adapter). Lower than
    #: ``version`` while a board lags its game; the deadline rounds redraw such boards.
    shown_version: int = 0

    @property
    def stored_id(self) -> int:
        """The id of a stored game (every record the storage returns has one).

        Raises ``ValueError`` for a record not yet inserted; use it where ``id`` may not be
        None, instead of an assertion or a ``# type: ignore``.
        """
        if self.id is None:
            raise ValueError("this game is not stored yet (insert_game first)")
        return self.id


class TournamentStatus(StrEnum):
    """Where a tournament stands (the stage of ``core.tournament.Stage``)."""

    OPEN = "open"  # taking entries
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


LIVE_TOURNAMENT_STATUSES = (TournamentStatus.OPEN, TournamentStatus.RUNNING)


@dataclass
class TournamentRecord:
    """One tournament run in a chat, with its whole state (``Tournament.to_dict()``)."""

    platform: str
    chat_id: str
    status: TournamentStatus
    organiser: int  # user id
    #: core.tournament.Tournament.to_dict()
    state: dict[str, Any] = field(default_factory=dict)
    #: Where its standings picture is shown (edited after each result).
    message: MessageRef | None = None
    #: When the deadline rounds must look at it next (its start time while it takes
    #: entries, "now" while a round's matches wait to be started); None: nothing due.
    deadline: float | None = None
    created: float = 0.0
    updated: float = 0.0
    version: int = 0
    id: int | None = None

    @property
    def stored_id(self) -> int:
        """The id of a stored tournament; ``ValueError`` for one not yet inserted."""
        if self.id is None:
            raise ValueError("this tournament is not stored yet (insert_tournament first)")
        return self.id


@dataclass
class Event:
    """One entry of a game's append-only log."""

    game_id: int
    seq: int
    ts: float
    type: str
    data: dict[str, Any]


@dataclass
class RatingRow:
    """A player's FIBS rating in one scope ("global" or a chat's scope) and game kind."""

    user_id: int
    scope: str
    kind: str
    rating: float = 1500.0
    experience: int = 0
    games: int = 0


@dataclass
class ResultRow:
    """A finished contest, for statistics."""

    game_id: int
    scope: str
    kind: str
    winner_id: int | None  # None for a draw
    loser_id: int | None
    length: int
    winner_points: float
    loser_points: float
    gammons: int  # games of the contest won with a gammon (mars) by the winner
    backgammons: int
    rated: bool
    finished: float


#: What a pool entry wants: (variant, match length, pace).
Bucket = tuple[str, int, str]


@dataclass
class PoolEntry:
    """A player waiting in the pool: what they want (``seeker``) and where they asked."""

    seeker: Seeker
    platform: str
    chat_id: str
    #: The waiting message, edited while they wait.
    message: MessageRef | None = None
    #: The service's bookkeeping (the computer offered, the language…), stored as JSON.
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def user_id(self) -> int:
        return self.seeker.player

    @property
    def bucket(self) -> Bucket:
        return self.seeker.bucket


@dataclass
class SeatChat:
    """Where one seat of a game played in two chats is: the player, their chat, their board
    message and the game version it shows."""

    game_id: int
    seat: int
    user_id: int
    platform: str
    chat_id: str
    message: MessageRef | None = None
    shown_version: int = 0


@dataclass
class Report:
    """A player's report about an opponent, kept for the operator."""

    id: int
    reporter: int
    reported: int
    game_id: int | None
    reason: str
    created: float


class PoolOperations(Protocol):
    """The pool's operations inside a transaction (``tx.pool``; :mod:`bot.storage.pool`)."""

    async def pair_or_wait(self, entry: PoolEntry, now: float) -> PoolEntry | None:
        """Pair the newcomer with the best fitting entry waiting (taken out and returned),
        or store it (None); the player's earlier entry is replaced either way."""
        ...

    async def pair_waiting(self, bucket: Bucket, now: float) -> list[tuple[PoolEntry, PoolEntry]]:
        """Pair the entries of a bucket that all wait; each pair taken out."""
        ...

    async def leave(self, user_id: int) -> PoolEntry | None:
        """Take the player out of the pool; their entry, or None if they were not in it."""
        ...

    async def lock(self, bucket: Bucket) -> None:
        """Hold the bucket's lock until the transaction ends (as pairing in it does)."""
        ...

    async def entry(self, user_id: int) -> PoolEntry | None:
        """The player's entry, if they wait (read in the transaction)."""
        ...

    async def put(self, entry: PoolEntry) -> None:
        """Store the entry, replacing the player's earlier one."""
        ...

    async def add_seat_chats(self, seats: list[SeatChat]) -> None:
        """Record where each seat of a new game plays (a game in two chats)."""
        ...

    async def game_over(self, user_id: int, left: bool, now: float) -> int:
        """Count a pool game the player finished (``left``: lost on time); the new count of
        games left in a row."""
        ...


class PoolRecords(Protocol):
    """The pool, blocks and reports outside transactions (``storage.pool``)."""

    async def entry(self, user_id: int) -> PoolEntry | None: ...

    async def entries(self, now: float) -> list[PoolEntry]: ...

    async def counts(self, now: float) -> dict[Bucket, int]: ...

    async def update(
        self, user_id: int, joined: float, message: MessageRef | None, data: dict[str, Any]
    ) -> bool: ...

    async def expire(self, now: float, limit: int = 100) -> list[PoolEntry]: ...

    async def left_in_a_row(self, user_id: int) -> int: ...

    async def game_over(self, user_id: int, left: bool, now: float) -> int: ...

    async def block(self, user_id: int, blocked: int, now: float) -> bool: ...

    async def blocked(self, a: int, b: int) -> bool: ...

    async def report(
        self, reporter: int, reported: int, game_id: int | None, reason: str, now: float
    ) -> int: ...

    async def reports(self, limit: int = 100) -> list[Report]: ...

    async def seat_chats(self, game_id: int) -> list[SeatChat]:
        """Where each seat of a game in two chats plays (seat 0 first); [] for other games."""
        ...

    async def turn_notice(self, game_id: int, seat: int, now: float, every: float) -> bool:
        """Whether the seat may be told it is their turn now (and it counts as told)."""
        ...

    async def seat_board_shown(
        self,
        game_id: int,
        seat: int | None,
        version: int,
        message: MessageRef | None = None,
    ) -> int:
        """The seat's board (every seat's: None) now shows ``version`` (never lowered), in
        ``message`` if given; the version every seat shows at least."""
        ...

    async def bookkeeping_shown(self, game_id: int, before: int, after: int) -> int | None:
        """A change no board shows moved the game from ``before`` to ``after``: the seats
        up to date stay so; the version every seat shows at least (None: one chat)."""
        ...


@dataclass(frozen=True)
class StoredPuzzle:
    """A puzzle as stored: its id, its rating (Glicko-2) and the puzzle itself
    (``core.learn.puzzles.Puzzle.to_dict()``); never who made the mistake."""

    id: int
    variant: str
    data: dict[str, Any]
    source: str
    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True)
class PuzzlePlayer:
    """A player's puzzle rating (Glicko-2), streak of puzzles solved in a row, and counts."""

    user_id: int
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06
    streak: int = 0
    best_streak: int = 0
    solved: int = 0
    attempts: int = 0


@dataclass(frozen=True)
class DailyPuzzle:
    """A group's puzzle of the day."""

    platform: str
    chat_id: str
    day: str
    puzzle_id: int
    message: MessageRef | None
    revealed: bool


class PuzzleRecords(Protocol):
    """Puzzles, attempts, puzzle ratings and daily puzzles (``storage.puzzles``;
    :mod:`bot.storage.puzzles`)."""

    async def add(
        self,
        key: str,
        variant: str,
        data: dict[str, Any],
        source: str,
        game_id: int | None,
        now: float,
    ) -> int | None: ...

    async def get(self, puzzle_id: int) -> StoredPuzzle | None: ...

    async def count(self, variant: str | None = None) -> int: ...

    async def next_for(
        self, user_id: int, variant: str | None, rating: float
    ) -> StoredPuzzle | None: ...

    async def player(self, user_id: int) -> PuzzlePlayer: ...

    async def attempt(
        self, user_id: int, puzzle_id: int, chosen: int, solved: bool, scope: str, now: float
    ) -> tuple[PuzzlePlayer, PuzzlePlayer] | None: ...

    async def open(
        self, user_id: int, platform: str, chat_id: str, puzzle_id: int, now: float
    ) -> None: ...

    async def opened(self, user_id: int, platform: str, chat_id: str, now: float) -> int | None: ...

    async def close_stale(self, now: float) -> int: ...

    async def close(self, user_id: int, puzzle_id: int) -> None: ...

    async def attempts(self, scope: str) -> list[tuple[int, int, bool]]: ...

    async def leaderboard(self, scope_prefix: str, limit: int = 10) -> list[tuple[int, int]]: ...

    async def set_daily(
        self, platform: str, chat_id: str, day: str, puzzle_id: int, now: float
    ) -> bool: ...

    async def daily(self, platform: str, chat_id: str, day: str) -> DailyPuzzle | None: ...

    async def daily_posted_as(
        self, platform: str, chat_id: str, message: MessageRef
    ) -> DailyPuzzle | None: ...

    async def set_daily_message(
        self, platform: str, chat_id: str, day: str, message: MessageRef | None
    ) -> None: ...

    async def reveal_daily(self, platform: str, chat_id: str, day: str) -> bool: ...

    async def dailies_to_reveal(self, day: str) -> list[DailyPuzzle]: ...

    async def daily_chats(self) -> list[tuple[str, str]]: ...

    async def next_daily(
        self, platform: str, chat_id: str, day: str = ""
    ) -> StoredPuzzle | None: ...

    async def remove_games_of(self, user_id: int) -> int: ...


class Transaction(Protocol):
    """Operations inside one database transaction."""

    @property
    def pool(self) -> PoolOperations:
        """The pool's operations in this transaction."""
        ...

    async def get_game(self, game_id: int) -> GameRecord | None: ...

    async def insert_game(self, record: GameRecord) -> GameRecord:
        """Store a new game; sets ``id`` and ``version`` = 1."""
        ...

    async def save_game(self, record: GameRecord, expected_version: int) -> GameRecord:
        """Write the game if its stored version is ``expected_version``; bumps the version.

        ``record`` carries the new version (and ``updated``) on return. Raises
        :class:`StaleVersionError` otherwise: at once, or, where a backend holds a
        transaction's first write back (PostgreSQL), from the transaction's next statement,
        whichever call makes it (``add_events`` of another game, a read, a storage method
        inside the block), or when the transaction ends; the record's version and
        ``updated`` are then put back, and nothing of the transaction is written once the
        error leaves the block. Catch it around the ``async with`` block, not around a call
        inside it.
        """
        ...

    async def add_events(self, game_id: int, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Append events (type, data) to the game's log with the next sequence numbers."""
        ...

    async def get_rating(self, user_id: int, scope: str, kind: str) -> RatingRow:
        """The rating row, or a fresh one (1500, experience 0) if the player has none."""
        ...

    async def put_rating(self, row: RatingRow, ts: float) -> None:
        """Store the row and append it to the rating history."""
        ...

    async def add_result(self, row: ResultRow) -> None: ...

    async def count_rated_between(self, user_a: int, user_b: int, kind: str, since: float) -> int:
        """How many rated contests these two finished against each other since ``since``."""
        ...

    async def get_tournament(self, tournament_id: int) -> TournamentRecord | None:
        """The tournament, its row locked until the transaction ends."""
        ...

    async def insert_tournament(self, record: TournamentRecord) -> TournamentRecord:
        """Store a new tournament; sets ``id`` and ``version`` = 1."""
        ...

    async def save_tournament(
        self, record: TournamentRecord, expected_version: int
    ) -> TournamentRecord:
        """Write the tournament if its stored version is ``expected_version``; bumps the
        version. Raises :class:`StaleVersionError` otherwise."""
        ...


def name_key(text: str) -> str:
    """The lookup key of a name or username: no "@", no case."""
    return text.strip().removeprefix("@").strip().casefold()


def user_unchanged(
    user: User, handle: str, name: str, username: str | None, platform_lang: str | None
) -> bool:
    """Whether a stored ``user`` (with its stored ``handle``) already has the name, username
    and platform language an update brings (None: the language is not told), so that
    nothing needs writing."""
    return (
        user.name == name
        and handle == name_key(username or name)
        and (platform_lang is None or user.platform_lang == platform_lang)
    )


@dataclass
class GamePeople:
    """A game read together with the people it concerns: the users on its seats (by id; a
    seat whose user is not found is left out) and its chat (None: not stored yet)."""

    game: GameRecord
    users: dict[int, User]
    #: Each user's stored handle (what an update's name or username is compared with).
    handles: dict[int, str]
    chat: Chat | None

    def unchanged_user(
        self,
        platform: str,
        platform_id: str,
        name: str,
        username: str | None,
        platform_lang: str | None,
    ) -> User | None:
        """The seated user with that platform id, when an update bringing ``name``,
        ``username`` and ``platform_lang`` changes nothing of it (None: not seated here, or
        it needs writing)."""
        for user_id, user in self.users.items():
            if (user.platform, user.platform_id) == (platform, platform_id):
                if user_unchanged(user, self.handles[user_id], name, username, platform_lang):
                    return user
                return None
        return None


class Storage(Protocol):
    """The database. Every method not inside :meth:`transaction` is its own transaction."""

    @property
    def pool(self) -> PoolRecords:
        """The pool of waiting players, blocks and reports."""
        ...

    @property
    def puzzles(self) -> PuzzleRecords:
        """Puzzles, attempts, puzzle ratings and daily puzzles."""
        ...

    async def open(self) -> None:
        """Connect and apply the numbered migrations not yet applied."""
        ...

    async def close(self) -> None: ...

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """``async with storage.transaction() as tx:`` commits on success, rolls back on error."""
        ...

    async def get_or_create_user(
        self,
        platform: str,
        platform_id: str,
        name: str,
        platform_lang: str | None = None,
        *,
        username: str | None = None,
    ) -> User:
        """The user, created on first sight; name, username and platform language refreshed.

        ``username`` (a platform handle such as Telegram's @name) is what ``find_user``
        looks up first."""
        ...

    async def computer_user(self, platform: str) -> User:
        """The computer player's user on a platform."""
        ...

    async def get_user(self, user_id: int) -> User | None: ...

    async def get_users(self, user_ids: Iterable[int]) -> dict[int, User]:
        """Several users by id, in one round trip; ids not found are left out."""
        ...

    async def find_user(self, platform: str, name_or_id: str) -> User | None:
        """A user by platform id or by name/username seen before (for ``/tavla @ali``)."""
        ...

    async def set_user_lang(self, user_id: int, lang: str | None) -> None: ...

    async def set_user_prefs(self, user_id: int, prefs: PlayerPrefs) -> None:
        """Keep a player's own settings."""
        ...

    async def get_chat(self, platform: str, chat_id: str, title: str | None = None) -> Chat:
        """The chat, created on first sight."""
        ...

    async def set_chat_lang(self, platform: str, chat_id: str, lang: str | None) -> None: ...

    async def set_chat_group_lang(self, platform: str, chat_id: str, lang: str) -> None:
        """Keep the group's language chosen by its players (:attr:`Chat.group_lang`)."""
        ...

    async def set_chat_prefs(self, platform: str, chat_id: str, prefs: ChatPrefs) -> None:
        """Keep a chat's own settings."""
        ...

    async def get_game(self, game_id: int) -> GameRecord | None: ...

    async def game_with_people(self, game_id: int) -> GamePeople | None:
        """The game, the users on its seats and its chat, in one read (None: no such
        game): a web action needs all three."""
        ...

    async def set_game_message(self, game_id: int, message: MessageRef | None) -> None:
        """Remember where the game's board is shown. This is not a change of the game, so
        its version stays (the buttons on the board remain valid)."""
        ...

    async def mark_board_shown(
        self, game_id: int, version: int, message: MessageRef | None = None
    ) -> None:
        """The game's board now shows ``version`` (never lowered); ``message``, when given,
        is where the board now is. Not a change of the game: its version stays."""
        ...

    async def lagging_boards(
        self, updated_before: float, updated_after: float, limit: int = 50
    ) -> list[GameRecord]:
        """Active and finished games whose board shows an older version than the saved game,
        changed between ``updated_after`` and ``updated_before``, in chats that are not
        paused; least recently changed first."""
        ...

    async def set_chat_paused(self, platform: str, chat_id: str, paused: float | None) -> None:
        """Mark the chat as unreachable since ``paused`` (None: reachable again)."""
        ...

    async def move_chat(self, platform: str, old_chat_id: str, new_chat_id: str) -> None:
        """The chat has a new id (a Telegram group became a supergroup): carry its language,
        title and leaderboard over. Games are moved by the service, one transaction each."""
        ...

    async def games_in_chat(
        self, platform: str, chat_id: str, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]: ...

    async def games_of_user(
        self, user_id: int, statuses: tuple[GameStatus, ...] = OPEN_STATUSES
    ) -> list[GameRecord]: ...

    async def count_computer_games(
        self, user_id: int, statuses: tuple[GameStatus, ...], at_most: int
    ) -> int:
        """How many of the user's games with these statuses were against the computer,
        counted up to ``at_most``."""
        ...

    async def count_games(self, statuses: tuple[GameStatus, ...]) -> int:
        """How many games have one of these statuses."""
        ...

    async def ping(self) -> None:
        """One trivial query: raises :class:`StorageError` when the database can't answer."""
        ...

    async def due_games(self, now: float, remind_within: float = 0.0) -> list[GameRecord]:
        """Open games whose deadline has passed, or not yet reminded and whose deadline is
        within ``remind_within`` seconds (the service's longest reminder lead)."""
        ...

    async def events(self, game_id: int) -> list[Event]: ...

    async def top(self, scope: str, kind: str, limit: int = 10) -> list[tuple[User, RatingRow]]:
        """The best ratings of a scope and kind, highest first."""
        ...

    async def forget_user(self, user_id: int, name: str, now: float) -> str | None:
        """Forget a player at their request: what identifies them and their ratings go,
        their games with others stay under ``name``. None when done, or what stops it:
        ``"game"`` (one under way) or ``"tournament"`` (one not ended)."""
        ...

    async def reset_scope(self, scope: str, kind: str | None = None) -> int:
        """Forget the ratings of a leaderboard scope (one game kind, or all); returns how
        many players were on it. Finished contests and their results stay."""
        ...

    async def rating_history(
        self, user_id: int, scope: str, kind: str
    ) -> list[tuple[float, float]]:
        """(timestamp, rating) after each rated contest, oldest first."""
        ...

    async def results_of_user(self, user_id: int, kind: str | None = None) -> list[ResultRow]: ...

    async def get_tournament(self, tournament_id: int) -> TournamentRecord | None: ...

    async def tournaments_in_chat(
        self,
        platform: str,
        chat_id: str,
        statuses: tuple[TournamentStatus, ...] = LIVE_TOURNAMENT_STATUSES,
    ) -> list[TournamentRecord]:
        """The chat's tournaments with one of these statuses, newest first."""
        ...

    async def due_tournaments(self, now: float, limit: int = 50) -> list[TournamentRecord]:
        """Open or running tournaments whose deadline has come, soonest first."""
        ...


__all__ = [
    "DAILY_HOURS",
    "LIVE_TOURNAMENT_STATUSES",
    "OPEN_STATUSES",
    "REVEAL_HOURS",
    "ZONE_NAMES",
    "Bucket",
    "Chat",
    "ChatPrefs",
    "Event",
    "GameRecord",
    "GameStatus",
    "PoolEntry",
    "PoolOperations",
    "PoolRecords",
    "RatingRow",
    "Report",
    "ResultRow",
    "SeatChat",
    "StaleVersionError",
    "Storage",
    "StorageError",
    "TournamentRecord",
    "TournamentStatus",
    "Transaction",
    "User",
    "valid_zone",
]
