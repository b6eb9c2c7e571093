# ruff: noqa: F811  (the storage fixtures come from tests/test_storage.py)
"""Puzzles in the database (bot/storage/puzzles.py), on SQLite and on PostgreSQL: one puzzle
per position, one try per person and place, Glicko-2 ratings and streaks, daily puzzles,
and the games of a player who keeps them out (or is forgotten) taken out."""

from __future__ import annotations

from bot.storage.base import Storage
from bot.storage.refs import MessageRef

# The storage on both databases: test_storage's fixtures.
from tests.test_storage import (  # noqa: F401  (db_path, storage and target are fixtures)
    db_path,
    insert,
    new_game,
    storage,
    target,
)

NOW = 1_700_000_000.0


def data(n: int) -> dict:
    return {"variant": "tavla", "position": f"P{n}", "dice": [3, 1], "candidates": []}


async def test_a_puzzle_is_stored_once(storage: Storage) -> None:
    first = await storage.puzzles.add("tavla:X:31", "tavla", data(1), "selfplay", None, NOW)
    assert first is not None
    again = await storage.puzzles.add("tavla:X:31", "tavla", data(1), "selfplay", None, NOW)
    assert again is None
    stored = await storage.puzzles.get(first)
    assert stored is not None
    assert stored.data == data(1)
    assert stored.rating == 1500
    assert await storage.puzzles.count() == 1
    assert await storage.puzzles.count("uzun") == 0


async def test_one_try_rates_the_player_and_the_puzzle(storage: Storage) -> None:
    user = await storage.get_or_create_user("telegram", "7", "Ayşe")
    a = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    b = await storage.puzzles.add("k2", "tavla", data(2), "selfplay", None, NOW)
    assert (await storage.puzzles.next_for(user.id, "tavla", 1500)).id == a
    before, after = await storage.puzzles.attempt(user.id, a, 0, True, "", NOW)
    assert before.rating == 1500
    assert after.rating > 1500
    assert after.streak == 1
    assert after.solved == 1
    assert await storage.puzzles.attempt(user.id, a, 1, False, "", NOW + 1) is None  # one try
    puzzle = await storage.puzzles.get(a)
    assert puzzle.rating < 1500  # solved: the puzzle lost
    assert (await storage.puzzles.next_for(user.id, "tavla", 1500)).id == b
    _, lost = await storage.puzzles.attempt(user.id, b, 1, False, "", NOW + 2)
    assert lost.streak == 0
    assert lost.best_streak == 1
    assert lost.attempts == 2
    assert await storage.puzzles.player(user.id) == lost
    assert await storage.puzzles.next_for(user.id, None, 1500) is None


async def test_a_groups_daily_puzzle(storage: Storage) -> None:
    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    veli = await storage.get_or_create_user("telegram", "2", "Veli")
    pid = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    assert await storage.puzzles.set_daily("telegram", "-100", "2026-12-04", pid, NOW)
    assert not await storage.puzzles.set_daily("telegram", "-100", "2026-12-04", pid, NOW)
    ref = MessageRef(55, chat_id="-100")
    await storage.puzzles.set_daily_message("telegram", "-100", "2026-12-04", ref)
    daily = await storage.puzzles.daily("telegram", "-100", "2026-12-04")
    assert daily.puzzle_id == pid
    assert daily.message == ref
    assert not daily.revealed
    scope = "telegram:-100:2026-12-04"
    assert await storage.puzzles.attempt(ali.id, pid, 2, True, scope, NOW)
    assert await storage.puzzles.attempt(veli.id, pid, 0, False, scope, NOW + 1)
    assert await storage.puzzles.attempt(ali.id, pid, 0, False, scope, NOW + 2) is None
    assert await storage.puzzles.attempts(scope) == [(ali.id, 2, True), (veli.id, 0, False)]
    assert (await storage.puzzles.player(ali.id)).rating == 1500  # a group's try isn't rated
    assert await storage.puzzles.leaderboard("telegram:-100:") == [(ali.id, 1)]
    assert [d.day for d in await storage.puzzles.dailies_to_reveal("2026-12-04")] == ["2026-12-04"]
    assert await storage.puzzles.reveal_daily("telegram", "-100", "2026-12-04")
    assert not await storage.puzzles.reveal_daily("telegram", "-100", "2026-12-04")
    assert await storage.puzzles.dailies_to_reveal("2026-12-05") == []


