"""Tournaments (core.tournament): entries, pairing, results, standings, JSON.

Rule ids (TN-…) are those of docs/playing.md, "Tournaments".
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.tournament import (
    Format,
    Outcome,
    Settings,
    Stage,
    Tournament,
    TournamentError,
    berger_rounds,
    knockout_first_round,
    seed_order,
    swiss_pairs,
)
from tests.tournament_driver import FakeClock, Script, opened

# -- entries and start (TN-1) -------------------------------------------------------------


def test_join_leave_and_limits_before_the_start() -> None:
    """TN-1: join and leave before the start, within the player limit."""
    clock = FakeClock()
    t = Tournament.open(Settings(Format.KNOCKOUT, max_players=3), organiser=7, now=clock.now)
    t.join(1, "A", 1500, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.join(1, "A", 1500, clock.tick())
    assert err.value.code == "tournament_already_joined"
    t.join(2, "B", 1500, clock.tick())
    t.join(3, "C", 1500, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.join(4, "D", 1500, clock.tick())
    assert err.value.code == "tournament_full"
    t.leave(2, clock.tick())
    assert [e.player for e in t.entrants] == [1, 3]
    t.join(4, "D", 1500, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.leave(2, clock.tick())
    assert err.value.code == "tournament_not_joined"


def test_only_the_organiser_or_an_admin_starts_with_enough_players() -> None:
    """TN-1: the organiser (or a chat admin) starts, with at least the minimum."""
    clock = FakeClock()
    t = Tournament.open(Settings(Format.ROUND_ROBIN, min_players=3), organiser=1, now=clock.now)
    t.join(1, "A", 1500, clock.tick())
    t.join(2, "B", 1500, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.start(clock.tick(), by=1)
    assert err.value.code == "tournament_too_few"
    t.join(3, "C", 1500, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.start(clock.tick(), by=2)
    assert err.value.code == "tournament_not_organiser"
    t.start(clock.tick(), by=2, admin=True)
    assert t.stage is Stage.RUNNING
    with pytest.raises(TournamentError) as err:
        t.join(4, "D", 1500, clock.tick())
    assert err.value.code == "tournament_started"


def test_start_time_starts_or_cancels() -> None:
    """TN-1: at the start time it starts with enough players, else it is called off."""
    clock = FakeClock()
    for count, stage in ((2, Stage.RUNNING), (1, Stage.CANCELLED)):
        at = clock.now + 3600
        t = Tournament.open(Settings(Format.KNOCKOUT, starts_at=at), organiser=1, now=clock.now)
        for i in range(1, count + 1):
            t.join(i, f"P{i}", 1500, clock.now)
        assert not t.start_if_due(at - 1)
        assert t.stage is Stage.OPEN
        assert t.start_if_due(at)
        assert t.stage is stage
        assert not t.start_if_due(at + 1)


def test_settings_are_checked() -> None:
    with pytest.raises(TournamentError):
        Settings(Format.SWISS)  # a Swiss needs its number of rounds
    with pytest.raises(TournamentError):
        Settings(Format.KNOCKOUT, rounds=3)
    with pytest.raises(TournamentError):
        Settings(Format.KNOCKOUT, game="chess")
    with pytest.raises(TournamentError):
        Settings(Format.KNOCKOUT, min_players=5, max_players=4)


# -- knockout (TN-2) -----------------------------------------------------------------------


def test_seed_order_keeps_top_seeds_apart() -> None:
    """TN-2: 1-8, 4-5, 2-7, 3-6; seeds 1 and 2 only meet in the final."""
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = seed_order(32)
    assert sorted(order) == list(range(1, 33))
    half = len(order) // 2
    assert 1 in order[:half]
    assert 2 in order[half:]
    for i in range(0, 32, 2):
        assert order[i] + order[i + 1] == 33


@pytest.mark.parametrize("n", range(2, 34))
def test_byes_go_to_the_top_seeds(n: int) -> None:
    """TN-2: a field of n fills a bracket of the next power of two; seeds 1..(size-n) get
    the byes."""
    pairs = knockout_first_round(list(range(1, n + 1)))
    size = 1 << (n - 1).bit_length()
    assert len(pairs) == size // 2
    byes = sorted(home for home, away in pairs if away is None)
    assert byes == list(range(1, size - n + 1))
    assert sorted(p for pair in pairs for p in pair if p is not None) == list(range(1, n + 1))


def test_knockout_seeds_by_rating() -> None:
    """TN-2: seeding by rating (ties by who joined first)."""
    clock = FakeClock()
    ratings = {1: 1400.0, 2: 1700.0, 3: 1550.0, 4: 1550.0, 5: 1600.0}
    t = opened(Format.KNOCKOUT, 5, clock, ratings=lambda i: ratings[i])
    t.start(clock.tick(), by=1)
    assert [e.player for e in t.entrants] == [2, 5, 3, 4, 1]
    first = [(p.home, p.away) for p in t.round_pairings(1)]
    # Bracket of 8: seeds 1, 2, 3 have byes; seed 4 (player 4) meets seed 5 (player 1).
    assert first == [(2, None), (4, 1), (5, None), (3, None)]
    # Seeds 2 and 3 both had byes: their round-two match is ready at once, without waiting
    # for the rest of round one.
    assert [(p.key, p.home, p.away) for p in t.ready()] == [("1.2", 4, 1), ("2.2", 5, 3)]


# -- round robin (TN-3) --------------------------------------------------------------------


def test_berger_tables_match_fide() -> None:
    """TN-3: the circle method gives FIDE's Berger tables (for 6 players, as published)."""
    rounds = [[tuple(p) for p in r] for r in berger_rounds([1, 2, 3, 4, 5, 6])]
    assert rounds == [
        [(1, 6), (2, 5), (3, 4)],
        [(6, 4), (5, 3), (1, 2)],
        [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)],
        [(3, 6), (4, 2), (5, 1)],
    ]


