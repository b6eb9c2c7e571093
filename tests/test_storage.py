"""Storage: migrations, records, transactions, concurrency and DATABASE_URL parsing.

Every test taking ``target`` or ``storage`` runs against both backends: SQLite, and PostgreSQL
when ``TAVLA_TEST_POSTGRES_URL`` names a test database (each test in a fresh schema, see
conftest.py); otherwise the PostgreSQL cases are skipped. Tests of SQLite's own features (file
paths, pragmas, sqlite URLs) use SQLite only.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.storage.base import (
    Chat,
    ChatPrefs,
    ContestSettings,
    GameRecord,
    GameStatus,
    PlayerPrefs,
    RatingRow,
    ResultRow,
    StaleVersionError,
    Storage,
    StorageError,
    TournamentRecord,
    TournamentStatus,
)
from bot.storage.factory import (
    DEFAULT_SQLITE_PATH,
    postgres_dsn_from_url,
    sqlite_path_from_url,
    storage_from_url,
)
from bot.storage.postgres import PostgresStorage, load_pg_migrations
from bot.storage.refs import MessageRef
from bot.storage.sqlite import (
    MEMORY,
    Migration,
    SqliteStorage,
    load_migrations,
    split_statements,
)

# --- helpers -----------------------------------------------------------------------------


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "tavla.db"


BACKENDS = ["sqlite", "postgres"]


@dataclass
class Target:
    """One empty database of a backend; :meth:`make` gives storages (workers) on it."""

    backend: str
    path: Path | None = None  # SQLite
    dsn: str | None = None  # PostgreSQL
    schema: str | None = None

    def make(self, *, migrations: list[Migration] | None = None, timeout: float | None = None):
        """A new storage (not yet opened); ``timeout`` is the busy/lock timeout in seconds."""
        if self.backend == "sqlite":
            assert self.path is not None
            extra = {} if timeout is None else {"busy_timeout": timeout}
            return SqliteStorage(self.path, migrations=migrations, **extra)
        assert self.dsn is not None
        assert self.schema is not None
        extra = {} if timeout is None else {"lock_timeout": timeout}
        return PostgresStorage(
            self.dsn,
            server_settings={"search_path": self.schema},
            migrations=migrations,
            pool_size=5,
            **extra,
        )

    def shipped_migrations(self) -> list[Migration]:
        return load_migrations() if self.backend == "sqlite" else load_pg_migrations()

    @property
    def driver_error(self) -> type[Exception]:
        return sqlite3.Error if self.backend == "sqlite" else asyncpg.PostgresError

    @property
    def integrity_error(self) -> type[Exception]:
        return (
            sqlite3.IntegrityError
            if self.backend == "sqlite"
            else asyncpg.IntegrityConstraintViolationError
        )


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, db_path: Path) -> Target:
    if request.param == "sqlite":
        return Target("sqlite", path=db_path)
    dsn, schema = request.getfixturevalue("postgres_schema")
    return Target("postgres", dsn=dsn, schema=schema)


@pytest.fixture
async def storage(target: Target):
    store = target.make()
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def players(storage: Storage):
    ali = await storage.get_or_create_user("telegram", "101", "Ali", "tr", username="ali")
    veli = await storage.get_or_create_user("telegram", "102", "Veli Can", "en")
    return ali, veli


def new_game(ali_id: int, veli_id: int | None, **changes) -> GameRecord:
    fields = {
        "platform": "telegram",
        "chat_id": "-100",
        "variant": "tavla",
        "status": GameStatus.ACTIVE,
        "seats": [ali_id, veli_id],
        "challenger": ali_id,
        "match": {"length": 3, "score": [0, 0], "note": "kapı düşeş"},
        "dice": {"seed": "ab" * 16, "nonce": 0},
        "commitment": "c0ffee",
        "settings": ContestSettings(length=3, fast=False),
        "message": MessageRef(7, chat_id="-100"),
        "deadline": 1000.0,
        "created": 10.0,
        "updated": 10.0,
    }
    fields.update(changes)
    return GameRecord(**fields)


async def insert(storage: Storage, record: GameRecord) -> GameRecord:
    async with storage.transaction() as tx:
        return await tx.insert_game(record)


async def raw(storage: Storage, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of ``sql`` (``?`` placeholders) run straight on the storage's database."""
    if isinstance(storage, SqliteStorage):
        assert storage._conn is not None
        return [tuple(row) for row in await storage._conn.execute_fetchall(sql, params)]
    assert isinstance(storage, PostgresStorage)
    assert storage._pool is not None
    numbers = itertools.count(1)
    sql = re.sub(r"\?", lambda _: f"${next(numbers)}", sql)
    async with storage._pool.acquire() as conn:
        return [tuple(row) for row in await conn.fetch(sql, *params)]


async def table_names(storage: Storage) -> set[str]:
    if isinstance(storage, SqliteStorage):
        return {row[0] for row in await raw(storage, "SELECT name FROM sqlite_master")}
    rows = await raw(
        storage,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
    )
    return {row[0] for row in rows}


class Boom(Exception):
    pass


# --- migrations and pragmas --------------------------------------------------------------


def test_migrations_are_numbered_without_gaps():
    migrations = load_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].name == "0001_initial.sql"


def test_split_statements_keeps_triggers_whole():
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (a TEXT DEFAULT 'x;y');
    CREATE TRIGGER t_no_delete BEFORE DELETE ON t
    BEGIN
        SELECT RAISE(ABORT, 'no');
    END;
    /* trailing comment */
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("DEFAULT 'x;y');")
    assert statements[1].startswith("CREATE TRIGGER")
    assert statements[1].endswith("END;")
    with pytest.raises(ValueError, match="incomplete"):
        split_statements("CREATE TRIGGER t_x BEFORE DELETE ON t BEGIN SELECT 1;")


def test_postgres_migrations_match_the_sqlite_ones():
    """The same numbers and names: one schema history in two dialects."""
    assert [(m.version, m.name) for m in load_pg_migrations()] == [
        (m.version, m.name) for m in load_migrations()
    ]


async def test_migrations_apply_once(target: Target):
    async with target.make() as store:
        first = await raw(store, "SELECT version, name, applied FROM schema_migrations")
        tables = await table_names(store)
    assert [(v, n) for v, n, _ in first] == [(m.version, m.name) for m in load_migrations()]
    assert {"users", "chats", "games", "events", "ratings", "rating_history", "results"} <= tables
    async with target.make() as store:  # re-open: nothing to do
        again = await raw(store, "SELECT version, name, applied FROM schema_migrations")
    assert again == first


async def test_workers_starting_together_apply_migrations_once(target: Target):
    stores = [target.make() for _ in range(3)]
    try:
        await asyncio.gather(*(store.open() for store in stores))
        rows = await raw(stores[0], "SELECT version, name FROM schema_migrations")
        assert rows == [(m.version, m.name) for m in load_migrations()]
        ali = await stores[1].get_or_create_user("telegram", "1", "Ali")
        assert await stores[2].get_user(ali.id) == ali
    finally:
        for store in stores:
            await store.close()


async def test_pragmas(db_path: Path):
    async with SqliteStorage(db_path) as storage:
        assert (await raw(storage, "PRAGMA journal_mode"))[0][0] == "wal"
        assert (await raw(storage, "PRAGMA foreign_keys"))[0][0] == 1
        assert (await raw(storage, "PRAGMA synchronous"))[0][0] == 1  # NORMAL
        assert (await raw(storage, "PRAGMA busy_timeout"))[0][0] == 5000


