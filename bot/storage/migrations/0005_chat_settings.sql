-- Tavla schema, version 5: each chat's own settings (/settings in a group, admins only), as
-- a JSON object.
--
-- Keys (all optional; a missing key means the default): "auto_analysis" (every finished
-- rated match in the chat is analysed and its card posted).
ALTER TABLE chats ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';
