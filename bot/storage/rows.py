"""Records to and from table rows, the same for every SQL dialect.

A row is whatever the driver gives (``sqlite3.Row``, ``asyncpg.Record``): both are read by
column name. Booleans come back as 0/1 from SQLite and as ``bool`` from PostgreSQL, JSON
columns as text from both.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeVar

from bot.storage.base import (
    Chat,
    ChatPrefs,
    ContestSettings,
    Event,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    RatingRow,
    ResultRow,
    TournamentRecord,
    TournamentStatus,
    User,
    name_key,
)
from bot.storage.refs import MessageRef

#: The computer player's platform id, one such user per platform.
COMPUTER_PLATFORM_ID = "computer"
COMPUTER_NAME = "Tavla Bot"


class Row(Protocol):
    """A fetched row, read by column name."""

    def __getitem__(self, key: str, /) -> Any: ...


class Db(Protocol):
    """One connection, running the shared SQL (``?`` placeholders) in its dialect."""

    async def fetch(self, sql: str, *args: Any) -> Sequence[Row]:
        """Every row of a query."""
        ...

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        """The first row of a query, or None."""
        ...

    async def fetchval(self, sql: str, *args: Any) -> Any:
        """The first column of the first row, or None."""
        ...

    async def execute(self, sql: str, *args: Any) -> int:
        """Run a statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run a statement once for each row of arguments."""
        ...

    async def insert(self, sql: str, *args: Any) -> int:
        """Run an ``INSERT`` of one row into a table with an ``id``; the new row's id."""
        ...


def dumps(value: Any) -> str | None:
    """JSON text for a JSON column (None stays NULL)."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | None) -> Any:
    """The value of a JSON column (NULL is None)."""
    return None if text is None else json.loads(text)


def stored_message(ref: MessageRef | None) -> str | None:
    """The JSON text of a message column (``MessageRef.to_stored``; None stays NULL)."""
    return None if ref is None else dumps(ref.to_stored())


class Prefixed:
    """One table's columns in a joined row, each named with ``prefix`` (``u0_name``): read
    by the column's own name, as a row of that table."""

    __slots__ = ("prefix", "row")

    def __init__(self, row: Row, prefix: str) -> None:
        self.row = row
        self.prefix = prefix

    def __getitem__(self, key: str, /) -> Any:
        return self.row[self.prefix + key]


def prefixed_columns(alias: str, names: Iterable[str]) -> str:
    """``u0.name AS u0_name, …``: the columns ``names`` of the table ``alias``, prefixed so
    that several tables' columns share one row (see :class:`Prefixed`)."""
    return ", ".join(f"{alias}.{name} AS {alias}_{name}" for name in names)


#: The columns read of a user beside a game (its fields, and the handle that
#: :func:`user_unchanged` compares), and of a chat.
USER_COLUMNS = (*(f.name for f in dataclasses.fields(User) if f.init), "handle")
CHAT_COLUMNS = tuple(f.name for f in dataclasses.fields(Chat) if f.init)


def status_values(statuses: Iterable[GameStatus | str]) -> list[str]:
    """The stored values of game statuses."""
    return [GameStatus(s).value for s in statuses]


def marks(values: Sequence[object]) -> str:
    """``?, ?, …``: one placeholder per value, for ``IN (…)``."""
    return ", ".join("?" * len(values))


def _seats(seats: Sequence[int | None]) -> tuple[int | None, int | None]:
    if len(seats) != 2:
        raise ValueError(f"a game has two seats, not {len(seats)}: {seats!r}")
    return seats[0], seats[1]


# --- games -------------------------------------------------------------------------------

#: The columns written from a GameRecord (besides id, created, updated and version).
GAME_FIELDS = (
    "platform",
    "chat_id",
    "variant",
    "status",
    "seat0",
    "seat1",
    "challenger",
    "match",
    "dice",
    "commitment",
    "settings",
    "message",
    "deadline",
    "reminded",
    "rated",
)
GAME_COLUMNS = ", ".join(GAME_FIELDS)
GAME_ASSIGNMENTS = ", ".join(f"{name} = ?" for name in GAME_FIELDS)