async def test_new_migrations_apply_in_order_each_in_its_own_transaction(target: Target):
    shipped = target.shipped_migrations()
    n = len(shipped)
    second = Migration(
        n + 1,
        f"{n + 1:04}_extra.sql",
        "CREATE TABLE extra (a INTEGER);\nINSERT INTO extra VALUES (1);",
    )
    async with target.make() as store:
        pass
    async with target.make(migrations=[*shipped, second]) as store:
        assert await raw(store, "SELECT version FROM schema_migrations ORDER BY version") == [
            (v,) for v in range(1, n + 2)
        ]
        assert await raw(store, "SELECT a FROM extra") == [(1,)]
    broken = Migration(
        n + 2, f"{n + 2:04}_broken.sql", "CREATE TABLE t3 (a INTEGER);\nSELECT * FROM missing;"
    )
    store = target.make(migrations=[*shipped, second, broken])
    with pytest.raises(StorageError, match=rf"{n + 2:04}_broken\.sql") as caught:
        await store.open()
    assert isinstance(caught.value.__cause__, target.driver_error)
    async with target.make(migrations=[*shipped, second]) as store:
        assert await raw(store, "SELECT max(version) FROM schema_migrations") == [(n + 1,)]
        assert "t3" not in await table_names(store)


async def test_unable_to_open_is_a_storage_error(tmp_path: Path):
    store = SqliteStorage(tmp_path)  # a folder, not a file
    with pytest.raises(StorageError) as caught:
        await store.open()
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    with pytest.raises(StorageError, match="not open"):
        await store.get_user(1)


async def test_unreachable_postgres_is_a_storage_error():
    """No server needed: nothing listens on port 1."""
    store = PostgresStorage("postgresql://tavla:secret@127.0.0.1:1/tavla", connect_timeout=5)
    with pytest.raises(StorageError) as caught:
        await store.open()
    assert isinstance(caught.value.__cause__, OSError)
    assert "secret" not in str(caught.value)
    assert "secret" not in repr(store)
    with pytest.raises(StorageError, match="not open"):
        await store.get_user(1)
    with pytest.raises(StorageError, match="not open"):
        async with store.transaction():
            pass
    await store.close()  # closing what never opened is fine


# --- users and chats ---------------------------------------------------------------------


async def test_users(storage: Storage, players):
    ali, veli = players
    assert ali.id != veli.id
    assert (ali.platform, ali.platform_id, ali.name, ali.platform_lang) == (
        "telegram",
        "101",
        "Ali",
        "tr",
    )
    assert not ali.is_bot
    assert ali.lang is None
    assert await storage.get_user(ali.id) == ali
    assert await storage.get_user(9999) is None

    renamed = await storage.get_or_create_user("telegram", "101", "Ali Baba", None, username="ali")
    assert renamed.id == ali.id
    assert renamed.name == "Ali Baba"
    assert renamed.platform_lang == "tr"  # None keeps the language known
    relang = await storage.get_or_create_user("telegram", "101", "Ali Baba", "ru", username="ali")
    assert relang.platform_lang == "ru"

    # The same platform id on another platform is another person.
    other = await storage.get_or_create_user("discord", "101", "Ali")
    assert other.id != ali.id

    await storage.set_user_lang(ali.id, "en")
    assert (await storage.get_user(ali.id)).lang == "en"
    await storage.set_user_lang(ali.id, None)
    assert (await storage.get_user(ali.id)).lang is None


async def test_player_settings_are_kept_and_survive_a_rename(storage: Storage, players):
    ali, veli = players
    assert ali.prefs == PlayerPrefs()  # a new player has the defaults
    chosen = PlayerPrefs(auto_roll=True, auto_confirm="always", theme="dark", home="left")
    await storage.set_user_prefs(ali.id, chosen)
    assert (await storage.get_user(ali.id)).prefs == chosen
    assert (await storage.get_user(veli.id)).prefs == PlayerPrefs()  # only hers changed
    again = await storage.get_or_create_user("telegram", "101", "Ali Baba", "tr", username="ali")
    assert again.prefs == chosen
    await storage.set_user_prefs(ali.id, PlayerPrefs())
    assert (await storage.get_user(ali.id)).prefs == PlayerPrefs()


async def test_several_users_in_one_read(storage: Storage, players):
    """Both players of a game are read at once: the same users as one by one."""
    ali, veli = players
    await storage.set_user_prefs(veli.id, PlayerPrefs(theme="dark"))
    veli = await storage.get_user(veli.id)
    assert await storage.get_users([ali.id, veli.id, ali.id, 9999]) == {ali.id: ali, veli.id: veli}
    assert await storage.get_users([]) == {}
    async with storage.transaction():  # also inside a transaction, on its connection
        assert await storage.get_users({veli.id}) == {veli.id: veli}


def test_player_settings_store_only_changes_and_ignore_unknown_keys():
    assert PlayerPrefs().to_json() == "{}"
    assert json.loads(PlayerPrefs(home="left").to_json()) == {"home": "left"}
    # A key written by a newer version, or a side that does not exist, never breaks a load.
    assert PlayerPrefs.from_json('{"auto_roll": true, "sound": 1}') == PlayerPrefs(auto_roll=True)
    assert PlayerPrefs.from_json('{"home": "top"}').home == "right"
    # Saved before confirming had three modes: the old switch's "on" is "always".
    assert PlayerPrefs.from_json('{"auto_confirm": true}').auto_confirm == "always"
    assert PlayerPrefs.from_json('{"auto_confirm": "sometimes"}') == PlayerPrefs()


async def test_find_user(storage: Storage, players):
    ali, veli = players
    for query in ("@ali", "ali", "@ALI", " Ali ", "101"):
        assert (await storage.find_user("telegram", query)).id == ali.id, query
    assert (await storage.find_user("telegram", "veli can")).id == veli.id  # no username: name
    assert (await storage.find_user("telegram", "@Veli Can")).id == veli.id
    assert await storage.find_user("telegram", "@nobody") is None
    assert await storage.find_user("telegram", "@") is None
    assert await storage.find_user("discord", "@ali") is None
    # A username given later replaces the name as the handle; the name still finds them.
    await storage.get_or_create_user("telegram", "102", "Veli Can", username="vc")
    assert (await storage.find_user("telegram", "@vc")).id == veli.id
    assert (await storage.find_user("telegram", "Veli Can")).id == veli.id
    # An exact platform id wins over a name that happens to look like it.
    numeric = await storage.get_or_create_user("telegram", "103", "102")
    assert (await storage.find_user("telegram", "102")).id == veli.id
    assert (await storage.find_user("telegram", "103")).id == numeric.id


async def test_computer_user(storage: Storage):
    bot = await storage.computer_user("telegram")
    assert bot.is_bot
    assert bot.platform_id == "computer"
    assert bot.name == "Tavla Bot"
    assert await storage.computer_user("telegram") == bot
    assert (await storage.computer_user("discord")).id != bot.id


async def test_chats(storage: Storage):
    chat = await storage.get_chat("telegram", "-100", "Kahvehane")
    assert chat == Chat("telegram", "-100", None, "Kahvehane")
    assert chat.scope == "telegram:-100"
    assert (await storage.get_chat("telegram", "-100")).title == "Kahvehane"  # None keeps it
    assert (await storage.get_chat("telegram", "-100", "Tavla")).title == "Tavla"
    await storage.set_chat_lang("telegram", "-100", "tr")
    assert (await storage.get_chat("telegram", "-100")).lang == "tr"
    await storage.set_chat_lang("discord", "55", "ru")  # before ever seen
    assert await storage.get_chat("discord", "55") == Chat("discord", "55", "ru", None)


async def test_chat_settings_are_kept_per_chat(storage: Storage):
    assert (await storage.get_chat("telegram", "-100")).prefs == ChatPrefs()  # the defaults
    await storage.set_chat_prefs("telegram", "-100", ChatPrefs(auto_analysis=True))
    chat = await storage.get_chat("telegram", "-100", "Kahvehane")
    assert chat.prefs == ChatPrefs(auto_analysis=True)
    assert chat.lang is None  # nothing else changed
    assert (await storage.get_chat("telegram", "-200")).prefs == ChatPrefs()
    await storage.set_chat_prefs("discord", "55", ChatPrefs(auto_analysis=True))  # unseen
    assert (await storage.get_chat("discord", "55")).prefs.auto_analysis
    await storage.set_chat_prefs("telegram", "-100", ChatPrefs())
    assert (await storage.get_chat("telegram", "-100")).prefs == ChatPrefs()


