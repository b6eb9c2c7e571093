-- Tavla schema, version 9: puzzles made from games, each player's attempts, puzzle rating
-- and streak, and the groups' daily puzzles.
--
-- A puzzle keeps no player's name or id: `data` is core.learn.puzzles.Puzzle.to_dict()
-- (the position, roll, cube and score, candidate plays). `game_id` names the game it came
-- from (NULL for the computer's self-play) only to take it out when that game's players
-- keep their games out of puzzles or are forgotten; it is never shown.
CREATE TABLE puzzles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    key        TEXT    NOT NULL UNIQUE,
    variant    TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    source     TEXT    NOT NULL,
    game_id    INTEGER,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    created    REAL    NOT NULL
);
CREATE INDEX puzzles_variant_rating ON puzzles (variant, rating);
CREATE INDEX puzzles_game ON puzzles (game_id);

-- One try per person and puzzle in each place: `scope` is '' in private, or the group's
-- daily puzzle ('platform:chat_id:day'). `chosen` indexes the puzzle's candidates.
CREATE TABLE puzzle_attempts (
    puzzle_id INTEGER NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    user_id   INTEGER NOT NULL REFERENCES users (id),
    scope     TEXT    NOT NULL,
    chosen    INTEGER NOT NULL,
    solved    INTEGER NOT NULL,
    created   REAL    NOT NULL,
    PRIMARY KEY (puzzle_id, user_id, scope)
);
CREATE INDEX puzzle_attempts_scope ON puzzle_attempts (scope, created);
CREATE INDEX puzzle_attempts_user ON puzzle_attempts (user_id);

-- Each player's puzzle rating (Glicko-2: core.glicko2) and streak of puzzles solved.
CREATE TABLE puzzle_players (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id),
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    volatility  REAL    NOT NULL,
    streak      INTEGER NOT NULL DEFAULT 0,
    best_streak INTEGER NOT NULL DEFAULT 0,
    solved      INTEGER NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0,
    updated     REAL    NOT NULL
);

-- A group's puzzle of the day: posted once (`message`, JSON), answered until `revealed`.
CREATE TABLE daily_puzzles (
    platform  TEXT    NOT NULL,
    chat_id   TEXT    NOT NULL,
    day       TEXT    NOT NULL,
    puzzle_id INTEGER NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
    message   TEXT,
    revealed  INTEGER NOT NULL DEFAULT 0,
    created   REAL    NOT NULL,
    PRIMARY KEY (platform, chat_id, day)
);