@given(st.integers(min_value=2, max_value=33))
def test_round_robin_pairs_everyone_exactly_once(n: int) -> None:
    """TN-3: every pair meets exactly once; with an odd count everyone has one bye."""
    rounds = berger_rounds(list(range(n)))
    assert len(rounds) == (n if n % 2 else n - 1)
    games = Counter(frozenset(p) for r in rounds for p in r if p[1] is not None)
    assert set(games) == {frozenset(p) for p in combinations(range(n), 2)}
    assert set(games.values()) == {1}
    byes = Counter(p[0] for r in rounds for p in r if p[1] is None)
    assert byes == (Counter(range(n)) if n % 2 else Counter())
    for r in rounds:
        assert sorted(x for p in r for x in p if x is not None) == list(range(n))


# -- Swiss (TN-4, TN-5) --------------------------------------------------------------------


def test_swiss_first_round_folds_top_half_against_bottom_half() -> None:
    """TN-5: round one pairs 1-5, 2-6, 3-7, 4-8 (top half against bottom half)."""
    ranked = list(range(1, 9))
    pairs = swiss_pairs(ranked, dict.fromkeys(ranked, 0.0), set(), set())
    assert pairs == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_swiss_pairs_score_groups_and_gives_the_bye_to_the_lowest() -> None:
    """TN-5: players meet their score group; the lowest-ranked of the lowest group without
    a bye gets it."""
    ranked = [1, 2, 3, 4, 5]
    scores = {1: 2.0, 2: 2.0, 3: 1.0, 4: 1.0, 5: 0.0}
    pairs = swiss_pairs(ranked, scores, set(), had_bye={5})
    assert pairs is not None
    assert (1, 2) in pairs
    assert (3, None) not in pairs
    assert (4, None) in pairs
    assert (3, 5) in pairs


def test_swiss_never_repeats_and_says_when_it_cannot_pair() -> None:
    """TN-4: no repeat pairing and no second bye, even if the only way out is to stop."""
    met = {frozenset(p) for p in ((1, 2), (3, 4), (1, 3), (2, 4))}
    assert swiss_pairs([1, 2, 3, 4], dict.fromkeys(range(1, 5), 1.0), met, set()) == [
        (1, 4),
        (2, 3),
    ]
    met |= {frozenset((1, 4)), frozenset((2, 3))}
    assert swiss_pairs([1, 2, 3, 4], dict.fromkeys(range(1, 5), 1.0), met, set()) is None
    assert swiss_pairs([1], {1: 0.0}, set(), had_bye={1}) is None