def test_chat_settings_store_only_changes_and_ignore_unknown_keys():
    assert ChatPrefs().to_json() == "{}"
    assert ChatPrefs(auto_analysis=True).to_json() == '{"auto_analysis": true}'
    assert ChatPrefs.from_json('{"auto_analysis": true, "later": 1}') == ChatPrefs(True)


# --- games and events --------------------------------------------------------------------


async def test_a_game_reads_with_its_players_and_chat_as_each_read_alone(storage: Storage, players):
    """One query for what a web action needs: the game, its seats' users, its chat."""
    ali, veli = players
    await storage.get_chat("telegram", "-100", "Kahvehane")
    await storage.set_chat_lang("telegram", "-100", "tr")
    await storage.set_chat_prefs("telegram", "-100", ChatPrefs(auto_analysis=True))
    await storage.set_user_prefs(veli.id, PlayerPrefs(home="left"))
    record = await insert(storage, new_game(ali.id, veli.id))
    both = await storage.game_with_people(record.id)
    assert both is not None
    assert both.game == await storage.get_game(record.id)
    assert both.users == await storage.get_users([ali.id, veli.id])
    assert both.chat == await storage.get_chat("telegram", "-100")
    # The users as read serve an update that changes nothing of them, and no other.
    assert both.unchanged_user("telegram", "101", "Ali", "ali", "tr") == both.users[ali.id]
    assert both.unchanged_user("telegram", "101", "Ali", "ali", None) == both.users[ali.id]
    assert both.unchanged_user("telegram", "102", "Veli Can", None, "en") == both.users[veli.id]
    assert both.unchanged_user("telegram", "101", "Ali", "ali", "ru") is None
    assert both.unchanged_user("telegram", "101", "Ali", "ali2", "tr") is None
    assert both.unchanged_user("telegram", "101", "Ali B", "ali", "tr") is None
    assert both.unchanged_user("discord", "101", "Ali", "ali", "tr") is None
    # A challenge's empty seat, in a chat never stored; a game that does not exist.
    open_seat = await insert(storage, new_game(ali.id, None, chat_id="-200"))
    alone = await storage.game_with_people(open_seat.id)
    assert alone is not None
    assert alone.game == open_seat
    assert alone.users == {ali.id: ali}
    assert alone.chat is None
    assert await storage.game_with_people(open_seat.id + 1) is None


async def test_insert_get_and_save_game(storage: Storage, players):
    ali, veli = players
    record = await insert(storage, new_game(ali.id, veli.id))
    assert record.id is not None
    assert record.version == 1
    stored = await storage.get_game(record.id)
    assert stored == record
    assert stored.match["note"] == "kapı düşeş"
    # JSON is stored readable, not \u-escaped.
    (text,) = (await raw(storage, "SELECT match FROM games WHERE id = ?", (record.id,)))[0]
    assert "kapı düşeş" in text

    async with storage.transaction() as tx:
        game = await tx.get_game(record.id)
        game.status = GameStatus.FINISHED
        game.match = None
        game.message = None
        game.deadline = None
        game.reminded = True
        game.rated = True
        game.updated = 20.0
        saved = await tx.save_game(game, expected_version=1)
    assert saved.version == 2
    assert await storage.get_game(record.id) == saved
    assert saved.created == 10.0
    assert saved.updated == 20.0

    # Raised at the call or, where the backend holds the save back, when the block ends.
    with pytest.raises(StaleVersionError):
        async with storage.transaction() as tx:
            await tx.save_game(saved, expected_version=1)
    assert (await storage.get_game(record.id)).version == 2
    assert await storage.get_game(12345) is None


async def test_set_game_message_keeps_the_version(storage: Storage, players):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id, message=None))
    await storage.set_game_message(game.id, MessageRef(42, chat_id="-100"))
    stored = await storage.get_game(game.id)
    assert stored.message == MessageRef(42, chat_id="-100")
    assert stored.version == 1  # the buttons on the board stay valid
    await storage.set_game_message(game.id, None)
    assert (await storage.get_game(game.id)).message is None


async def test_board_shown_is_never_lowered_and_keeps_the_version(storage: Storage, players):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id, message=None))
    assert game.shown_version == 0  # a new game's board is not on screen yet
    await storage.mark_board_shown(game.id, 1, MessageRef(9, chat_id="-100"))
    stored = await storage.get_game(game.id)
    assert (stored.shown_version, stored.version) == (1, 1)
    assert stored.message == MessageRef(9, chat_id="-100")
    async with storage.transaction() as tx:
        await tx.save_game(stored, 1)
    await storage.mark_board_shown(game.id, 2)  # an edit: the message stays
    await storage.mark_board_shown(game.id, 1)  # a late confirmation of an older board
    stored = await storage.get_game(game.id)
    assert (stored.shown_version, stored.version) == (2, 2)
    assert stored.message == MessageRef(9, chat_id="-100")
    # An older board posted anew elsewhere: the message moves, the version stays.
    await storage.mark_board_shown(game.id, 1, MessageRef(10, chat_id="-100"))
    stored = await storage.get_game(game.id)
    assert (stored.shown_version, stored.message) == (2, MessageRef(10, chat_id="-100"))


async def test_lagging_boards_in_window_and_not_in_paused_chats(storage: Storage, players):
    ali, veli = players
    lagging = await insert(storage, new_game(ali.id, veli.id, updated=100.0))
    shown = await insert(storage, new_game(ali.id, veli.id, updated=100.0))
    await storage.mark_board_shown(shown.id, 1)
    fresh = await insert(storage, new_game(ali.id, veli.id, updated=500.0))
    ancient = await insert(storage, new_game(ali.id, veli.id, updated=1.0))
    other = await insert(storage, new_game(ali.id, veli.id, chat_id="-200", updated=100.0))
    challenge = await insert(
        storage, new_game(ali.id, None, status=GameStatus.CHALLENGE, updated=100.0)
    )
    found = [g.id for g in await storage.lagging_boards(400.0, 50.0)]
    assert found == [lagging.id, other.id]
    assert fresh.id not in found
    assert ancient.id not in found
    assert challenge.id not in found
    await storage.set_chat_paused("telegram", "-200", 300.0)
    assert (await storage.get_chat("telegram", "-200")).paused == 300.0
    assert [g.id for g in await storage.lagging_boards(400.0, 50.0)] == [lagging.id]
    await storage.set_chat_paused("telegram", "-200", None)
    assert (await storage.get_chat("telegram", "-200")).paused is None
    assert len(await storage.lagging_boards(400.0, 50.0, limit=1)) == 1


async def test_move_chat_carries_language_and_leaderboard(storage: Storage, players):
    ali, _ = players
    await storage.set_chat_lang("telegram", "-100", "tr")
    await storage.get_chat("telegram", "-100", "Kahvehane")
    await storage.set_chat_prefs("telegram", "-100", ChatPrefs(auto_analysis=True))
    async with storage.transaction() as tx:
        row = await tx.get_rating(ali.id, "telegram:-100", "tavla")
        row.rating, row.games = 1530.0, 1
        await tx.put_rating(row, 5.0)
    await storage.move_chat("telegram", "-100", "-100777")
    moved = await storage.get_chat("telegram", "-100777")
    assert (moved.lang, moved.title, moved.prefs) == ("tr", "Kahvehane", ChatPrefs(True))
    [(user, rating)] = await storage.top("telegram:-100777", "tavla")
    assert (user.id, rating.rating) == (ali.id, 1530.0)
    assert await storage.top("telegram:-100", "tavla") == []
    assert await storage.rating_history(ali.id, "telegram:-100777", "tavla") == [(5.0, 1530.0)]