async def game_of(storage: Storage, seat0: int, seat1: int) -> int:
    return (await insert(storage, new_game(seat0, seat1))).id


async def test_a_players_games_are_taken_out(storage: Storage) -> None:
    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    veli = await storage.get_or_create_user("telegram", "2", "Veli")
    game = await game_of(storage, ali.id, veli.id)
    theirs = await storage.puzzles.add("k1", "tavla", data(1), "game", game, NOW)
    mine = await storage.puzzles.add("k2", "tavla", data(2), "selfplay", None, NOW)
    await storage.puzzles.attempt(veli.id, theirs, 0, True, "", NOW)
    assert await storage.puzzles.remove_games_of(ali.id) == 1
    assert await storage.puzzles.get(theirs) is None
    assert await storage.puzzles.get(mine) is not None


async def test_forget_takes_the_puzzle_record(storage: Storage) -> None:
    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    pid = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    await storage.puzzles.attempt(ali.id, pid, 0, True, "", NOW)
    await storage.forget_user(ali.id, "Forgotten", NOW)
    assert (await storage.puzzles.player(ali.id)).attempts == 0
    assert (await storage.puzzles.next_for(ali.id, None, 1500)).id == pid


async def test_the_puzzle_open_in_each_chat(storage: Storage) -> None:
    """One open puzzle a player and chat (a typed move answers it): a newer replaces it, an
    answer closes it in every chat, and it goes with its puzzle and with a forgotten player."""
    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    veli = await storage.get_or_create_user("telegram", "2", "Veli")
    game = await game_of(storage, ali.id, veli.id)
    a = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    b = await storage.puzzles.add("k2", "tavla", data(2), "game", game, NOW)
    later = NOW + 10
    assert await storage.puzzles.opened(ali.id, "telegram", "1", later) is None
    await storage.puzzles.open(ali.id, "telegram", "1", a, NOW)
    await storage.puzzles.open(ali.id, "telegram", "1", b, NOW + 5)
    await storage.puzzles.open(ali.id, "discord", "9", a, NOW + 6)
    await storage.puzzles.open(veli.id, "telegram", "2", a, NOW + 7)
    assert await storage.puzzles.opened(ali.id, "telegram", "1", later) == b
    assert await storage.puzzles.opened(ali.id, "discord", "9", later) == a
    await storage.puzzles.close(ali.id, a)
    assert await storage.puzzles.opened(ali.id, "discord", "9", later) is None
    assert await storage.puzzles.opened(veli.id, "telegram", "2", later) == a
    await storage.puzzles.remove_games_of(veli.id)  # puzzle b goes, and with it its opening
    assert await storage.puzzles.opened(ali.id, "telegram", "1", later) is None
    ayse = await storage.get_or_create_user("telegram", "3", "Ayşe")
    await storage.puzzles.open(ayse.id, "telegram", "3", a, NOW)
    assert await storage.forget_user(ayse.id, "Forgotten", NOW) is None
    assert await storage.puzzles.opened(ayse.id, "telegram", "3", later) is None


