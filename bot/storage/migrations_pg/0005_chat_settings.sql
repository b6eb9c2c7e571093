-- Tavla schema, version 5 (PostgreSQL): see migrations/0005_chat_settings.sql.
ALTER TABLE chats ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';