async def test_a_stored_game_has_a_stored_id(storage: Storage, players):
    ali, veli = players
    record = new_game(ali.id, veli.id)
    with pytest.raises(ValueError, match="not stored"):
        _ = record.stored_id
    stored = await insert(storage, record)
    assert stored.stored_id == stored.id
    fetched = await storage.get_game(stored.stored_id)
    assert fetched is not None
    assert fetched.stored_id == stored.id


async def test_insert_fills_zero_timestamps_and_open_challenge(storage: Storage, players):
    ali, _ = players
    record = await insert(
        storage,
        new_game(ali.id, None, status=GameStatus.CHALLENGE, match=None, created=0.0, updated=0.0),
    )
    stored = await storage.get_game(record.id)
    assert stored.seats == [ali.id, None]
    assert stored.match is None
    assert stored.created > 1e9
    assert stored.updated == stored.created


async def test_failing_transaction_rolls_back_everything(storage: Storage, players):
    ali, veli = players
    kept = await insert(storage, new_game(ali.id, veli.id))
    fresh = new_game(ali.id, veli.id)

    async def failing() -> None:
        async with storage.transaction() as tx:
            await tx.insert_game(fresh)
            await tx.add_events(fresh.id, [("start", {})])
            game = await tx.get_game(kept.id)
            game.status = GameStatus.ABORTED
            await tx.save_game(game, 1)
            await tx.add_events(kept.id, [("abort", {})])
            await tx.put_rating(RatingRow(ali.id, "global", "tavla", 1600.0, 1, 1), ts=5.0)
            raise Boom

    with pytest.raises(Boom):
        await failing()
    assert fresh.id is not None
    assert await storage.get_game(fresh.id) is None
    assert await storage.events(fresh.id) == []
    assert await storage.get_game(kept.id) == kept
    assert await storage.events(kept.id) == []
    assert await storage.rating_history(ali.id, "global", "tavla") == []
    # The connection is usable afterwards.
    async with storage.transaction() as tx:
        await tx.add_events(kept.id, [("roll", {"dice": [3, 1]})])
    assert [e.seq for e in await storage.events(kept.id)] == [1]


async def test_events_in_order_and_survive_reopen(target: Target):
    async with target.make() as store:
        ali = await store.get_or_create_user("telegram", "1", "Ali")
        game = await insert(store, new_game(ali.id, None))
        async with store.transaction() as tx:
            await tx.add_events(
                game.id, [("roll", {"dice": [6, 6]}), ("play", {"play": "24/18(2)"})]
            )
            await tx.add_events(game.id, [])
        async with store.transaction() as tx:
            await tx.add_events(game.id, [("double", {"cube": 2})], ts=123.0)
    async with target.make() as store:
        events = await store.events(game.id)
    assert [(e.seq, e.type) for e in events] == [(1, "roll"), (2, "play"), (3, "double")]
    assert events[0].data == {"dice": [6, 6]}
    assert events[0].game_id == game.id
    assert events[2].ts == 123.0


async def test_each_games_events_are_numbered_from_one(storage: Storage, players):
    ali, veli = players
    first = await insert(storage, new_game(ali.id, veli.id))
    second = await insert(storage, new_game(veli.id, ali.id))
    async with storage.transaction() as tx:
        await tx.add_events(first.id, [("roll", {"dice": [3, 1]}), ("play", {"play": "8/5"})])
        await tx.add_events(second.id, [("roll", {"dice": [6, 6]})])
        await tx.add_events(first.id, [("roll", {"dice": [2, 2]})])
    assert [(e.seq, e.type) for e in await storage.events(first.id)] == [
        (1, "roll"),
        (2, "play"),
        (3, "roll"),
    ]
    assert [(e.seq, e.data) for e in await storage.events(second.id)] == [(1, {"dice": [6, 6]})]


async def test_event_log_is_append_only(target: Target, storage: Storage, players):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id))
    async with storage.transaction() as tx:
        await tx.add_events(game.id, [("roll", {"dice": [1, 2]})])
    statements = ["UPDATE events SET type = 'x'", "DELETE FROM events"]
    refused: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
    if target.backend == "postgres":
        statements.append("TRUNCATE events")
        refused = (asyncpg.RaiseError,)
    for statement in statements:
        with pytest.raises(refused, match="append-only"):
            await raw(storage, statement)
    assert [e.type for e in await storage.events(game.id)] == ["roll"]
    for module in ("sqlite.py", "postgres.py", "sql.py"):  # every module with queries
        source = (Path(__file__).parents[1] / "bot" / "storage" / module).read_text().upper()
        assert "UPDATE EVENTS" not in source
        assert "DELETE FROM EVENTS" not in source


async def test_games_in_chat_and_of_user(storage: Storage, players):
    ali, veli = players
    deniz = await storage.get_or_create_user("telegram", "104", "Deniz")
    a = await insert(storage, new_game(ali.id, veli.id))
    b = await insert(storage, new_game(veli.id, ali.id, status=GameStatus.FINISHED))
    c = await insert(storage, new_game(deniz.id, None, status=GameStatus.CHALLENGE))
    d = await insert(storage, new_game(ali.id, deniz.id, chat_id="-200"))

    def ids(games):
        return [g.id for g in games]

    assert ids(await storage.games_in_chat("telegram", "-100")) == [a.id, c.id]
    assert ids(await storage.games_in_chat("telegram", "-100", (GameStatus.FINISHED,))) == [b.id]
    assert ids(await storage.games_in_chat("telegram", "-100", ())) == []
    assert ids(await storage.games_in_chat("discord", "-100")) == []
    assert ids(await storage.games_of_user(ali.id)) == [a.id, d.id]
    assert ids(await storage.games_of_user(veli.id)) == [a.id]
    assert ids(await storage.games_of_user(veli.id, tuple(GameStatus))) == [a.id, b.id]
    assert ids(await storage.games_of_user(deniz.id, (GameStatus.CHALLENGE,))) == [c.id]


async def test_games_against_the_computer_are_counted_up_to_a_bound(storage: Storage, players):
    ali, veli = players
    computer = await storage.computer_user("telegram")
    done = GameStatus.FINISHED
    for seats in ([ali.id, computer.id], [computer.id, ali.id], [ali.id, computer.id]):
        await insert(storage, new_game(*seats, status=done))
    await insert(storage, new_game(ali.id, veli.id, status=done))  # against a person
    await insert(storage, new_game(ali.id, computer.id))  # not over
    await insert(storage, new_game(veli.id, computer.id, status=done))  # someone else's

    assert await storage.count_computer_games(ali.id, (done,), at_most=10) == 3
    assert await storage.count_computer_games(ali.id, (done,), at_most=2) == 2
    assert await storage.count_computer_games(ali.id, tuple(GameStatus), at_most=10) == 4
    assert await storage.count_computer_games(veli.id, (done,), at_most=10) == 1
    assert await storage.count_computer_games(ali.id, (), at_most=10) == 0
    assert await storage.count_computer_games(ali.id, (done,), at_most=0) == 0


