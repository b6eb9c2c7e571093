-- Tavla schema, version 6: a group's language until one is set with /lang (the one most of
-- its players use, at first the first speaker's: bot/service/group_lang.py), kept apart
-- from the language set with /lang (lang) and from the admins' settings (prefs).
ALTER TABLE chats ADD COLUMN group_lang TEXT;
