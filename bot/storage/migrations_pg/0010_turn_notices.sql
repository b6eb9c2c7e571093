-- Tavla schema, version 10 (PostgreSQL): see migrations/0010_turn_notices.sql.
ALTER TABLE seat_chats ADD COLUMN noticed DOUBLE PRECISION;