async def test_due_games(storage: Storage, players):
    ali, veli = players
    late = await insert(storage, new_game(ali.id, veli.id, deadline=100.0, reminded=True))
    soon = await insert(storage, new_game(ali.id, veli.id, deadline=500.0))
    later = await insert(storage, new_game(ali.id, veli.id, deadline=900.0, reminded=True))
    await insert(storage, new_game(ali.id, veli.id, deadline=None))
    await insert(storage, new_game(ali.id, veli.id, deadline=50.0, status=GameStatus.FINISHED))
    challenge = await insert(
        storage, new_game(ali.id, None, deadline=200.0, status=GameStatus.CHALLENGE, reminded=True)
    )
    due = await storage.due_games(now=300.0, remind_within=250.0)
    # Past their deadline, or not yet reminded with the deadline close enough to remind.
    assert [g.id for g in due] == [late.id, challenge.id, soon.id]
    not_yet = await storage.due_games(now=300.0, remind_within=100.0)
    assert [g.id for g in not_yet] == [late.id, challenge.id]
    assert later.id not in [g.id for g in await storage.due_games(now=899.0)]
    assert later.id in [g.id for g in await storage.due_games(now=900.0)]


# --- concurrency -------------------------------------------------------------------------


async def play_move(storage: Storage, game_id: int, version: int, move: str) -> None:
    """What the service does for a button made against ``version``."""
    async with storage.transaction() as tx:
        game = await tx.get_game(game_id)
        if game.version != version:
            raise StaleVersionError("old button")
        await asyncio.sleep(0)  # let the other task try to run in between
        moves = [*game.settings.extra.get("moves", []), move]
        game.settings = replace(game.settings, extra={**game.settings.extra, "moves": moves})
        await tx.save_game(game, version)
        await tx.add_events(game_id, [("play", {"play": move})])


async def test_two_tasks_same_game_exactly_one_wins(storage: Storage, players):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id, settings=ContestSettings()))
    outcomes = await asyncio.gather(
        play_move(storage, game.id, 1, "13/7 8/7"),
        play_move(storage, game.id, 1, "24/18 13/11"),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StaleVersionError"]
    stored = await storage.get_game(game.id)
    assert stored.version == 2
    assert len(stored.settings.extra["moves"]) == 1
    events = await storage.events(game.id)
    assert [e.data["play"] for e in events] == stored.settings.extra["moves"]


async def test_stale_save_without_own_check(storage: Storage, players):
    """Even without checking, save_game's version condition refuses the second writer."""
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id))
    copies = [await storage.get_game(game.id) for _ in range(2)]

    async def save(record: GameRecord, status: GameStatus):
        async with storage.transaction() as tx:
            record.status = status
            await tx.save_game(record, record.version)

    outcomes = await asyncio.gather(
        save(copies[0], GameStatus.FINISHED),
        save(copies[1], GameStatus.ABORTED),
        return_exceptions=True,
    )
    # Which writer wins is the database's choice (PostgreSQL's pool may start either first);
    # what callers rely on is that exactly one wins and the other is told it is stale.
    wins = [i for i, outcome in enumerate(outcomes) if outcome is None]
    stale = [i for i, outcome in enumerate(outcomes) if isinstance(outcome, StaleVersionError)]
    assert len(wins) == 1, outcomes
    assert len(stale) == 1, outcomes
    winner_status = (GameStatus.FINISHED, GameStatus.ABORTED)[wins[0]]
    assert (await storage.get_game(game.id)).status == winner_status


async def test_many_concurrent_transactions_on_different_games(storage: Storage, players):
    ali, veli = players
    games = [
        await insert(storage, new_game(ali.id, veli.id, settings=ContestSettings()))
        for _ in range(30)
    ]

    async def three_moves(game_id: int) -> None:
        for version in (1, 2, 3):
            await play_move(storage, game_id, version, f"move {version}")

    await asyncio.gather(*(three_moves(g.id) for g in games))
    for game in games:
        stored = await storage.get_game(game.id)
        assert stored.version == 4
        assert stored.settings.extra["moves"] == ["move 1", "move 2", "move 3"]
        assert [e.seq for e in await storage.events(game.id)] == [1, 2, 3]


async def test_workers_adding_events_to_one_game_never_share_a_number(target: Target):
    """Three workers (storages of their own) append to one game at once, some after reading
    it in the transaction (a press does), some without: every event gets its own number, a
    transaction's events stay together, nothing is lost."""
    workers = [target.make() for _ in range(3)]
    for worker in workers:
        await worker.open()
    try:
        ali = await workers[0].get_or_create_user("telegram", "1", "Ali")
        game = await insert(workers[0], new_game(ali.id, None))

        async def append(worker: Storage, n: int) -> None:
            async with worker.transaction() as tx:
                if n % 2:
                    await tx.get_game(game.id)
                await asyncio.sleep(0)  # let the others start theirs
                await tx.add_events(game.id, [("roll", {"n": n}), ("play", {"n": n})])

        await asyncio.gather(*(append(workers[n % 3], n) for n in range(12)))
        events = await workers[0].events(game.id)
    finally:
        for worker in workers:
            await worker.close()
    assert [e.seq for e in events] == list(range(1, 25))
    pairs = [(events[i].data["n"], events[i + 1].data["n"]) for i in range(0, 24, 2)]
    assert all(a == b for a, b in pairs)
    assert sorted(a for a, _ in pairs) == list(range(12))
    assert [e.type for e in events] == ["roll", "play"] * 12


async def test_postgres_press_adds_its_events_in_one_statement(target: Target, players):
    """A transaction that read its game FOR UPDATE (as a press does) numbers and inserts
    its events in one round trip; one that did not locks the game's row first."""
    if target.backend != "postgres":
        pytest.skip("PostgreSQL's add_events")
    store = target.make()
    await store.open()
    try:
        ali = await store.get_or_create_user("telegram", "1", "Ali")
        game = await insert(store, new_game(ali.id, None))
        for read_first, statements in ((True, 1), (False, 2)):
            async with store.transaction() as tx:
                if read_first:
                    await tx.get_game(game.id)
                sent: list[str] = []
                db = tx.db
                for name in ("fetch", "fetchrow", "fetchval", "execute", "executemany"):
                    method = getattr(db, name)

                    async def counted(sql, *args, _method=method, _sent=sent):
                        _sent.append(sql)
                        return await _method(sql, *args)

                    setattr(db, name, counted)
                await tx.add_events(game.id, [("roll", {"dice": [3, 1]}), ("play", {})])
            assert len(sent) == statements, sent
        assert [e.seq for e in await store.events(game.id)] == [1, 2, 3, 4]
    finally:
        await store.close()


async def test_storage_methods_inside_a_transaction_join_it(storage: Storage, players):
    ali, _ = players

    async def failing() -> None:
        async with storage.transaction() as tx:
            deniz = await storage.get_or_create_user("telegram", "104", "Deniz")
            assert (await storage.get_user(deniz.id)).name == "Deniz"  # no deadlock
            bot = await storage.computer_user("telegram")
            await tx.insert_game(new_game(ali.id, bot.id))
            raise Boom

    with pytest.raises(Boom):
        await asyncio.wait_for(failing(), timeout=5)
    assert await storage.find_user("telegram", "Deniz") is None
    assert await storage.games_of_user(ali.id) == []


async def test_transactions_do_not_nest_and_end(storage: Storage):
    async with storage.transaction() as tx:
        with pytest.raises(RuntimeError, match="nest"):
            async with storage.transaction():
                pass
    with pytest.raises(RuntimeError, match="over"):
        await tx.get_game(1)


async def test_cancelled_transaction_rolls_back(storage: Storage, players):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id))
    entered = asyncio.Event()

    async def slow_move():
        async with storage.transaction() as tx:
            record = await tx.get_game(game.id)
            record.status = GameStatus.ABORTED
            await tx.save_game(record, 1)
            entered.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(slow_move())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await storage.get_game(game.id) == game
    await play_move(storage, game.id, 1, "8/5 6/5")
    assert (await storage.get_game(game.id)).version == 2


# --- two workers on one file -------------------------------------------------------------


