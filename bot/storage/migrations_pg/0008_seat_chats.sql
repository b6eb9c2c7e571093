-- Tavla schema, version 8 (PostgreSQL): see migrations/0008_seat_chats.sql.
CREATE TABLE seat_chats (
    game_id       BIGINT  NOT NULL REFERENCES games (id),
    seat          INTEGER NOT NULL CHECK (seat IN (0, 1)),
    user_id       BIGINT  NOT NULL REFERENCES users (id),
    platform      TEXT    NOT NULL,
    chat_id       TEXT    NOT NULL,
    message       JSON,
    shown_version INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX seat_chats_chat ON seat_chats (platform, chat_id);
