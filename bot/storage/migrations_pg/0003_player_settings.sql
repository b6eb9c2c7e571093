-- Tavla schema, version 3 (PostgreSQL): see migrations/0003_player_settings.sql.
ALTER TABLE users ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';
