-- Tavla schema, version 10: when a seat of a game in two chats was last told in private that
-- it is their turn (a daily pool game tells them at most once an hour).
ALTER TABLE seat_chats ADD COLUMN noticed REAL;
