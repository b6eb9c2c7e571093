-- Tavla schema, version 1.
--
-- Applied by bot/storage/sqlite.py inside one transaction and recorded in schema_migrations.
-- Never edit a migration that has been released: add the next numbered file instead.
-- Timestamps are REAL epoch seconds; JSON values are TEXT; booleans are INTEGER 0/1.

-- A person on one platform. `handle` is the lower-cased username (or the name when the
-- platform has no username) without "@", and `name_key` the lower-cased display name: both
-- only serve lookups such as `/tavla @ali`.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    platform      TEXT    NOT NULL,
    platform_id   TEXT    NOT NULL,
    name          TEXT    NOT NULL,
    handle        TEXT    NOT NULL,
    name_key      TEXT    NOT NULL,
    lang          TEXT,
    platform_lang TEXT,
    is_bot        INTEGER NOT NULL DEFAULT 0,
    created       REAL    NOT NULL,
    updated       REAL    NOT NULL,
    UNIQUE (platform, platform_id)
);
CREATE INDEX users_handle ON users (platform, handle);
CREATE INDEX users_name_key ON users (platform, name_key);

-- A chat (Telegram) or channel (Discord) where games are played.
CREATE TABLE chats (
    platform TEXT NOT NULL,
    chat_id  TEXT NOT NULL,
    title    TEXT,
    lang     TEXT,
    created  REAL NOT NULL,
    PRIMARY KEY (platform, chat_id)
) WITHOUT ROWID;

-- One row per contest with its whole current state; `version` goes up by one on every save
-- (optimistic concurrency: buttons carry the version they were drawn for).
-- AUTOINCREMENT: a game id is never reused, so an old button can never reach a new game.
CREATE TABLE games (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    platform   TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    variant    TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    seat0      INTEGER REFERENCES users (id),
    seat1      INTEGER REFERENCES users (id),
    challenger INTEGER NOT NULL REFERENCES users (id),
    match      TEXT,             -- JSON: core.match.Match.to_dict(), NULL while a challenge waits
    dice       TEXT    NOT NULL, -- JSON: core.dice.SeededDice.to_dict()
    commitment TEXT    NOT NULL,
    settings   TEXT    NOT NULL, -- JSON
    message    TEXT,             -- JSON: where the board is shown
    deadline   REAL,
    reminded   INTEGER NOT NULL DEFAULT 0,
    rated      INTEGER NOT NULL DEFAULT 0,
    created    REAL    NOT NULL,
    updated    REAL    NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1)
);
CREATE INDEX games_chat_status ON games (platform, chat_id, status);
CREATE INDEX games_status_deadline ON games (status, deadline);
CREATE INDEX games_seat0 ON games (seat0, status);
CREATE INDEX games_seat1 ON games (seat1, status);

-- The append-only log of every game (rolls, plays, cube actions, resignations…), from which
-- any game can be replayed, exported and audited. The triggers refuse any change to it.
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    ts      REAL    NOT NULL,
    type    TEXT    NOT NULL,
    data    TEXT    NOT NULL, -- JSON
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

-- FIBS ratings per player, scope ("global" or "platform:chat_id") and kind of game.
CREATE TABLE ratings (
    user_id    INTEGER NOT NULL REFERENCES users (id),
    scope      TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    experience INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    updated    REAL    NOT NULL,
    PRIMARY KEY (user_id, scope, kind)
) WITHOUT ROWID;
CREATE INDEX ratings_top ON ratings (scope, kind, rating DESC);

-- Every rating after each rated contest, for charts.
CREATE TABLE rating_history (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id),
    scope      TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    ts         REAL    NOT NULL,
    rating     REAL    NOT NULL,
    experience INTEGER NOT NULL
);
CREATE INDEX rating_history_user ON rating_history (user_id, scope, kind, ts);

-- Finished contests, for statistics and the rated-games-per-day limit. One row per game and
-- scope: a contest can never be recorded twice.
CREATE TABLE results (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games (id),
    scope         TEXT    NOT NULL,
    kind          TEXT    NOT NULL,
    winner_id     INTEGER REFERENCES users (id),
    loser_id      INTEGER REFERENCES users (id),
    length        INTEGER NOT NULL,
    winner_points REAL    NOT NULL,
    loser_points  REAL    NOT NULL,
    gammons       INTEGER NOT NULL,
    backgammons   INTEGER NOT NULL,
    rated         INTEGER NOT NULL,
    finished      REAL    NOT NULL,
    UNIQUE (game_id, scope)
);
CREATE INDEX results_winner ON results (winner_id, kind, finished);
CREATE INDEX results_loser ON results (loser_id, kind, finished);
