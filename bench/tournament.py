"""How long tournament work takes: a Swiss round's pairing, a whole event, its pictures.

    .venv/bin/python bench/tournament.py [--players 33] [--rounds 7] [--seed 1]

Plays Swiss tournaments of 8, 33, 128 and 256 players (seeded random winners) and times
each round's pairing (the matching), then a whole round robin and knockout of ``--players``
through :class:`core.tournament.Tournament`, then draws the bracket and the table. The last
line: ``swiss33_pair_ms=… swiss256_pair_ms=… rr_event_ms=… bracket_ms=… table_ms=…``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.tournament import Format, Settings, Stage, Tournament
from core.tournament import tournament as tournament_module
from renderers.standings import render_standings


def make(fmt: Format, players: int, rounds: int | None, seed: int) -> Tournament:
    rng = random.Random(seed)
    settings = Settings(fmt, rounds=rounds, max_players=players)
    t = Tournament.open(settings, organiser=1, now=0.0)
    for i in range(1, players + 1):
        t.join(i, f"Player {i}", rng.uniform(1200, 2000), float(i))
    t.start(1.0, by=1)
    return t


def play(t: Tournament, seed: int) -> None:
    rng = random.Random(seed)
    now = 2.0
    while t.stage is Stage.RUNNING:
        for pairing in t.ready():
            now += 1
            t.record(pairing.key, rng.choice(pairing.players), now)


def swiss_pair_ms(players: int, rounds: int, seed: int) -> list[float]:
    """Milliseconds of each Swiss round's pairing (standings and matching)."""
    times: list[float] = []
    real = tournament_module.Tournament._swiss_round

    def timed(self: Tournament):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        pairs = real(self)
        times.append((time.perf_counter() - start) * 1000)
        return pairs

    tournament_module.Tournament._swiss_round = timed  # type: ignore[method-assign]
    try:
        play(make(Format.SWISS, players, rounds, seed), seed)
    finally:
        tournament_module.Tournament._swiss_round = real  # type: ignore[method-assign]
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/tournament.py", description=__doc__)
    parser.add_argument("--players", type=int, default=33)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    medians: dict[int, float] = {}
    for players in (8, args.players, 128, 256):
        times = swiss_pair_ms(players, args.rounds, args.seed)
        medians[players] = statistics.median(times)
        print(
            f"swiss {players:3d} players: {len(times)} rounds paired, "
            f"median {medians[players]:.1f} ms, max {max(times):.1f} ms"
        )

    start = time.perf_counter()
    rr = make(Format.ROUND_ROBIN, args.players, None, args.seed)
    play(rr, args.seed)
    rr_ms = (time.perf_counter() - start) * 1000
    print(f"round robin of {args.players}: {len(rr.pairings)} pairings in {rr_ms:.0f} ms")

    ko = make(Format.KNOCKOUT, args.players, None, args.seed)
    play(ko, args.seed)
    render_standings(ko)  # warm the fonts
    start = time.perf_counter()
    bracket = render_standings(ko)
    bracket_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    table = render_standings(rr)
    table_ms = (time.perf_counter() - start) * 1000
    print(f"bracket of {args.players}: {bracket_ms:.0f} ms, {len(bracket) // 1024} KB")
    print(f"table of {args.players}: {table_ms:.0f} ms, {len(table) // 1024} KB")
    print(
        f"swiss{args.players}_pair_ms={medians[args.players]:.1f} "
        f"swiss256_pair_ms={medians[256]:.1f} rr_event_ms={rr_ms:.0f} "
        f"bracket_ms={bracket_ms:.0f} table_ms={table_ms:.0f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
