-- Tavla schema, version 11 (PostgreSQL): see migrations/0011_open_puzzles.sql.
CREATE TABLE open_puzzles (
    user_id   BIGINT NOT NULL REFERENCES users (id),
    platform  TEXT   NOT NULL,
    chat_id   TEXT   NOT NULL,
    puzzle_id BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    shown     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, platform, chat_id)
);
CREATE INDEX open_puzzles_puzzle ON open_puzzles (puzzle_id);