def _some_valid_pairing_exists(players: list[int], met: set, had_bye: set) -> bool:
    """Brute force: can ``players`` be paired with no repeat and no second bye?"""
    if not players:
        return True
    if len(players) % 2:
        return any(
            p not in had_bye
            and _some_valid_pairing_exists([q for q in players if q != p], met, had_bye)
            for p in players
        )
    first, rest = players[0], players[1:]
    return any(
        frozenset((first, q)) not in met
        and _some_valid_pairing_exists([r for r in rest if r != q], met, had_bye)
        for q in rest
    )


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=9),
    data=st.data(),
)
def test_swiss_pairing_finds_a_valid_pairing_whenever_one_exists(
    n: int, data: st.DataObject
) -> None:
    """TN-4: for any history, the pairing repeats nobody and gives no second bye, and it
    says "none" only when no such pairing exists (checked by brute force)."""
    players = list(range(1, n + 1))
    all_pairs = [frozenset(p) for p in combinations(players, 2)]
    met = set(
        data.draw(st.lists(st.sampled_from(all_pairs), unique=True) if all_pairs else st.just([]))
    )
    had_bye = set(data.draw(st.lists(st.sampled_from(players), unique=True)))
    scores = {p: float(data.draw(st.integers(min_value=0, max_value=4))) for p in players}
    ranked = sorted(players, key=lambda p: -scores[p])
    pairs = swiss_pairs(ranked, scores, met, had_bye)
    if pairs is None:
        assert not _some_valid_pairing_exists(players, met, had_bye)
        return
    seen = [p for pair in pairs for p in pair if p is not None]
    assert sorted(seen) == players
    for home, away in pairs:
        if away is None:
            assert home not in had_bye
        else:
            assert frozenset((home, away)) not in met
    assert sum(1 for _, away in pairs if away is None) == n % 2


def test_swiss_plays_no_more_rounds_than_the_field_allows() -> None:
    """TN-4: with 4 players a Swiss of 7 rounds plays 3 (a fourth would repeat a pairing)."""
    clock = FakeClock()
    t = opened(Format.SWISS, 4, clock, rounds=7)
    t.start(clock.tick(), by=1)
    assert t.rounds == 3
    Script(seed=1).play(t, clock)
    assert t.stage is Stage.FINISHED
    assert max(p.round for p in t.pairings) == 3


# -- standings and tie-breaks (TN-6) -------------------------------------------------------


def _decide_all(t: Tournament, clock: FakeClock, winners: dict[frozenset[int], int]) -> None:
    while t.stage is Stage.RUNNING:
        for p in t.ready():
            t.record(p.key, winners[frozenset(p.players)], clock.tick())


def test_round_robin_tie_broken_by_head_to_head() -> None:
    """TN-6: three players on 2 wins with equal Buchholz: head-to-head decides."""
    clock = FakeClock()
    t = opened(Format.ROUND_ROBIN, 4, clock)
    t.start(clock.tick(), by=1)
    # 1 beats 2, 2 beats 3, 3 beats 1 (a cycle: head-to-head 1 each) and all beat 4.
    winners = {
        frozenset((1, 2)): 1,
        frozenset((2, 3)): 2,
        frozenset((1, 3)): 3,
        frozenset((1, 4)): 1,
        frozenset((2, 4)): 2,
        frozenset((3, 4)): 3,
    }
    _decide_all(t, clock, winners)
    table = t.standings()
    # A full cycle leaves head-to-head level too, so the seed decides (4 is rated highest).
    assert [r.player for r in table] == [3, 2, 1, 4]
    assert [r.score for r in table] == [2, 2, 2, 0]
    assert t.winner == 3


