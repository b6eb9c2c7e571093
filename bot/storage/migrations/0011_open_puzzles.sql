-- Tavla schema, version 11: the puzzle each player has open in a chat (shown by /puzzle,
-- not answered yet), so that a move typed there answers it as its button would. One a
-- player and chat: a newer puzzle replaces it, an answer takes it out.
CREATE TABLE open_puzzles (
    user_id   INTEGER NOT NULL REFERENCES users (id),
    platform  TEXT    NOT NULL,
    chat_id   TEXT    NOT NULL,
    puzzle_id INTEGER NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    shown     REAL    NOT NULL,
    PRIMARY KEY (user_id, platform, chat_id)
);
CREATE INDEX open_puzzles_puzzle ON open_puzzles (puzzle_id);