def game_values(record: GameRecord) -> tuple[Any, ...]:
    """The values of :data:`GAME_FIELDS` for ``record``, in that order."""
    seat0, seat1 = _seats(record.seats)
    return (
        record.platform,
        str(record.chat_id),
        record.variant,
        GameStatus(record.status).value,
        seat0,
        seat1,
        record.challenger,
        dumps(record.match),
        dumps(record.dice if record.dice is not None else {}),
        record.commitment,
        dumps(record.settings.to_dict()),
        stored_message(record.message),
        None if record.deadline is None else float(record.deadline),
        bool(record.reminded),
        bool(record.rated),
    )


def game_from_row(row: Row) -> GameRecord:
    """A game record from a ``games`` row."""
    return _from_row(
        GameRecord,
        row,
        status=GameStatus(row["status"]),
        seats=[row["seat0"], row["seat1"]],
        match=loads(row["match"]),
        dice=json.loads(row["dice"]),
        settings=ContestSettings.from_dict(json.loads(row["settings"])),
        message=MessageRef.from_stored(loads(row["message"])),
        reminded=bool(row["reminded"]),
        rated=bool(row["rated"]),
    )


# --- tournaments -------------------------------------------------------------------------

#: The columns written from a TournamentRecord (besides id, created, updated and version).
TOURNAMENT_FIELDS = ("platform", "chat_id", "status", "organiser", "state", "message", "deadline")
TOURNAMENT_COLUMNS = ", ".join(TOURNAMENT_FIELDS)
TOURNAMENT_ASSIGNMENTS = ", ".join(f"{name} = ?" for name in TOURNAMENT_FIELDS)


def tournament_values(record: TournamentRecord) -> tuple[Any, ...]:
    """The values of :data:`TOURNAMENT_FIELDS` for ``record``, in that order."""
    return (
        record.platform,
        str(record.chat_id),
        TournamentStatus(record.status).value,
        record.organiser,
        dumps(record.state if record.state is not None else {}),
        stored_message(record.message),
        None if record.deadline is None else float(record.deadline),
    )


def tournament_from_row(row: Row) -> TournamentRecord:
    """A tournament record from a ``tournaments`` row."""
    return _from_row(
        TournamentRecord,
        row,
        status=TournamentStatus(row["status"]),
        state=json.loads(row["state"]),
        message=MessageRef.from_stored(loads(row["message"])),
    )


def tournament_status_values(statuses: Iterable[TournamentStatus | str]) -> list[str]:
    """The stored values of tournament statuses."""
    return [TournamentStatus(s).value for s in statuses]


# --- the other tables --------------------------------------------------------------------


def user_from_row(row: Row) -> User:
    """A user from a ``users`` row."""
    return _from_row(
        User, row, is_bot=bool(row["is_bot"]), prefs=PlayerPrefs.from_json(row["prefs"])
    )


def chat_from_row(row: Row) -> Chat:
    """A chat from a ``chats`` row."""
    return _from_row(Chat, row, prefs=ChatPrefs.from_json(row["prefs"]))


def event_from_row(row: Row) -> Event:
    """An event from an ``events`` row."""
    return _from_row(Event, row, data=json.loads(row["data"]))


def rating_from_row(row: Row) -> RatingRow:
    """A rating from a ``ratings`` row."""
    return _from_row(RatingRow, row)


def result_from_row(row: Row) -> ResultRow:
    """A finished contest from a ``results`` row."""
    return _from_row(ResultRow, row, rated=bool(row["rated"]))


_Record = TypeVar("_Record")


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return names


def _from_row(cls: type[_Record], row: Row, **converted: Any) -> _Record:
    """The record ``cls`` (a dataclass) from the row's columns of its fields' names, except
    the fields in ``converted``, given as they are (decoded JSON, booleans from 0/1…)."""
    values = {name: row[name] for name in _field_names(cls) if name not in converted}
    return cls(**values, **converted)


__all__ = [
    "CHAT_COLUMNS",
    "COMPUTER_NAME",
    "COMPUTER_PLATFORM_ID",
    "GAME_ASSIGNMENTS",
    "GAME_COLUMNS",
    "GAME_FIELDS",
    "TOURNAMENT_ASSIGNMENTS",
    "TOURNAMENT_COLUMNS",
    "TOURNAMENT_FIELDS",
    "USER_COLUMNS",
    "Db",
    "Prefixed",
    "Row",
    "chat_from_row",
    "dumps",
    "event_from_row",
    "game_from_row",
    "game_values",
    "loads",
    "marks",
    "name_key",
    "prefixed_columns",
    "rating_from_row",
    "result_from_row",
    "status_values",
    "tournament_from_row",
    "tournament_status_values",
    "tournament_values",
    "user_from_row",
]
