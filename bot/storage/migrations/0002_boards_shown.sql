-- Tavla schema, version 2: which version of its game each board message shows, and chats the
-- bot can no longer speak in.
--
-- `shown_version` is the game version the board message last showed (the adapters confirm
-- every board they edit or post). A game whose board lags its saved version (the bot died
-- between the save and the edit, an edit failed) is redrawn by the deadline rounds. Existing
-- games start as shown, so an upgrade does not redraw every board.
ALTER TABLE games ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
UPDATE games SET shown_version = version;
CREATE INDEX games_lagging ON games (updated) WHERE shown_version < version;

-- Epoch seconds since the bot could no longer post in the chat (removed, muted, chat gone);
-- NULL while it can. Games there wait, and resume when the bot hears from the chat again.
ALTER TABLE chats ADD COLUMN paused REAL;
