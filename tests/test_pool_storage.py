# ruff: noqa: F811  (the storage fixtures come from tests/test_storage.py)
"""The pool in the database (bot/storage/pool.py), on SQLite and on PostgreSQL.

PostgreSQL cases run when ``TAVLA_TEST_POSTGRES_URL`` is set (see conftest.py); the two-worker
tests then run two storages (two connection pools, as two processes would) on one schema.
"""

from __future__ import annotations

import asyncio
import random

from bot.storage.base import PoolEntry, Storage
from bot.storage.refs import MessageRef
from core.pool import LIFETIME, new_seeker

# The storage on both databases: test_storage's fixtures.
from tests.test_storage import Target, db_path, storage, target  # noqa: F401  (fixtures)

NOW = 1_700_000_000.0


async def users(storage: Storage, count: int) -> list[int]:
    return [
        (await storage.get_or_create_user("telegram", str(100 + n), f"P{n}")).id
        for n in range(count)
    ]


def entry(
    user_id: int,
    now: float = NOW,
    variant: str = "tavla",
    length: int = 1,
    pace: str = "fast",
    rating: float = 1500.0,
    left: int = 0,
) -> PoolEntry:
    seeker = new_seeker(user_id, variant, length, pace, rating, now, left_in_a_row=left)
    return PoolEntry(seeker, "telegram", str(user_id))


async def join(storage: Storage, e: PoolEntry, now: float | None = None) -> PoolEntry | None:
    """The entry joins (at the time it was made, unless ``now`` says otherwise)."""
    async with storage.transaction() as tx:
        return await tx.pool.pair_or_wait(e, e.seeker.joined if now is None else now)


async def test_the_second_fitting_player_is_paired_at_once(storage: Storage) -> None:
    a, b = await users(storage, 2)
    assert await join(storage, entry(a)) is None
    assert (await storage.pool.counts(NOW)) == {("tavla", 1, "fast"): 1}
    partner = await join(storage, entry(b, NOW + 3))
    assert partner is not None
    assert partner.user_id == a
    assert partner.platform == "telegram"
    assert partner.chat_id == str(a)
    assert await storage.pool.entry(a) is None
    assert await storage.pool.entry(b) is None
    assert await storage.pool.counts(NOW + 3) == {}


async def test_only_the_same_game_length_and_pace_fit(storage: Storage) -> None:
    a, b, c, d = await users(storage, 4)
    assert await join(storage, entry(a, variant="uzun")) is None
    assert await join(storage, entry(b, length=3)) is None
    assert await join(storage, entry(c, pace="daily")) is None
    assert await join(storage, entry(d)) is None
    assert await storage.pool.counts(NOW) == {
        ("uzun", 1, "fast"): 1,
        ("tavla", 3, "fast"): 1,
        ("tavla", 1, "daily"): 1,
        ("tavla", 1, "fast"): 1,
    }


async def test_the_nearest_rating_is_chosen(storage: Storage) -> None:
    a, b, c = await users(storage, 3)
    async with storage.transaction() as tx:  # two wait (as after a wait ended)
        await tx.pool.put(entry(a, rating=1900))
        await tx.pool.put(entry(b, rating=1450))
    partner = await join(storage, entry(c, rating=1500))
    assert partner is not None
    assert partner.user_id == b


async def test_a_blocked_player_is_never_paired_again(storage: Storage) -> None:
    a, b, c = await users(storage, 3)
    assert await storage.pool.block(a, b, NOW) is True
    assert await storage.pool.block(a, b, NOW) is False  # once is enough
    assert await storage.pool.blocked(b, a)
    assert await storage.pool.blocked(a, b)
    await join(storage, entry(a))
    assert await join(storage, entry(b)) is None  # the one blocked asks: still apart
    partner = await join(storage, entry(c))
    assert partner is not None
    assert partner.user_id in (a, b)


async def test_one_entry_per_player_a_new_wish_replaces_the_old(storage: Storage) -> None:
    (a,) = await users(storage, 1)
    await join(storage, entry(a))
    await join(storage, entry(a, variant="uzun", now=NOW + 1))
    assert await storage.pool.counts(NOW + 1) == {("uzun", 1, "fast"): 1}
    stored = await storage.pool.entry(a)
    assert stored is not None
    assert stored.seeker.variant == "uzun"


async def test_leaving_the_pool_and_keeping_the_waiting_message(storage: Storage) -> None:
    a, b = await users(storage, 2)
    await join(storage, entry(a))
    ref = MessageRef(message_id=7, chat_id=str(a))
    assert await storage.pool.update(a, NOW, ref, {"offered": True})
    stored = await storage.pool.entry(a)
    assert stored is not None
    assert stored.message == ref
    assert stored.data == {"offered": True}
    assert not await storage.pool.update(a, NOW - 5, None, {})  # another entry's
    async with storage.transaction() as tx:
        left = await tx.pool.leave(a)
        assert left is not None
        assert left.user_id == a
        assert await tx.pool.leave(a) is None
    assert await join(storage, entry(b)) is None  # nobody left to pair with


async def test_entries_expire(storage: Storage) -> None:
    a, b = await users(storage, 2)
    await join(storage, entry(a))
    later = NOW + LIFETIME["fast"] + 1
    assert await join(storage, entry(b, later), later) is None  # a's entry is over
    expired = await storage.pool.expire(later)
    assert [e.user_id for e in expired] == [a]
    assert await storage.pool.entry(a) is None
    assert await storage.pool.entry(b) is not None