async def test_two_workers_share_the_database(target: Target):
    async with target.make() as one, target.make() as two:
        ali = await one.get_or_create_user("telegram", "1", "Ali")
        veli = await two.get_or_create_user("telegram", "2", "Veli")
        assert (await two.get_user(ali.id)).name == "Ali"
        game = await insert(one, new_game(ali.id, veli.id, settings=ContestSettings()))
        assert await two.get_game(game.id) == game

        # Both workers got the same button press (version 1): one move only.
        outcomes = await asyncio.gather(
            play_move(one, game.id, 1, "6/1 6/3"),
            play_move(two, game.id, 1, "13/8 13/10"),
            return_exceptions=True,
        )
        assert sum(o is None for o in outcomes) == 1
        assert sum(isinstance(o, StaleVersionError) for o in outcomes) == 1
        stored = await one.get_game(game.id)
        assert stored == await two.get_game(game.id)
        assert stored.version == 2
        assert len(stored.settings.extra["moves"]) == 1

        # A writer waits (busy timeout) for the other worker's transaction, then sees its
        # commit and its version check refuses the old version.
        holding = asyncio.Event()

        async def hold():
            async with one.transaction() as tx:
                record = await tx.get_game(game.id)
                await tx.save_game(record, 2)
                holding.set()
                await asyncio.sleep(0.1)

        holder = asyncio.create_task(hold())
        await holding.wait()
        with pytest.raises(StaleVersionError):
            await play_move(two, game.id, 2, "late")
        await holder
        assert (await two.get_game(game.id)).version == 3


async def test_locked_database_is_a_storage_error(target: Target):
    async with target.make() as one, target.make(timeout=0.05) as two:
        ali = await one.get_or_create_user("telegram", "1", "Ali")
        async with one.transaction():
            await one.set_user_lang(ali.id, "ru")  # part of the transaction: the row is locked
            with pytest.raises(StorageError) as caught:
                await two.set_user_lang(ali.id, "tr")
            assert not isinstance(caught.value, StaleVersionError)
            if target.backend == "sqlite":
                assert "locked" in str(caught.value.__cause__)
            else:
                assert isinstance(caught.value.__cause__, asyncpg.LockNotAvailableError)
        await two.set_user_lang(ali.id, "tr")  # fine once the other worker is done
        assert (await one.get_user(ali.id)).lang == "tr"


async def test_data_persists_across_close_and_open(target: Target):
    store = target.make()
    await store.open()
    ali = await store.get_or_create_user("telegram", "1", "Ali")
    game = await insert(store, new_game(ali.id, None))
    await store.close()
    await store.close()  # idempotent
    await store.open()
    assert await store.get_game(game.id) == game
    assert await store.find_user("telegram", "ali") == ali
    await store.close()


# --- ratings and results -----------------------------------------------------------------


async def test_ratings_and_history(storage: Storage, players):
    ali, _ = players
    async with storage.transaction() as tx:
        fresh = await tx.get_rating(ali.id, "global", "tavla")
        assert fresh == RatingRow(ali.id, "global", "tavla", 1500.0, 0, 0)
        await tx.put_rating(RatingRow(ali.id, "global", "tavla", 1510.5, 3, 1), ts=100.0)
        await tx.put_rating(RatingRow(ali.id, "global", "tavla", 1504.25, 6, 2), ts=200.0)
        await tx.put_rating(RatingRow(ali.id, "telegram:-100", "tavla", 1490.0, 3, 1), ts=200.0)
        assert await tx.get_rating(ali.id, "global", "tavla") == RatingRow(
            ali.id, "global", "tavla", 1504.25, 6, 2
        )
        assert (await tx.get_rating(ali.id, "global", "uzun")).rating == 1500.0
    assert await storage.rating_history(ali.id, "global", "tavla") == [
        (100.0, 1510.5),
        (200.0, 1504.25),
    ]
    assert await storage.rating_history(ali.id, "telegram:-100", "tavla") == [(200.0, 1490.0)]


async def test_top(storage: Storage, players):
    ali, veli = players
    deniz = await storage.get_or_create_user("telegram", "104", "Deniz")
    async with storage.transaction() as tx:
        await tx.put_rating(RatingRow(ali.id, "global", "tavla", 1550.0, 10, 4), ts=1.0)
        await tx.put_rating(RatingRow(veli.id, "global", "tavla", 1620.0, 10, 4), ts=1.0)
        await tx.put_rating(RatingRow(deniz.id, "global", "tavla", 1550.0, 20, 8), ts=1.0)
        await tx.put_rating(RatingRow(ali.id, "global", "uzun", 1900.0, 10, 4), ts=1.0)
    top = await storage.top("global", "tavla")
    assert [(user.name, row.rating) for user, row in top] == [
        ("Veli Can", 1620.0),
        ("Deniz", 1550.0),  # same rating: more games first
        ("Ali", 1550.0),
    ]
    assert top[0][1] == RatingRow(veli.id, "global", "tavla", 1620.0, 10, 4)
    assert [user.id for user, _ in await storage.top("global", "tavla", limit=1)] == [veli.id]
    assert await storage.top("telegram:-100", "tavla") == []


async def test_results_and_count_rated_between(target: Target, storage: Storage, players):
    ali, veli = players
    deniz = await storage.get_or_create_user("telegram", "104", "Deniz")
    games = [await insert(storage, new_game(ali.id, veli.id)) for _ in range(5)]

    def result(game, winner, loser, finished, kind="tavla", rated=True, scope="global"):
        return ResultRow(
            game.id, scope, kind, winner.id, loser.id, 3, 3.0, 1.0, 1, 0, rated, finished
        )

    rows = [
        result(games[0], ali, veli, 100.0),
        result(games[0], ali, veli, 100.0, scope="telegram:-100"),  # same contest, chat scope
        result(games[1], veli, ali, 200.0),
        result(games[2], ali, veli, 300.0, rated=False),
        result(games[3], ali, veli, 400.0, kind="uzun"),
        result(games[4], deniz, ali, 500.0),
    ]
    async with storage.transaction() as tx:
        for row in rows:
            await tx.add_result(row)
        assert await tx.count_rated_between(ali.id, veli.id, "tavla", since=0.0) == 2
        assert await tx.count_rated_between(veli.id, ali.id, "tavla", since=0.0) == 2
        assert await tx.count_rated_between(ali.id, veli.id, "tavla", since=150.0) == 1
        assert await tx.count_rated_between(ali.id, veli.id, "tavla", since=200.0) == 1
        assert await tx.count_rated_between(ali.id, veli.id, "tavla", since=201.0) == 0
        assert await tx.count_rated_between(ali.id, veli.id, "uzun", since=0.0) == 1
        assert await tx.count_rated_between(ali.id, deniz.id, "tavla", since=0.0) == 1
        assert await tx.count_rated_between(veli.id, deniz.id, "tavla", since=0.0) == 0
    assert await storage.results_of_user(ali.id) == rows
    assert await storage.results_of_user(veli.id, kind="uzun") == [rows[4]]
    assert await storage.results_of_user(deniz.id) == [rows[5]]
    with pytest.raises(target.integrity_error):  # a contest is recorded once per scope
        async with storage.transaction() as tx:
            await tx.add_result(rows[0])
    assert len(await storage.results_of_user(ali.id)) == len(rows)


# --- DATABASE_URL ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "path"),
    [
        (None, DEFAULT_SQLITE_PATH),
        ("", DEFAULT_SQLITE_PATH),
        ("  ", DEFAULT_SQLITE_PATH),
        ("sqlite:///relative/path.db", "relative/path.db"),
        ("sqlite:///tavla.db", "tavla.db"),
        ("sqlite:////absolute/path.db", "/absolute/path.db"),
        ("SQLITE:////var/lib/tavla/my%20db.db", "/var/lib/tavla/my db.db"),
        ("sqlite+aiosqlite:///data/x.db", "data/x.db"),
        ("sqlite://:memory:", MEMORY),
        ("sqlite:///:memory:", MEMORY),
        ("sqlite://", MEMORY),
    ],
)
def test_sqlite_urls(url, path):
    assert sqlite_path_from_url(url) == path
    storage = storage_from_url(url)
    assert isinstance(storage, SqliteStorage)
    assert storage.path == path