def test_buchholz_breaks_a_swiss_tie() -> None:
    """TN-6: equal scores: the player whose opponents scored more ranks higher."""
    clock = FakeClock()
    t = opened(Format.SWISS, 6, clock, rounds=2)
    t.start(clock.tick(), by=1)
    # Round one (seeds: 6 5 4 3 2 1): 6-3, 5-2, 4-1. The higher seed wins each.
    for p in t.ready():
        t.record(p.key, p.home, clock.tick())
    # Round two: 6-5 and 4 against the best of the losers (3), 2-1.
    pairs = {frozenset(p.players): p for p in t.ready()}
    assert set(pairs) == {frozenset((6, 5)), frozenset((4, 3)), frozenset((2, 1))}
    t.record(pairs[frozenset((6, 5))].key, 6, clock.tick())
    t.record(pairs[frozenset((4, 3))].key, 3, clock.tick())
    t.record(pairs[frozenset((2, 1))].key, 2, clock.tick())
    assert t.stage is Stage.FINISHED
    table = {r.player: r for r in t.standings()}
    # 5, 4, 3 and 2 have one win each; Buchholz: 5 met 2 (1) and 6 (2) = 3; 4 met 1 and 3.
    assert table[5].buchholz == 3
    assert table[4].buchholz == 1
    order = [r.player for r in t.standings()]
    assert order[0] == 6
    assert order.index(5) < order.index(4)
    assert t.winner == 6


def test_point_difference_after_head_to_head() -> None:
    """TN-6: equal score, Buchholz and head-to-head: the point difference decides."""
    clock = FakeClock()
    t = opened(Format.ROUND_ROBIN, 3, clock, match_length=5)
    t.start(clock.tick(), by=1)
    scores = {
        frozenset((1, 2)): (1, {1: 5, 2: 4}),
        frozenset((2, 3)): (2, {2: 5, 3: 0}),
        frozenset((1, 3)): (3, {3: 5, 1: 4}),
    }
    while t.stage is Stage.RUNNING:
        for p in t.ready():
            winner, score = scores[frozenset(p.players)]
            t.record(p.key, winner, clock.tick(), score=score)
    # All on one win (plus a bye), Buchholz 2 each, head-to-head 1 each. Differences:
    # 1: +1 -1 = 0; 2: -1 +5 = +4; 3: -5 +1 = -4.
    assert [r.player for r in t.standings()] == [2, 1, 3]


# -- results: timeouts, awards, withdrawals (TN-7) -----------------------------------------


def test_timeout_loses_the_match_and_withdraws_the_player() -> None:
    """TN-7: a lost-on-time match is lost, and (by default) the player is withdrawn and
    forfeits every later match."""
    clock = FakeClock()
    t = opened(Format.ROUND_ROBIN, 4, clock)
    t.start(clock.tick(), by=1)
    first = t.ready()[0]
    loser = first.away
    t.timeout(first.key, loser, clock.tick())
    assert first.result.outcome is Outcome.TIMEOUT
    assert first.result.winner == first.home
    assert t.entrant(loser).withdrawn
    _decide_all(t, clock, {frozenset(p): max(p) for p in combinations(range(1, 5), 2)})
    theirs = [p for p in t.pairings if loser in p.players and p is not first]
    assert len(theirs) == 2
    assert all(p.result.outcome is Outcome.FORFEIT for p in theirs)
    assert all(p.match_ref is None for p in theirs)  # no match was ever started for them


def test_a_player_who_left_gets_no_free_win_from_a_bye() -> None:
    """TN-7: after leaving, a round-robin bye is no win (and every match a forfeit)."""
    clock = FakeClock()
    t = opened(Format.ROUND_ROBIN, 3, clock)
    t.start(clock.tick(), by=1)
    quitter = t.entrants[-1].player  # the lowest seed: the bye in the last round
    t.withdraw(quitter, clock.tick())
    _decide_all(t, clock, {frozenset(p): max(p) for p in combinations(range(1, 4), 2)})
    row = next(r for r in t.standings() if r.player == quitter)
    assert (row.wins, row.losses, row.withdrawn) == (0, 3, True)
    bye = next(p for p in t.pairings if p.bye and p.home == quitter)
    assert bye.result.winner is None
    assert t.stage is Stage.FINISHED


