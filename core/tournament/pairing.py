"""Who plays whom: the knockout bracket, the round-robin (Berger) tables and Swiss pairing.

Pure functions over player ids; :mod:`core.tournament.tournament` keeps the state. Every
pairing is a ``(home, away)`` tuple, ``away`` None for a bye.

Swiss pairing is a minimum-cost perfect matching, solved by networkx's maximum-weight
matching (Edmonds' blossom algorithm). Only pairs who have not met are joined by an edge,
and the bye (a virtual player) only to players who have not had one, so when the matching
finds a partner for everyone the two absolute rules hold by construction; and because the
blossom algorithm is exact, it finds such a pairing whenever one exists (a greedy pairer
can paint itself into a corner and repeat a pairing it did not need to).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

import networkx as nx

from .model import PlayerId

Pair = tuple[PlayerId, PlayerId | None]

# -- knockout --------------------------------------------------------------------------


def bracket_size(players: int) -> int:
    """The smallest power of two holding ``players`` (at least 2)."""
    size = 2
    while size < players:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """Seeds 1..``size`` in bracket order: slots ``2i`` and ``2i+1`` meet in round one.

    The usual seeding: 1 meets ``size``, 2 meets ``size - 1``, and each half of the bracket
    holds one of every pair of seeds that should meet late, so seeds 1 and 2 can only meet
    in the final, 1-4 in the semi-finals, and so on.
    """
    if size < 2 or size & (size - 1):
        raise ValueError("a bracket size is a power of two, at least 2")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def knockout_first_round(seeded: Sequence[PlayerId]) -> list[Pair]:
    """Round one of a knockout for players in seed order (best first).

    The bracket is filled to a power of two with byes, which fall to the top seeds: seed
    ``s`` meets seed ``size + 1 - s``, so the ``size - n`` missing seeds are the opponents
    of seeds 1 .. ``size - n``.
    """
    size = bracket_size(len(seeded))
    order = seed_order(size)
    pairs: list[Pair] = []
    for i in range(0, size, 2):
        a, b = order[i], order[i + 1]
        home = seeded[a - 1]  # order puts the better seed first in each pair
        away = seeded[b - 1] if b <= len(seeded) else None
        pairs.append((home, away))
    return pairs


# -- round robin -----------------------------------------------------------------------


def berger_rounds(seeded: Sequence[PlayerId]) -> list[list[Pair]]:
    """Every round of a round robin by the Berger tables (the circle method).

    Players are numbered 1..n in the order given; with an odd count a dummy n+1 is added,
    and whoever meets it has the bye. Round one pairs 1-n, 2-(n-1), …; each next round
    adds n/2 to every number but n (modulo n-1), and n changes sides each round. This
    reproduces FIDE's published Berger tables.
    """
    players: list[PlayerId | None] = list(seeded)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    if n < 2:
        return []
    numbers = list(range(1, n + 1))  # round one, in pairing order
    rounds: list[list[Pair]] = []
    for r in range(n - 1):
        pairs: list[Pair] = []
        for i in range(n // 2):
            a, b = numbers[i], numbers[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a  # the last player alternates sides
            home, away = players[a - 1], players[b - 1]
            if home is None:
                home, away = away, None
            assert home is not None
            pairs.append((home, away))
        # Byes last, as the tables list the real games first.
        pairs.sort(key=lambda p: p[1] is None)
        rounds.append(pairs)
        numbers = [x if x == n else (x - 1 + n // 2) % (n - 1) + 1 for x in numbers]
    return rounds


# -- Swiss -----------------------------------------------------------------------------

_BYE = "bye"


def swiss_pairs(
    ranked: Sequence[PlayerId],
    scores: Mapping[PlayerId, float],
    met: Set[frozenset[PlayerId]],
    had_bye: Set[PlayerId],
) -> list[Pair] | None:
    """The next Swiss round for ``ranked`` (the players still in, best first), or None.

    Absolute rules: no two players meet twice, nobody gets a second bye; None when no
    pairing keeps both. Within them, the pairing with the least cost is chosen, where a pair
    costs the square of its score difference (so players meet their own score group and
    as few as possible float to another), and, below that, its distance from the usual
    fold inside a score group (top half against bottom half: 1-3 and 2-4 in a group of
    four); a floater meets the nearest player by rank. The bye goes to the lowest score
    group and in it to the lowest-ranked player who has not had one.
    """
    n = len(ranked)
    if n == 0:
        return []
    rank = {p: i for i, p in enumerate(ranked)}
    # Scores in half points as integers keep the weights exact.
    half = {p: round(2 * scores.get(p, 0.0)) for p in ranked}
    group_rank: dict[PlayerId, int] = {}
    group_size: dict[int, int] = {}
    for p in ranked:
        group_rank[p] = group_size.get(half[p], 0)
        group_size[half[p]] = group_rank[p] + 1
    # One step of score difference must outweigh every rank preference together.
    big = n * n + 1

    def cost(a: PlayerId, b: PlayerId) -> int:
        diff = half[a] - half[b]
        if diff == 0:
            fold = group_size[half[a]] // 2
            secondary = abs(abs(group_rank[a] - group_rank[b]) - fold)
        else:
            secondary = abs(rank[a] - rank[b])
        return big * diff * diff + secondary

    graph: nx.Graph[int | str] = nx.Graph()
    graph.add_nodes_from(ranked)
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if frozenset((a, b)) not in met:
                graph.add_edge(a, b, weight=-cost(a, b))
    if n % 2:
        graph.add_node(_BYE)
        lowest = min(half.values()) - 2  # the bye sits just below the lowest score group
        for p in ranked:
            if p not in had_bye:
                diff = half[p] - lowest
                graph.add_edge(p, _BYE, weight=-(big * diff * diff + (n - 1 - rank[p])))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        return None
    pairs: list[Pair] = []
    for a, b in matching:
        if a == _BYE or b == _BYE:
            player = b if a == _BYE else a
            pairs.append((player, None))
        else:
            home, away = (a, b) if rank[a] < rank[b] else (b, a)
            pairs.append((home, away))
    # Top boards first, the bye last.
    pairs.sort(key=lambda p: (p[1] is None, rank[p[0]]))
    return pairs
