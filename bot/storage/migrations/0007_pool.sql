-- Tavla schema, version 7: the pool of players waiting for an opponent (/play), who blocked
-- whom, reports about pool games, and how many pool games in a row a player left.

-- One entry per player: what they want (variant, length, pace), their pool rating, since
-- when they wait, when others may be paired with them (later for a player who left games
-- in a row) and when the entry expires; where they asked (platform, chat_id) and the
-- waiting message (JSON), and the service's bookkeeping (JSON).
CREATE TABLE pool_entries (
    user_id  INTEGER PRIMARY KEY REFERENCES users (id),
    variant  TEXT    NOT NULL,
    length   INTEGER NOT NULL,
    pace     TEXT    NOT NULL,
    rating   REAL    NOT NULL,
    joined   REAL    NOT NULL,
    eligible REAL    NOT NULL,
    expires  REAL    NOT NULL,
    platform TEXT    NOT NULL,
    chat_id  TEXT    NOT NULL,
    message  TEXT,
    data     TEXT    NOT NULL DEFAULT '{}'
);
CREATE INDEX pool_entries_bucket ON pool_entries (variant, length, pace, joined);
CREATE INDEX pool_entries_expires ON pool_entries (expires);

-- `user_id` never wants to be paired with `blocked` again (checked both ways).
CREATE TABLE blocks (
    user_id INTEGER NOT NULL REFERENCES users (id),
    blocked INTEGER NOT NULL REFERENCES users (id),
    created REAL    NOT NULL,
    PRIMARY KEY (user_id, blocked)
) WITHOUT ROWID;
CREATE INDEX blocks_blocked ON blocks (blocked);

-- A player's report about an opponent, kept with the game for the operator.
CREATE TABLE reports (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    reporter INTEGER NOT NULL REFERENCES users (id),
    reported INTEGER NOT NULL REFERENCES users (id),
    game_id  INTEGER REFERENCES games (id),
    reason   TEXT    NOT NULL,
    created  REAL    NOT NULL
);
CREATE INDEX reports_reported ON reports (reported);

-- Pool games a player left in a row (lost on time); a game played out sets it back to 0.
CREATE TABLE pool_players (
    user_id       INTEGER PRIMARY KEY REFERENCES users (id),
    left_in_a_row INTEGER NOT NULL DEFAULT 0,
    updated       REAL    NOT NULL
);
