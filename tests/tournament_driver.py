"""Scripted players and a fake clock for whole tournaments (tests of core.tournament)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from core.tournament import Format, Pairing, Settings, Stage, Tournament


@dataclass
class FakeClock:
    """Seconds since the epoch, moved on only by the test."""

    now: float = 1_800_000_000.0

    def tick(self, seconds: float = 60.0) -> float:
        self.now += seconds
        return self.now


def opened(
    fmt: Format,
    players: int,
    clock: FakeClock,
    rounds: int | None = None,
    ratings: Callable[[int], float] = lambda i: 1500.0 + 10 * i,
    **settings: object,
) -> Tournament:
    """A tournament with ``players`` entries (ids 1..n, player i rated ``ratings(i)``)."""
    if fmt is Format.SWISS and rounds is None:
        rounds = 5
    t = Tournament.open(
        Settings(fmt, rounds=rounds, max_players=max(players, 2), **settings),  # type: ignore[arg-type]
        organiser=1,
        now=clock.now,
    )
    for i in range(1, players + 1):
        t.join(i, f"Player {i}", ratings(i), clock.tick(1))
    return t


@dataclass
class Script:
    """Decides every match: the winner, the score, and now and then a timeout or a
    withdrawal, all from one seeded random source so a run can be replayed."""

    seed: int
    timeout_rate: float = 0.0
    withdraw_rate: float = 0.0
    rng: random.Random = field(init=False)
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def play(self, t: Tournament, clock: FakeClock) -> None:
        """Play ``t`` to its end (a bound on the matches catches a tournament that hangs)."""
        self.play_some(t, clock, matches=10_000)
        assert t.stage is not Stage.RUNNING, "the tournament did not end"

    def play_some(self, t: Tournament, clock: FakeClock, matches: int) -> None:
        """Decide up to ``matches`` matches, picked among those ready as the bot would
        start them, checking that a running tournament always has one to play."""
        for _ in range(matches):
            if t.stage is not Stage.RUNNING:
                return
            ready = t.ready()
            assert ready, "a running tournament always has a match to play"
            pairing = self.rng.choice(ready)
            t.attach(pairing.key, f"m{pairing.key}")
            self.decide(t, pairing, clock)

    def decide(self, t: Tournament, pairing: Pairing, clock: FakeClock) -> None:
        now = clock.tick(self.rng.choice((60.0, 3600.0)))
        home, away = pairing.home, pairing.away
        assert home is not None
        assert away is not None
        roll = self.rng.random()
        if roll < self.withdraw_rate:
            quitter = self.rng.choice((home, away))
            self.log.append(f"withdraw {quitter}")
            decided = t.withdraw(quitter, now)
            assert pairing in decided
        elif roll < self.withdraw_rate + self.timeout_rate:
            loser = self.rng.choice((home, away))
            self.log.append(f"timeout {loser} in {pairing.key}")
            t.timeout(pairing.key, loser, now)
        else:
            winner = self.rng.choice((home, away))
            loser = away if winner == home else home
            length = t.settings.match_length
            score = {winner: length, loser: self.rng.randrange(length)}
            t.record(pairing.key, winner, now, score=score)