async def test_a_player_who_left_games_in_a_row_waits_longer(storage: Storage) -> None:
    a, b = await users(storage, 2)
    for _ in range(4):
        await storage.pool.game_over(a, left=True, now=NOW)
    assert await storage.pool.left_in_a_row(a) == 4
    left = await storage.pool.left_in_a_row(a)
    leaver = entry(a, left=left)
    assert leaver.seeker.eligible > NOW
    await join(storage, leaver)
    assert await join(storage, entry(b)) is None  # not yet: both wait
    async with storage.transaction() as tx:
        assert await tx.pool.pair_waiting(("tavla", 1, "fast"), NOW + 1) == []
    when = leaver.seeker.eligible
    async with storage.transaction() as tx:
        pairs = await tx.pool.pair_waiting(("tavla", 1, "fast"), when)
    assert [{p.user_id for p in pair} for pair in pairs] == [{a, b}]
    assert await storage.pool.game_over(a, left=False, now=NOW) == 0  # a game played out


async def test_reports_are_kept_for_the_operator(storage: Storage) -> None:
    a, b = await users(storage, 2)
    first = await storage.pool.report(a, b, None, "rude", NOW)
    second = await storage.pool.report(b, a, None, "slow", NOW + 1)
    reports = await storage.pool.reports()
    assert [r.id for r in reports] == [second, first]
    assert (reports[1].reporter, reports[1].reported, reports[1].reason) == (a, b, "rude")


async def test_forgetting_a_player_takes_them_out_of_the_pool(storage: Storage) -> None:
    (a,) = await users(storage, 1)
    await join(storage, entry(a))
    await storage.pool.game_over(a, left=True, now=NOW)
    assert await storage.forget_user(a, "someone", NOW) is None
    assert await storage.pool.entry(a) is None
    assert await storage.pool.left_in_a_row(a) == 0


async def _many_joins(target: Target, players: int, buckets: int) -> None:
    """``players`` join at once through two workers; every pairing is checked."""
    first, second = target.make(), target.make()
    await first.open()
    await second.open()
    try:
        ids = await users(first, players)
        rng = random.Random(7)
        wishes = {p: ("tavla", 1 + 2 * rng.randrange(buckets), "fast") for p in ids}

        async def one(worker: Storage, player: int) -> PoolEntry | None:
            variant, length, pace = wishes[player]
            e = entry(
                player, variant=variant, length=length, pace=pace, rating=rng.gauss(1500, 200)
            )
            for _ in range(20):
                try:
                    return await join(worker, e)
                except Exception as exc:  # SQLite: the other worker held the write lock
                    if "locked" not in str(exc):
                        raise
                    await asyncio.sleep(0)
            raise AssertionError("never joined")

        results = await asyncio.gather(
            *(one(first if n % 2 else second, p) for n, p in enumerate(ids))
        )
        pairs = [(p, partner.user_id) for p, partner in zip(ids, results, strict=True) if partner]
        in_pairs = [p for pair in pairs for p in pair]
        assert len(in_pairs) == len(set(in_pairs)), "a player was paired twice"
        for a, b in pairs:
            assert wishes[a] == wishes[b]
        waiting = await first.pool.entries(NOW)
        assert not set(in_pairs) & {e.user_id for e in waiting}
        # Nobody who fits another is left waiting: the second saw the first.
        per_bucket: dict[tuple[str, int, str], int] = {}
        for e in waiting:
            per_bucket[e.bucket] = per_bucket.get(e.bucket, 0) + 1
        assert all(n <= 1 for n in per_bucket.values()), per_bucket
        assert len(in_pairs) + len(waiting) == players
    finally:
        await first.close()
        await second.close()


async def test_two_workers_never_pair_a_player_twice(target: Target) -> None:
    await _many_joins(target, players=60, buckets=3)


async def test_two_workers_one_bucket(target: Target) -> None:
    await _many_joins(target, players=41, buckets=1)


async def test_a_game_in_two_chats_is_found_in_each(storage: Storage) -> None:
    from bot.storage.base import GameRecord, GameStatus, SeatChat

    a, b = await users(storage, 2)
    record = GameRecord(
        platform="telegram",
        chat_id=str(a),
        variant="tavla",
        status=GameStatus.ACTIVE,
        seats=[a, b],
        challenger=a,
        match={"length": 1},
    )
    async with storage.transaction() as tx:
        record = await tx.insert_game(record)
        await tx.pool.add_seat_chats(
            [
                SeatChat(record.stored_id, 0, a, "telegram", str(a)),
                SeatChat(record.stored_id, 1, b, "discord", "dm-77"),
            ]
        )
    for platform, chat in (("telegram", str(a)), ("discord", "dm-77")):
        found = await storage.games_in_chat(platform, chat)
        assert [g.id for g in found] == [record.id]
    assert await storage.games_in_chat("telegram", "dm-77") == []
    ref = MessageRef(message_id=5, channel_id="dm-77", chat_id="dm-77")
    await storage.pool.seat_board_shown(record.stored_id, 1, 4, ref)
    await storage.pool.seat_board_shown(record.stored_id, 1, 3)  # never lowered
    seats = await storage.pool.seat_chats(record.stored_id)
    assert [(s.seat, s.platform, s.chat_id) for s in seats] == [
        (0, "telegram", str(a)),
        (1, "discord", "dm-77"),
    ]
    assert seats[1].message == ref
    assert seats[1].shown_version == 4
    assert seats[0].message is None