async def test_an_open_puzzle_closes_with_time_and_with_a_game_in_its_chat(
    storage: Storage,
) -> None:
    """An open puzzle answers typed plays for OPEN_FOR seconds after it was shown, and only
    until one of the player's games in that chat (started there, or with the player's seat
    played there) starts or changes; past its time the deadline rounds delete it."""
    from bot.storage.base import SeatChat
    from bot.storage.puzzles import OPEN_FOR

    ali = await storage.get_or_create_user("telegram", "1", "Ali")
    veli = await storage.get_or_create_user("telegram", "2", "Veli")
    pid = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    await storage.puzzles.open(ali.id, "telegram", "1", pid, NOW)
    await storage.puzzles.open(veli.id, "telegram", "2", pid, NOW)
    assert await storage.puzzles.opened(ali.id, "telegram", "1", NOW + OPEN_FOR - 1) == pid
    assert await storage.puzzles.opened(ali.id, "telegram", "1", NOW + OPEN_FOR) is None
    # A game of Ali's elsewhere, or one changed before the puzzle was shown, keeps it open.
    await insert(storage, new_game(ali.id, veli.id, created=NOW + 1, updated=NOW + 1))
    await insert(storage, new_game(ali.id, None, chat_id="1", created=NOW - 9, updated=NOW))
    assert await storage.puzzles.opened(ali.id, "telegram", "1", NOW + 2) == pid
    # A game started in the chat after it closes it.
    await insert(storage, new_game(ali.id, None, chat_id="1", created=NOW + 3, updated=NOW + 3))
    assert await storage.puzzles.opened(ali.id, "telegram", "1", NOW + 4) is None
    # A game of two chats (the pool's) with Veli's seat in his private chat closes his.
    pool = await insert(storage, new_game(ali.id, veli.id, created=NOW + 3, updated=NOW + 3))
    assert await storage.puzzles.opened(veli.id, "telegram", "2", NOW + 4) == pid
    async with storage.transaction() as tx:
        await tx.pool.add_seat_chats([SeatChat(pool.id, 1, veli.id, "telegram", "2")])
    assert await storage.puzzles.opened(veli.id, "telegram", "2", NOW + 4) is None
    # Past its time it is deleted (it would not answer even at a time before that).
    assert await storage.puzzles.close_stale(NOW + OPEN_FOR - 1) == 0
    assert await storage.puzzles.close_stale(NOW + OPEN_FOR) == 2
    assert await storage.puzzles.opened(veli.id, "telegram", "2", NOW) is None


async def test_the_chats_with_a_daily_puzzle_and_their_next_puzzle(storage: Storage) -> None:
    from bot.storage.base import ChatPrefs

    await storage.get_chat("telegram", "-100")
    await storage.get_chat("telegram", "-200")
    assert await storage.puzzles.daily_chats() == []
    await storage.set_chat_prefs("telegram", "-200", ChatPrefs(daily_puzzle=True, puzzle_hour=12))
    assert await storage.puzzles.daily_chats() == [("telegram", "-200")]
    assert (await storage.get_chat("telegram", "-200")).prefs.puzzle_hour == 12
    await storage.set_chat_prefs("telegram", "-100", ChatPrefs(auto_analysis=True))
    assert await storage.puzzles.daily_chats() == [("telegram", "-200")]
    assert await storage.puzzles.next_daily("telegram", "-200") is None
    a = await storage.puzzles.add("k1", "tavla", data(1), "selfplay", None, NOW)
    b = await storage.puzzles.add("k2", "tavla", data(2), "selfplay", None, NOW)
    first = (await storage.puzzles.next_daily("telegram", "-200", "2026-12-04")).id
    assert first in (a, b)
    assert await storage.puzzles.set_daily("telegram", "-200", "2026-12-04", first, NOW)
    other = b if first == a else a
    assert (await storage.puzzles.next_daily("telegram", "-200", "2026-12-05")).id == other
    # Another group: the puzzle no group has had yet, before the one just shown.
    assert (await storage.puzzles.next_daily("telegram", "-100", "2026-12-04")).id == other
    # A game the group has not had comes before another of the one it had.
    c = await storage.puzzles.add("k3", "uzun", data(3), "selfplay", None, NOW)
    assert (await storage.puzzles.next_daily("telegram", "-200", "2026-12-05")).id == c
    # An hour or a time zone the bot does not offer (forged, or old) falls back to the default.
    assert ChatPrefs.from_json('{"puzzle_hour": 3}').puzzle_hour == ChatPrefs().puzzle_hour
    assert ChatPrefs.from_json('{"reveal_hour": 3}').reveal_hour == ChatPrefs().reveal_hour
    for zone in ('"Mars/Olympus"', '"UTC+15"', '"UTC-13"', "3"):
        assert ChatPrefs.from_json(f'{{"timezone": {zone}}}').timezone == "UTC"
    for zone in ("Europe/Istanbul", "UTC+14", "UTC-12", "UTC+3"):
        assert ChatPrefs.from_json(f'{{"timezone": "{zone}"}}').timezone == zone
