-- Tavla schema, version 8: games whose two seats are in two chats (a pool game: each player
-- plays in their own private chat with the bot, perhaps on two platforms). One row per seat:
-- the player, their chat, their board message (JSON) and the game version it shows.
CREATE TABLE seat_chats (
    game_id       INTEGER NOT NULL REFERENCES games (id),
    seat          INTEGER NOT NULL CHECK (seat IN (0, 1)),
    user_id       INTEGER NOT NULL REFERENCES users (id),
    platform      TEXT    NOT NULL,
    chat_id       TEXT    NOT NULL,
    message       TEXT,
    shown_version INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX seat_chats_chat ON seat_chats (platform, chat_id);
