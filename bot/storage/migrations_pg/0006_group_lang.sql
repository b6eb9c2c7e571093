-- Tavla schema, version 6 (PostgreSQL): see migrations/0006_group_lang.sql.
ALTER TABLE chats ADD COLUMN group_lang TEXT;
