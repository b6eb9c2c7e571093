"""The standings: scores and the stated tie-breaks.

Round robin and Swiss: a win (played, on time, awarded, by forfeit or a bye) scores 1, a
loss 0. Ties are broken, in this order, by

1. **Buchholz**: the sum of the scores of the opponents met (a bye has no opponent and
   adds nothing; an opponent who forfeited still counts);
2. **head-to-head**: wins in the matches among the players still tied;
3. **point difference**: match points won minus lost over all matches with a score
   (forfeits, byes and awards without a score add nothing);
4. **seed**: the better seed (higher rating at the start, then who joined first).

Knockout: the players still in first (by seed), then the others by how far they came (the
later they lost, the better); players who went out in the same round share a rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .model import Entrant, Format, Pairing, PlayerId, Standing


@dataclass
class _Tally:
    played: int = 0
    wins: int = 0
    losses: int = 0
    points_for: float = 0.0
    points_against: float = 0.0
    opponents: list[PlayerId] = field(default_factory=list)
    out_in_round: int | None = None

    @property
    def score(self) -> float:
        return float(self.wins)


def _tally(entrants: Iterable[Entrant], pairings: Iterable[Pairing]) -> dict[PlayerId, _Tally]:
    tallies = {e.player: _Tally() for e in entrants}
    for pairing in pairings:
        result = pairing.result
        if result is None:
            continue
        for player in pairing.players:
            tally = tallies[player]
            tally.played += 1
            if result.winner == player:
                tally.wins += 1
            else:
                tally.losses += 1
                tally.out_in_round = pairing.round
            opponent = pairing.opponent(player)
            if opponent is not None:
                tally.opponents.append(opponent)
            points = pairing.points_of(player)
            if points is not None:
                tally.points_for += points[0]
                tally.points_against += points[1]
    return tallies


def head_to_head(group: Sequence[PlayerId], pairings: Iterable[Pairing]) -> dict[PlayerId, int]:
    """Wins of each player of ``group`` in the decided matches among them."""
    members = set(group)
    wins = dict.fromkeys(group, 0)
    for pairing in pairings:
        result = pairing.result
        if result is None or result.winner is None or pairing.bye:
            continue
        if set(pairing.players) <= members and len(pairing.players) == 2:
            wins[result.winner] += 1
    return wins


def standings(
    fmt: Format, entrants: Sequence[Entrant], pairings: Sequence[Pairing]
) -> list[Standing]:
    """The standings, best first (see the module's docstring for the order)."""
    tallies = _tally(entrants, pairings)
    by_player = {e.player: e for e in entrants}

    def seed(p: PlayerId) -> int:
        s = by_player[p].seed
        return s if s is not None else len(entrants) + 1

    buchholz = {
        p: sum(tallies[o].score for o in tally.opponents if o in tallies)
        for p, tally in tallies.items()
    }
    players = sorted(tallies, key=seed)
    ranks: dict[PlayerId, int] = {}
    if fmt is Format.KNOCKOUT:

        def stage(p: PlayerId) -> tuple[int, int]:
            out = tallies[p].out_in_round
            return (0, 0) if out is None else (1, -out)

        players.sort(key=lambda p: (stage(p), seed(p)))
        for i, p in enumerate(players):
            same = i > 0 and stage(players[i - 1]) == stage(p)
            ranks[p] = ranks[players[i - 1]] if same else i + 1
    else:
        players.sort(key=lambda p: (-tallies[p].score, -buchholz[p]))
        ordered: list[PlayerId] = []
        i = 0
        while i < len(players):
            key = (tallies[players[i]].score, buchholz[players[i]])
            j = i
            while j < len(players) and (tallies[players[j]].score, buchholz[players[j]]) == key:
                j += 1
            group = players[i:j]
            h2h = head_to_head(group, pairings) if len(group) > 1 else {group[0]: 0}
            group.sort(
                key=lambda p: (
                    -h2h[p],
                    -(tallies[p].points_for - tallies[p].points_against),
                    seed(p),
                )
            )
            ordered.extend(group)
            i = j
        players = ordered
        ranks = {p: i + 1 for i, p in enumerate(players)}
    rows = []
    for p in players:
        tally, entrant = tallies[p], by_player[p]
        rows.append(
            Standing(
                rank=ranks[p],
                player=p,
                name=entrant.name,
                seed=seed(p),
                played=tally.played,
                wins=tally.wins,
                losses=tally.losses,
                score=tally.score,
                buchholz=buchholz[p],
                points_for=tally.points_for,
                points_against=tally.points_against,
                withdrawn=entrant.withdrawn,
                out_in_round=tally.out_in_round if fmt is Format.KNOCKOUT else None,
            )
        )
    return rows
