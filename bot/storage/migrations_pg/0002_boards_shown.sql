-- Tavla schema, version 2 (PostgreSQL): see migrations/0002_boards_shown.sql.
ALTER TABLE games ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
UPDATE games SET shown_version = version;
CREATE INDEX games_lagging ON games (updated) WHERE shown_version < version;
ALTER TABLE chats ADD COLUMN paused DOUBLE PRECISION;
