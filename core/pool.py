"""The pool's pairing rule: who plays whom among players waiting for an opponent.

Pure and deterministic: the database keeps the entries and runs this rule inside one
transaction per bucket (``bot/storage/pool.py``), so two workers never pair one entry twice.

- Two entries fit when they want the same game, match length and pace, belong to two
  different players, are both live (their wait is over and they have not expired) and
  neither player has blocked the other.
- Among several that fit, the nearest rating wins; on equal gaps the one waiting longest,
  then the lower player id (so the choice never depends on the order rows come in).
- A player who left several pool games in a row (lost them on time) waits before anyone
  may be paired with them: :func:`extra_wait`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

#: The paces a pool game may be played at: 5 minutes a move, or a day.
PACES = ("fast", "daily")

#: How long an entry waits before it expires, by pace (seconds).
LIFETIME = {"fast": 30 * 60.0, "daily": 7 * 24 * 3600.0}

#: Games left in a row (lost on time) a player may leave before waiting longer.
FREE_LEAVES = 2
#: The first extra wait, doubled for every further game left, up to MAX_EXTRA_WAIT.
FIRST_EXTRA_WAIT = 60.0
MAX_EXTRA_WAIT = 30 * 60.0


@dataclass(frozen=True)
class Seeker:
    """One player's entry in the pool: what they want and since when."""

    player: int
    variant: str
    length: int
    pace: str
    rating: float
    joined: float
    #: When others may be paired with them (``joined`` plus :func:`extra_wait`).
    eligible: float
    expires: float

    @property
    def bucket(self) -> tuple[str, int, str]:
        """What the player wants: (variant, length, pace); only equal buckets fit."""
        return (self.variant, self.length, self.pace)

    def live(self, now: float) -> bool:
        """Whether the entry may be paired at ``now``."""
        return self.eligible <= now < self.expires


Blocks = Collection[frozenset[int]]


def extra_wait(left_in_a_row: int) -> float:
    """How much longer a player waits who left ``left_in_a_row`` pool games in a row.

    Nothing for the first :data:`FREE_LEAVES`; then a minute, doubled for each further one,
    never more than half an hour.
    """
    over = left_in_a_row - FREE_LEAVES
    if over <= 0:
        return 0.0
    return min(MAX_EXTRA_WAIT, FIRST_EXTRA_WAIT * 2.0 ** min(over - 1, 30))


def new_seeker(
    player: int,
    variant: str,
    length: int,
    pace: str,
    rating: float,
    now: float,
    left_in_a_row: int = 0,
) -> Seeker:
    """An entry made at ``now``, its wait and expiry set by the rules above."""
    if pace not in PACES:
        raise ValueError(f"pace must be one of {PACES}")
    if length < 1:
        raise ValueError("a match is at least 1 point long")
    return Seeker(
        player=player,
        variant=variant,
        length=length,
        pace=pace,
        rating=rating,
        joined=now,
        eligible=now + extra_wait(left_in_a_row),
        expires=now + LIFETIME[pace],
    )


def blocked_pair(a: int, b: int, blocks: Blocks) -> bool:
    """Whether one of the two players blocked the other (``blocks`` holds unordered pairs)."""
    return frozenset((a, b)) in blocks


def fits(a: Seeker, b: Seeker, now: float, blocks: Blocks = ()) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now`` (see the module doc)."""
    return (
        a.player != b.player
        and a.bucket == b.bucket
        and a.live(now)
        and b.live(now)
        and not blocked_pair(a.player, b.player, blocks)
    )


def preference(seeker: Seeker, other: Seeker) -> tuple[float, float, int]:
    """The order in which ``seeker`` prefers ``other``: the smallest first."""
    return (abs(seeker.rating - other.rating), other.joined, other.player)


def ranked(
    seeker: Seeker, waiting: Iterable[Seeker], now: float, blocks: Blocks = ()
) -> list[Seeker]:
    """Every waiting entry that fits ``seeker``, the best first."""
    fitting = [other for other in waiting if fits(seeker, other, now, blocks)]
    fitting.sort(key=lambda other: preference(seeker, other))
    return fitting


def choose(
    seeker: Seeker, waiting: Iterable[Seeker], now: float, blocks: Blocks = ()
) -> Seeker | None:
    """The waiting entry ``seeker`` is paired with at ``now``, or None."""
    best = ranked(seeker, waiting, now, blocks)
    return best[0] if best else None


def pair_waiting(
    entries: Sequence[Seeker], now: float, blocks: Blocks = ()
) -> list[tuple[Seeker, Seeker]]:
    """Pairs among entries that all wait (a wait just ended, a pairing was missed).

    The longest waiting live entry chooses first, by :func:`choose`, among those not yet
    paired; every player is in one pair at most.
    """
    taken: set[int] = set()
    pairs = []
    for seeker in sorted(entries, key=lambda e: (e.joined, e.player)):
        if seeker.player in taken or not seeker.live(now):
            continue
        free = [e for e in entries if e.player not in taken]
        other = choose(seeker, free, now, blocks)
        if other is not None:
            taken.update((seeker.player, other.player))
            pairs.append((seeker, other))
    return pairs


__all__ = [
    "FREE_LEAVES",
    "LIFETIME",
    "PACES",
    "Seeker",
    "blocked_pair",
    "choose",
    "extra_wait",
    "fits",
    "new_seeker",
    "pair_waiting",
    "preference",
    "ranked",
]
