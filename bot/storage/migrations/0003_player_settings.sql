-- Tavla schema, version 3: each player's own settings (/settings), as a JSON object.
--
-- Keys (all optional; a missing key means the default): "auto_roll" (roll by itself even
-- when doubling is possible), "auto_confirm" (a finished move is confirmed at once), "theme"
-- (a board theme's name) and "home" ("right" or "left": the side the player's home board is
-- drawn on). The language stays in its own column, `lang`.
ALTER TABLE users ADD COLUMN prefs TEXT NOT NULL DEFAULT '{}';
