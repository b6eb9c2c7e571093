"""What a service operator may tune: limits, timings, pictures and keyboards by platform."""

from __future__ import annotations

from dataclasses import dataclass, field

from renderers.picture import JPEG

from .keypad import DISCORD_LIMITS, KeypadLimits

DAY = 24 * 3600.0


#: The leaderboard scope of the pool's games (``/top pool``).
POOL_SCOPE = "pool"


@dataclass
class ServiceSettings:
    """Tunable behaviour; defaults are what players get."""

    turn_limit: float = DAY  # inactivity limit per action
    fast_turn_limit: float = 300.0  # for contests started as "fast"
    challenge_ttl: float = 3600.0
    reminder_at: float = 0.75  # remind after this share of the limit
    max_rated_per_day: int = 3  # rated contests per pair and game kind in 24 h
    theme: str = "classic"
    render_images: bool = True
    max_match_length: int = 25
    # Per-user flood guard: this many actions, refilled over this many seconds. A whole
    # doubles turn pressed at human speed (ten presses in three seconds) stays well inside.
    burst_actions: int = 16
    burst_window: float = 8.0
    # A separate allowance for presses that change nothing (another player's board, an old
    # board, a refused move): they never use up the player's own, but a machine-speed flood
    # of them is still refused.
    idle_actions: int = 30
    idle_window: float = 10.0
    # Platforms whose users the flood guard leaves alone: the console is the operator at
    # their own terminal (or a script piping moves into it), with no other players to
    # protect and nobody else's allowance to use up.
    unguarded_platforms: frozenset[str] = frozenset({"console"})
    # Platforms where nothing is rated: at the console one keyboard is one person, whoever
    # the seats say plays (hot-seat games kept from earlier versions had two local players).
    unrated_platforms: frozenset[str] = frozenset({"console"})
    # A board that lags its game is redrawn by the deadline rounds once it has lagged this
    # long (an edit may wait for Telegram's per-group limit meanwhile), for this long at most.
    repair_after: float = 90.0
    # A second press within this many seconds of a change, while that change's board is
    # still on its way, is a double press: answered with a toast rather than another edit.
    double_press: float = 2.0
    repair_within: float = 7 * DAY
    repair_batch: int = 50
    # Board pictures are drawn in this many worker processes (0: a thread of this process).
    # Processes let drawing use another core while this one answers players.
    render_processes: int = 0
    # Hints are computed in this many worker processes (0: a thread of this process; GNU
    # Backgammon's module works only in the thread that first used it).
    advice_processes: int = 1
    # The tutor is on by itself for a player's first so many games against the computer.
    tutor_first_games: int = 10
    # Seconds a press waits at most for the tutor's verdict before it is made without it.
    tutor_wait: float = 2.0
    # Finished contests are searched for puzzles in a worker process of their own (the bot
    # turns it on; a service made for a test or a bench spends no CPU on it unless asked).
    game_puzzles: bool = False
    # Picture format by platform (PNG elsewhere): Telegram re-encodes every photo as JPEG
    # anyway, so a JPEG costs its players nothing and half the encoding; Discord shows
    # attachments as they are, so it keeps the exact PNG.
    picture_formats: dict[str, str] = field(default_factory=lambda: {"telegram": JPEG})
    # Drawn boards kept by what they show (renderers.picture.PictureCache), in bytes.
    picture_cache_bytes: int = 32 << 20
    # How many whole plays and checker moves a board's keyboard shows, by platform
    # (bot.service.keypad); Discord allows 25 buttons a message.
    # The pool (/play): how many daily games a player may have going at once, and the
    # platforms whose groups may use it (a Discord server keeps each member's board apart
    # enough; a Telegram group would show a stranger's game to everyone).
    pool_daily_games: int = 10
    # A daily pool game tells the player in private that it is their turn at most this often.
    turn_notice_every: float = 3600.0
    pool_in_groups: frozenset[str] = frozenset({"discord"})
    keypad: dict[str, KeypadLimits] = field(default_factory=lambda: {"discord": DISCORD_LIMITS})