def test_default_path_is_under_data():
    assert Path(DEFAULT_SQLITE_PATH) == Path("data/tavla.db")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://localhost/tavla", "not supported"),
        ("postgresql://", "names no PostgreSQL server"),
        ("mysql://localhost/tavla", "not supported"),
        ("data/tavla.db", "not a URL"),
        ("sqlite://host/tavla.db", "three slashes"),
        ("sqlite:///", "no database file"),
        ("sqlite:///x.db?mode=ro", "query"),
    ],
)
def test_bad_urls(url, message):
    with pytest.raises(ValueError, match=message):
        storage_from_url(url)


@pytest.mark.parametrize(
    ("url", "dsn"),
    [
        (
            "postgresql://tavla:secret@db.example:5433/tavla",
            "postgresql://tavla:secret@db.example:5433/tavla",
        ),
        ("postgres://localhost/tavla", "postgresql://localhost/tavla"),
        ("POSTGRESQL+asyncpg://localhost/tavla", "postgresql://localhost/tavla"),
        (" postgresql:///tavla?sslmode=disable ", "postgresql:///tavla?sslmode=disable"),
    ],
)
def test_postgres_urls(url, dsn):
    assert postgres_dsn_from_url(url) == dsn
    storage = storage_from_url(url)
    assert isinstance(storage, PostgresStorage)
    assert storage.dsn == dsn
    assert "secret" not in repr(storage)
    with pytest.raises(ValueError, match="PostgreSQL database, not a SQLite file"):
        sqlite_path_from_url(url)


async def test_default_url_creates_the_data_folder(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    storage: Storage = storage_from_url(None)
    await storage.open()
    try:
        ali = await storage.get_or_create_user("console", "me", "Me")
    finally:
        await storage.close()
    assert (tmp_path / "data" / "tavla.db").is_file()
    store = storage_from_url(f"sqlite:///{'data/tavla.db'}")
    async with store:
        assert await store.get_user(ali.id) == ali


async def test_absolute_and_memory_urls(tmp_path: Path):
    path = tmp_path / "deep" / "folder" / "t.db"
    async with storage_from_url(f"sqlite:///{path}") as store:  # an absolute path: 4 slashes
        await store.get_chat("telegram", "1")
    assert path.is_file()
    async with storage_from_url("sqlite://:memory:") as store:
        assert await store.get_chat("telegram", "1") == Chat("telegram", "1")
        async with store.transaction() as tx:
            assert (await tx.get_rating(1, "global", "tavla")).rating == 1500.0


async def test_pooled_connections_come_back_clean_without_a_reset_round_trip(
    postgres_schema: tuple[str, str],
):
    """PostgreSQL connections return to the pool without asyncpg's reset query (a round trip
    per release); what the reset would clear is never left behind: the rating's advisory
    lock ends with its transaction, and the connection settings stay."""
    dsn, schema = postgres_schema
    target = Target("postgres", dsn=dsn, schema=schema)
    async with target.make() as store:
        ali = await store.get_or_create_user("telegram", "1", "Ali")
        async with store.transaction() as tx:
            await tx.get_rating(ali.id, "global", "tavla")
            held = await raw(store, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")
            assert held == [(1,)]
        assert await raw(store, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'") == [
            (0,)
        ]
        assert store._pool is not None
        async with store._pool.acquire() as conn:
            assert conn.get_reset_query() == ""
            assert await conn.fetchval("SHOW lock_timeout") != "0"


# --- tournaments (migration 0004) ----------------------------------------------------------


TOURNAMENT_STATE = {"version": 1, "stage": "open", "entrants": [], "note": "Ayşe'nin kupası"}


def new_tournament(organiser: int, **changes) -> TournamentRecord:
    fields = {
        "platform": "telegram",
        "chat_id": "-100",
        "status": TournamentStatus.OPEN,
        "organiser": organiser,
        "state": dict(TOURNAMENT_STATE),
        "message": MessageRef(9, chat_id="-100"),
        "deadline": 1000.0,
        "created": 10.0,
        "updated": 10.0,
    }
    fields.update(changes)
    return TournamentRecord(**fields)


async def insert_tournament(storage: Storage, record: TournamentRecord) -> TournamentRecord:
    async with storage.transaction() as tx:
        return await tx.insert_tournament(record)


async def test_the_migration_makes_the_table(storage: Storage):
    assert "tournaments" in await table_names(storage)
    names = [row[0] for row in await raw(storage, "SELECT name FROM schema_migrations")]
    assert "0004_tournaments.sql" in names


async def test_insert_get_and_save_tournament(storage: Storage, players):
    ali, _ = players
    stored = await insert_tournament(storage, new_tournament(ali.id))
    assert stored.id is not None
    assert stored.version == 1
    loaded = await storage.get_tournament(stored.id)
    assert loaded == stored
    assert loaded.state["note"] == "Ayşe'nin kupası"
    assert loaded.status is TournamentStatus.OPEN

    async with storage.transaction() as tx:
        fresh = await tx.get_tournament(stored.id)
        fresh.status = TournamentStatus.RUNNING
        fresh.state = {**fresh.state, "stage": "running"}
        fresh.deadline = None
        fresh.message = None
        fresh.updated = 20.0
        saved = await tx.save_tournament(fresh, 1)
    assert saved.version == 2
    again = await storage.get_tournament(stored.id)
    assert again.version == 2
    assert again.status is TournamentStatus.RUNNING
    assert again.state["stage"] == "running"
    assert again.deadline is None
    assert again.message is None
    assert (again.created, again.updated) == (10.0, 20.0)
    assert await storage.get_tournament(stored.id + 1000) is None


async def test_a_stale_tournament_save_is_refused(storage: Storage, players):
    ali, _ = players
    stored = await insert_tournament(storage, new_tournament(ali.id))
    copies = [await storage.get_tournament(stored.id) for _ in range(2)]
    async with storage.transaction() as tx:
        copies[0].state = {**TOURNAMENT_STATE, "by": "first"}
        await tx.save_tournament(copies[0], copies[0].version)
    copies[1].state = {**TOURNAMENT_STATE, "by": "second"}
    with pytest.raises(StaleVersionError):
        async with storage.transaction() as tx:
            await tx.save_tournament(copies[1], copies[1].version)
    final = await storage.get_tournament(stored.id)
    assert final.version == 2
    assert final.state["by"] == "first"
    with pytest.raises(ValueError, match="insert_tournament first"):
        async with storage.transaction() as tx:
            await tx.save_tournament(new_tournament(ali.id), 1)
    with pytest.raises(ValueError, match="stored already"):
        async with storage.transaction() as tx:
            await tx.insert_tournament(final)


async def test_workers_recording_results_of_one_tournament_all_count(storage: Storage, players):
    """Read, change and save inside one transaction: the row is locked (PostgreSQL) or the
    database is (SQLite), so concurrent results are applied one after another, none lost."""
    ali, _ = players
    stored = await insert_tournament(storage, new_tournament(ali.id, state={"results": []}))

    async def record(result: str) -> None:
        async with storage.transaction() as tx:
            fresh = await tx.get_tournament(stored.id)
            await asyncio.sleep(0)  # let the others try to run in between
            fresh.state = {"results": [*fresh.state["results"], result]}
            await tx.save_tournament(fresh, fresh.version)

    await asyncio.gather(*(record(f"1.{n}") for n in range(1, 9)))
    final = await storage.get_tournament(stored.id)
    assert final.version == 9
    assert sorted(final.state["results"]) == [f"1.{n}" for n in range(1, 9)]


async def test_tournaments_in_chat(storage: Storage, players):
    ali, veli = players
    old = await insert_tournament(storage, new_tournament(ali.id, status=TournamentStatus.FINISHED))
    running = await insert_tournament(
        storage, new_tournament(veli.id, status=TournamentStatus.RUNNING)
    )
    opened = await insert_tournament(storage, new_tournament(ali.id))
    await insert_tournament(storage, new_tournament(ali.id, chat_id="-200"))
    live = await storage.tournaments_in_chat("telegram", "-100")
    assert [r.id for r in live] == [opened.id, running.id]  # newest first
    every = await storage.tournaments_in_chat("telegram", "-100", tuple(TournamentStatus))
    assert [r.id for r in every] == [opened.id, running.id, old.id]
    assert await storage.tournaments_in_chat("telegram", "-100", ()) == []
    assert await storage.tournaments_in_chat("discord", "-100") == []


async def test_due_tournaments(storage: Storage, players):
    ali, _ = players
    later = await insert_tournament(storage, new_tournament(ali.id, deadline=900.0))
    first = await insert_tournament(storage, new_tournament(ali.id, deadline=100.0))
    running = await insert_tournament(
        storage, new_tournament(ali.id, deadline=200.0, status=TournamentStatus.RUNNING)
    )
    await insert_tournament(storage, new_tournament(ali.id, deadline=None))
    await insert_tournament(
        storage, new_tournament(ali.id, deadline=50.0, status=TournamentStatus.CANCELLED)
    )
    await insert_tournament(
        storage, new_tournament(ali.id, deadline=50.0, status=TournamentStatus.FINISHED)
    )
    due = await storage.due_tournaments(300.0)
    assert [r.id for r in due] == [first.id, running.id]
    assert [r.id for r in await storage.due_tournaments(300.0, limit=1)] == [first.id]
    assert later.id in [r.id for r in await storage.due_tournaments(900.0)]


#: A game's settings as the versions before typed settings wrote them: every key they used.
OLD_SETTINGS = {
    "length": 5,
    "fast": True,
    "scope": "telegram:-100",
    "computer": 1,
    "level": "expert",
    "names": ["Ali", "Tavla bot (expert)"],
    "state_version": 12,
    "logged": [2, 31],
    "claimable_since": 1800000123.5,
    "abort_by": 0,
    "moves": ["a key this version does not know"],
}


@pytest.mark.parametrize(
    "old",
    [
        OLD_SETTINGS,
        {"length": 3, "fast": False, "scope": "discord:7"},  # a challenge
        {"length": 1, "fast": False, "scope": "telegram:-5", "tournament": 4, "pairing": "2.1"},
    ],
)
async def test_old_settings_rows_load_and_are_written_back_as_they_were(storage, players, old):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id))
    await raw(storage, "UPDATE games SET settings = ? WHERE id = ?", (json.dumps(old), game.id))
    loaded = await storage.get_game(game.stored_id)
    assert loaded is not None
    settings = loaded.settings
    assert (settings.length, settings.fast, settings.scope) == (
        old["length"],
        old["fast"],
        old["scope"],
    )
    assert settings.computer == old.get("computer")
    assert settings.level == old.get("level")
    assert settings.tournament == old.get("tournament")
    assert settings.pairing == old.get("pairing")
    if "names" in old:
        assert list(settings.names) == old["names"]
        assert settings.logged == tuple(old["logged"])
        assert settings.state_version == old["state_version"]
        assert settings.claimable_since == old["claimable_since"]
        assert settings.abort_by == old["abort_by"]
        assert settings.extra == {"moves": old["moves"]}
    async with storage.transaction() as tx:
        await tx.save_game(loaded, loaded.version)
    (stored,) = await raw(storage, "SELECT settings FROM games WHERE id = ?", (game.id,))
    written = json.loads(stored[0]) if isinstance(stored[0], str) else stored[0]
    assert written == old