def test_timeouts_to_withdraw_zero_keeps_the_player_in() -> None:
    clock = FakeClock()
    t = opened(Format.SWISS, 4, clock, rounds=3, timeouts_to_withdraw=0)
    t.start(clock.tick(), by=1)
    first = t.ready()[0]
    t.timeout(first.key, first.home, clock.tick())
    assert not t.entrant(first.home).withdrawn
    assert t.entrant(first.home).timeouts == 1


def test_award_is_the_organisers() -> None:
    """TN-7: the organiser (or an admin) may award a match."""
    clock = FakeClock()
    t = opened(Format.KNOCKOUT, 2, clock)
    t.start(clock.tick(), by=1)
    final = t.ready()[0]
    with pytest.raises(TournamentError) as err:
        t.award(final.key, final.home, clock.tick(), by=2)
    assert err.value.code == "tournament_not_organiser"
    t.award(final.key, final.away, clock.tick(), by=1)
    assert final.result.outcome is Outcome.AWARD
    assert t.winner == final.away
    assert t.stage is Stage.FINISHED


def test_withdrawal_mid_knockout_gives_a_walkover() -> None:
    """TN-7: a knockout player who leaves loses the match in play; the opponent goes on."""
    clock = FakeClock()
    t = opened(Format.KNOCKOUT, 4, clock)
    t.start(clock.tick(), by=1)
    a, b = t.ready()
    t.attach(a.key, "match-a")
    decided = t.withdraw(a.home, clock.tick())
    assert decided[0] is a
    assert a.result.outcome is Outcome.FORFEIT
    assert a.result.winner == a.away
    t.record(b.key, b.home, clock.tick())
    final = t.ready()
    assert [(p.home, p.away) for p in final] == [(a.away, b.home)]


def test_a_finalist_who_left_while_waiting_forfeits_the_final() -> None:
    """TN-7: leaving while waiting for the next opponent forfeits that match when it comes."""
    clock = FakeClock()
    t = opened(Format.KNOCKOUT, 2, clock)
    t.start(clock.tick(), by=1)
    t.withdraw(1, clock.tick())
    assert t.stage is Stage.FINISHED
    assert t.winner == 2
    t = opened(Format.KNOCKOUT, 4, clock)
    t.start(clock.tick(), by=1)
    first, second = t.ready()
    t.record(first.key, first.home, clock.tick())
    assert t.withdraw(first.home, clock.tick()) == []  # nothing to forfeit yet
    t.record(second.key, second.away, clock.tick())
    final = t.pairing("2.1")
    assert final.result.outcome is Outcome.FORFEIT
    assert t.winner == second.away
    assert t.ready() == []


def test_results_are_refused_when_they_do_not_fit() -> None:
    clock = FakeClock()
    t = opened(Format.KNOCKOUT, 4, clock)
    with pytest.raises(TournamentError):
        t.record("1.1", 1, clock.tick())  # not started
    t.start(clock.tick(), by=1)
    p = t.ready()[0]
    with pytest.raises(TournamentError) as err:
        t.record(p.key, 99, clock.tick())
    assert err.value.code == "tournament_not_in_pairing"
    with pytest.raises(TournamentError) as err:
        t.record("2.1", 1, clock.tick())
    assert err.value.code == "tournament_pairing_not_ready"
    t.record(p.key, p.home, clock.tick())
    with pytest.raises(TournamentError) as err:
        t.record(p.key, p.home, clock.tick())
    assert err.value.code == "tournament_pairing_decided"
    assert t.pairing_for_match("nothing") is None


# -- whole tournaments ---------------------------------------------------------------------


