-- Tavla schema, version 9 (PostgreSQL): see migrations/0009_puzzles.sql.
CREATE TABLE puzzles (
    id         BIGSERIAL PRIMARY KEY,
    key        TEXT    NOT NULL UNIQUE,
    variant    TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    source     TEXT    NOT NULL,
    game_id    BIGINT,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    created    DOUBLE PRECISION NOT NULL
);
CREATE INDEX puzzles_variant_rating ON puzzles (variant, rating);
CREATE INDEX puzzles_game ON puzzles (game_id);

CREATE TABLE puzzle_attempts (
    puzzle_id BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    user_id   BIGINT NOT NULL REFERENCES users (id),
    scope     TEXT    NOT NULL,
    chosen    BIGINT NOT NULL,
    solved    BIGINT NOT NULL,
    created   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (puzzle_id, user_id, scope)
);
CREATE INDEX puzzle_attempts_scope ON puzzle_attempts (scope, created);
CREATE INDEX puzzle_attempts_user ON puzzle_attempts (user_id);

CREATE TABLE puzzle_players (
    user_id     BIGINT PRIMARY KEY REFERENCES users (id),
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    streak      BIGINT NOT NULL DEFAULT 0,
    best_streak BIGINT NOT NULL DEFAULT 0,
    solved      BIGINT NOT NULL DEFAULT 0,
    attempts    BIGINT NOT NULL DEFAULT 0,
    updated     DOUBLE PRECISION NOT NULL
);

CREATE TABLE daily_puzzles (
    platform  TEXT    NOT NULL,
    chat_id   TEXT    NOT NULL,
    day       TEXT    NOT NULL,
    puzzle_id BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    message   TEXT,
    revealed  BIGINT NOT NULL DEFAULT 0,
    created   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (platform, chat_id, day)
);