#: Message references as the versions before MessageRef wrote them, each with what it names.
OLD_MESSAGES = [
    # Telegram: a board (the chat id a number); a row without "photo" (older still).
    (
        {"chat_id": -1001234, "message_id": 7, "photo": True},
        MessageRef(7, chat_id="-1001234", photo=True),
    ),
    ({"chat_id": -100, "message_id": 42}, MessageRef(42, chat_id="-100")),
    # Discord: a board bound with "image", a standings picture posted with "photo".
    (
        {"chat_id": "55", "channel_id": "66", "message_id": 1234567890123, "image": False},
        MessageRef(1234567890123, chat_id="55", channel_id="66", photo=False),
    ),
    (
        {"chat_id": "55", "channel_id": "66", "message_id": 9, "photo": True},
        MessageRef(9, chat_id="55", channel_id="66", photo=True),
    ),
]


@pytest.mark.parametrize(("old", "ref"), OLD_MESSAGES)
async def test_old_message_rows_load_as_references(storage, players, old, ref):
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id))
    await raw(storage, "UPDATE games SET message = ? WHERE id = ?", (json.dumps(old), game.id))
    tourney = await insert_tournament(storage, new_tournament(ali.id))
    await raw(
        storage, "UPDATE tournaments SET message = ? WHERE id = ?", (json.dumps(old), tourney.id)
    )
    assert (await storage.get_game(game.stored_id)).message == ref
    assert (await storage.get_tournament(tourney.stored_id)).message == ref


async def test_message_references_are_written_in_the_old_keys(storage, players):
    # What older versions read: "chat_id", "channel_id", "message_id" (a number), "photo".
    ali, veli = players
    game = await insert(storage, new_game(ali.id, veli.id, message=None))
    await storage.set_game_message(game.stored_id, MessageRef(8, chat_id="5", channel_id="6"))
    (stored,) = await raw(storage, "SELECT message FROM games WHERE id = ?", (game.id,))
    written = json.loads(stored[0]) if isinstance(stored[0], str) else stored[0]
    assert written == {"chat_id": "5", "channel_id": "6", "message_id": 8}
    await storage.mark_board_shown(game.stored_id, 1, MessageRef(9, chat_id="-100", photo=False))
    (stored,) = await raw(storage, "SELECT message FROM games WHERE id = ?", (game.id,))
    written = json.loads(stored[0]) if isinstance(stored[0], str) else stored[0]
    assert written == {"chat_id": "-100", "message_id": 9, "photo": False}


async def test_a_message_column_without_a_message_id_loads_as_none(storage, players):
    # The console once bound a tournament's card as {"console": true}: no message to edit.
    ali, _ = players
    tourney = await insert_tournament(storage, new_tournament(ali.id))
    await raw(
        storage, "UPDATE tournaments SET message = ? WHERE id = ?", ('{"console":true}', tourney.id)
    )
    assert (await storage.get_tournament(tourney.stored_id)).message is None


@given(
    st.builds(
        MessageRef,
        message_id=st.integers(1, 2**63 - 1),
        chat_id=st.none() | st.from_regex(r"-?[0-9]{1,19}", fullmatch=True),
        channel_id=st.none() | st.from_regex(r"[0-9]{1,19}", fullmatch=True),
        photo=st.none() | st.booleans(),
    )
)
def test_a_message_reference_survives_its_stored_form(ref: MessageRef):
    assert MessageRef.from_stored(json.loads(json.dumps(ref.to_stored()))) == ref


def test_the_same_message_whatever_one_side_does_not_know():
    board = MessageRef(9, chat_id="55", channel_id="66", photo=True)
    assert board.same_message(MessageRef(9, channel_id="66"))  # a Discord press: no chat
    assert MessageRef(9, chat_id="-1").same_message(MessageRef(9))
    assert not board.same_message(MessageRef(9, channel_id="67"))
    assert not board.same_message(MessageRef(10, channel_id="66"))
    assert not MessageRef(9, chat_id="-1").same_message(MessageRef(9, chat_id="-2"))