def _check_finished(t: Tournament) -> None:
    """What holds at the end of every tournament, whatever the format."""
    assert t.stage is Stage.FINISHED
    assert all(p.result is not None for p in t.pairings)
    assert t.finished_at is not None
    assert t.started_at is not None
    assert t.started_at <= t.finished_at
    byes = Counter(p.home for p in t.pairings if p.bye)
    games = [frozenset(p.players) for p in t.pairings if len(p.players) == 2]
    n = len(t.entrants)
    if t.format is Format.KNOCKOUT:
        size = 1 << (n - 1).bit_length()
        assert len(t.pairings) == size - 1
        first_round_byes = {p.home for p in t.round_pairings(1) if p.bye}
        assert first_round_byes == {e.player for e in t.entrants if e.seed <= size - n}
        survivors = [e.player for e in t.entrants if all(p.loser != e.player for p in t.pairings)]
        withdrew = any(e.withdrawn for e in t.entrants)
        if not withdrew:
            assert survivors == [t.winner]
        assert len(survivors) <= 1
        assert t.winner == (survivors[0] if survivors else None)
    elif t.format is Format.ROUND_ROBIN:
        assert Counter(games) == Counter(
            frozenset(p) for p in combinations([e.player for e in t.entrants], 2)
        )
        assert set(byes.values()) <= {1}
        assert t.winner == t.standings()[0].player
    else:
        assert len(set(games)) == len(games), "a Swiss pairing repeated"
        assert set(byes.values()) <= {1}, "a second bye"
        rounds_played = max((p.round for p in t.pairings), default=0)
        assert rounds_played == t.rounds or t.ended_early
        assert t.winner == t.standings()[0].player
    table = t.standings()
    assert sorted(r.player for r in table) == sorted(e.player for e in t.entrants)
    assert sum(r.wins for r in table) == sum(
        1 for p in t.pairings if p.result and p.result.winner is not None
    )


@pytest.mark.parametrize("fmt", list(Format))
@pytest.mark.parametrize("n", range(2, 34))
def test_whole_tournaments_for_2_to_33_players(fmt: Format, n: int) -> None:
    """Every format and field size, played through with scripted results and a fake
    clock, saved to JSON and loaded back every few matches (as the bot stores it)."""
    clock = FakeClock()
    t = opened(fmt, n, clock, rounds=5 if fmt is Format.SWISS else None)
    t.start(clock.tick(), by=1)
    script = Script(seed=n)
    while t.stage is Stage.RUNNING:
        script.play_some(t, clock, matches=1 + n // 4)
        t = Tournament.from_dict(json.loads(json.dumps(t.to_dict())))
    _check_finished(t)


@settings(max_examples=60, deadline=None)
@given(
    fmt=st.sampled_from(list(Format)),
    n=st.integers(min_value=2, max_value=33),
    rounds=st.integers(min_value=1, max_value=12),
    seed=st.integers(min_value=0, max_value=2**32),
    timeout_rate=st.sampled_from([0.0, 0.05, 0.2]),
    withdraw_rate=st.sampled_from([0.0, 0.03, 0.15]),
    ratings=st.lists(st.integers(min_value=1000, max_value=2200), min_size=33, max_size=33),
)
def test_tournament_invariants(
    fmt: Format,
    n: int,
    rounds: int,
    seed: int,
    timeout_rate: float,
    withdraw_rate: float,
    ratings: list[int],
) -> None:
    """TN-2..TN-7 as properties: every pair meets at most once in a Swiss and exactly once
    in a round robin, at most one bye each, byes to the top seeds in a knockout and one
    winner, whatever the results, timeouts and withdrawals."""
    clock = FakeClock()
    t = opened(
        fmt,
        n,
        clock,
        rounds=rounds if fmt is Format.SWISS else None,
        ratings=lambda i: float(ratings[i - 1]),
    )
    t.start(clock.tick(), by=1)
    saved = t.to_dict()
    Script(seed, timeout_rate=timeout_rate, withdraw_rate=withdraw_rate).play(t, clock)
    _check_finished(t)
    assert Tournament.from_dict(json.loads(json.dumps(t.to_dict()))).to_dict() == t.to_dict()
    # The same script on the saved start gives the same tournament (reproducible).
    again = Tournament.from_dict(saved)
    Script(seed, timeout_rate=timeout_rate, withdraw_rate=withdraw_rate).play(again, clock)
    assert [(p.key, p.home, p.away) for p in again.pairings] == [
        (p.key, p.home, p.away) for p in t.pairings
    ]
