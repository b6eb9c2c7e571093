-- Tavla schema, version 4: tournaments (knockout, round robin, Swiss) run in a chat.
--
-- One row per tournament with the whole state of core.tournament.Tournament as JSON, like a
-- game's match. `version` goes up by one on every save (optimistic concurrency: two workers
-- recording results of the same tournament never overwrite each other). `status` mirrors the
-- state's stage (open, running, finished, cancelled) for the lookups; `deadline` is when the
-- deadline rounds must look at it next (the start time while it takes entries; "now" while
-- a round's matches wait to be started), NULL when nothing is due. The matches themselves
-- are ordinary games whose settings name the tournament and the pairing.
CREATE TABLE tournaments (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    platform   TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    organiser  INTEGER NOT NULL REFERENCES users (id),
    state      TEXT    NOT NULL, -- JSON: core.tournament.Tournament.to_dict()
    message    TEXT,             -- JSON: where its standings picture is shown
    deadline   REAL,
    created    REAL    NOT NULL,
    updated    REAL    NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1)
);
CREATE INDEX tournaments_chat_status ON tournaments (platform, chat_id, status);
CREATE INDEX tournaments_status_deadline ON tournaments (status, deadline);
