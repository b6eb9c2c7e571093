-- Tavla schema, version 9 (PostgreSQL): see migrations/0009_turn_notices.sql.
ALTER TABLE seat_chats ADD COLUMN noticed DOUBLE PRECISION;
