"""Tournaments in a chat, through the game service: /tournament, the card's buttons, rounds
played as ordinary games, results, timeouts and standings (rules TN-1 … TN-7 in
docs/playing.md, "Tournaments").

Four players, matches to one point; a game is decided by one player resigning and the other
accepting (a played result), or by the clock (a fake one the tests move forward).
"""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.i18n import translate_lines
from bot.service import actions as A
from bot.service.service import Actor, GameService, Place, ServiceSettings
from bot.service.tournaments import PREFIX, RETRY_AFTER
from bot.service.tournaments.rounds import Rounds
from bot.service.views import MessageRef, View
from bot.storage.base import GameStatus, TournamentStatus
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from core.dice import SeededDice
from core.match import Match
from core.tournament import Format, Outcome, Stage, Tournament
from tests.factory import resign

ALI = Actor("test", "100", "Ali", "ali", "tr")
VELI = Actor("test", "200", "Veli", "veli", "en")
AYSE = Actor("test", "300", "Ayşe", "ayse", "ru")
CAN = Actor("test", "400", "Can", "can", "en")
PLAYERS = [ALI, VELI, AYSE, CAN]
BY_NAME = {a.name: a for a in PLAYERS}
GROUP = Place("test", "-1", private=False, title="Kahve")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "postgres"])
def make_storage(request: pytest.FixtureRequest, tmp_path):
    """New storages (workers) on one database: SQLite, and PostgreSQL when
    ``TAVLA_TEST_POSTGRES_URL`` is set (a schema of the test's own)."""
    if request.param == "sqlite":
        return lambda: SqliteStorage(str(tmp_path / "t.db"))
    dsn, schema = request.getfixturevalue("postgres_schema")
    return lambda: PostgresStorage(dsn, server_settings={"search_path": schema})


@pytest.fixture
async def env(make_storage):
    storage = make_storage()
    await storage.open()
    clock = Clock()
    seeds = iter(range(1, 10_000))
    service = GameService(
        storage,
        ServiceSettings(burst_actions=10**6, render_images=False, repair_after=float("inf")),
        clock=clock,
        dice_factory=lambda: SeededDice(bytes([next(seeds)]) * 32),
    )
    yield service, clock
    await storage.close()


def text_of(views: list[View], lang: str = "en") -> str:
    return "\n".join(translate_lines(v.lines, lang) for v in views)


def card_button(views: list[View], code: str) -> str:
    for view in views:
        for row in view.buttons:
            for button in row:
                if button.action.startswith(PREFIX) and button.action.endswith(":" + code):
                    return button.action
    raise AssertionError(f"no {code} button in {text_of(views)}")


async def tournament(service: GameService) -> Tournament:
    (record,) = await service.storage.tournaments_in_chat("test", "-1", tuple(TournamentStatus))
    return Tournament.from_dict(record.state)


async def open_with_four(service: GameService, args: str) -> list[View]:
    views = await service.command(ALI, GROUP, "tournament", args)
    join = card_button(views, "j")
    for actor in PLAYERS[1:]:
        views = await service.press(actor, GROUP, join, message=MessageRef(5, chat_id="-1"))
    return views


async def active_games(service: GameService) -> list:
    return await service.storage.games_in_chat("test", "-1", (GameStatus.ACTIVE,))


async def actor_of(service: GameService, user_id: int) -> Actor:
    user = await service.storage.get_user(user_id)
    return Actor(user.platform, user.platform_id, user.name)


async def play_out(service: GameService, game, winner_id: int) -> list[View]:
    """The loser resigns, the winner accepts: the game (a 1-point match) is over."""
    loser_id = next(s for s in game.seats if s != winner_id)
    loser, winner = await actor_of(service, loser_id), await actor_of(service, winner_id)
    views = await resign(service, loser, GROUP, reply_to_game=game.id)
    accept = next(
        b.action
        for v in views
        for row in v.buttons
        for b in row
        if (a := A.decode(b.action)) and a.code == A.RESIGN_ACCEPT
    )
    return await service.press(winner, GROUP, accept)


async def test_four_player_knockout_from_card_to_winner(env):
    """TN-1 entries by the card's buttons, TN-2 seeding and bracket, TN-7 played results."""
    service, clock = env
    views = await open_with_four(service, "knockout uzun 1")
    card = text_of(views)
    assert "Players (4/16): Ali, Veli, Ayşe, Can" in card
    assert views[-1].edit  # the card is edited in place on a press
    assert views[-1].message == MessageRef(5, chat_id="-1")
    refused = await service.press(VELI, GROUP, card_button(views, "s"))
    assert "Only the organiser" in text_of(refused)

    views = await service.command(ALI, GROUP, "tournament", "start")
    assert "The tournament begins: 4 players, 2 rounds." in text_of(views)
    (standings,) = [v for v in views if v.posted is not None]
    assert not standings.edit
    posted_at = MessageRef(77, chat_id="-1", photo=True)
    await standings.posted(posted_at)  # what the adapter does once it is on screen
    games = await active_games(service)
    assert len(games) == 2
    assert all(g.variant == "uzun" and g.rated for g in games)
    t = await tournament(service)
    assert t.stage is Stage.RUNNING
    # All rated 1500: seeded by who joined first; 1 meets 4 and 2 meets 3 (TN-2).
    seeds = {e.player: e.seed for e in t.entrants}
    assert [seeds[(await service.storage.find_user("test", a.username)).id] for a in PLAYERS] == [
        1,
        2,
        3,
        4,
    ]
    assert sorted(sorted(seeds[s] for s in g.seats) for g in games) == [[1, 4], [2, 3]]

    # Seeds 1 and 2 win their semi-finals: the final starts by itself.
    by_seed = {seed: player for player, seed in seeds.items()}
    semi = {tuple(sorted(seeds[s] for s in g.seats)): g for g in games}
    views = await play_out(service, semi[(1, 4)], by_seed[1])
    assert len(await active_games(service)) == 1  # the other semi-final still plays
    (edited,) = [v for v in views if v.posted is not None]
    assert edited.edit  # the standings picture is edited in place after a result
    assert edited.message == posted_at
    views = await play_out(service, semi[(2, 3)], by_seed[2])
    shown = text_of(views)
    assert "Round 2: " in shown
    (final,) = await active_games(service)
    assert sorted(final.seats) == sorted([by_seed[1], by_seed[2]])
    assert final.settings.tournament
    assert final.settings.pairing == "2.1"

    views = await play_out(service, final, by_seed[2])
    champion = (await service.storage.get_user(by_seed[2])).name
    assert f"🏆 {champion} wins the tournament!" in text_of(views)
    (card,) = [v for v in views if "wins the tournament" in text_of([v])]
    assert not card.edit  # the winner's card is a message of its own
    assert [v.message for v in views if v.edit and v.posted] == [posted_at]
    t = await tournament(service)
    assert t.stage is Stage.FINISHED
    assert t.winner == by_seed[2]
    assert all(p.result.outcome is Outcome.PLAYED for p in t.pairings)
    (record,) = await service.storage.tournaments_in_chat("test", "-1", tuple(TournamentStatus))
    assert record.status is TournamentStatus.FINISHED
    assert record.deadline is None or record.deadline > clock.now
    # The matches were rated in the chat like any other.
    top = await service.storage.top("test:-1", "uzun")
    assert top[0][0].id == by_seed[2]


async def test_four_player_swiss_never_pairs_twice(env):
    """TN-4/TN-5: three rounds, six different pairs, standings by score then Buchholz."""
    service, _ = env
    await open_with_four(service, "swiss 3 rounds")
    await service.command(ALI, GROUP, "tournament", "start")
    met = set()
    for round_ in (1, 2, 3):
        games = await active_games(service)
        assert len(games) == 2, round_
        for game in games:
            pair = frozenset(game.seats)
            assert pair not in met
            met.add(pair)
            await play_out(service, game, min(game.seats))  # the lower id wins
    assert len(met) == 6
    t = await tournament(service)
    assert t.stage is Stage.FINISHED
    table = t.standings()
    assert [row.score for row in table] == [3, 2, 1, 0]
    assert t.winner == min(row.player for row in table)
    views = await service.command(VELI, GROUP, "tournament", "")
    assert "1. Ali: 3 won, 0 lost" in text_of(views)


async def test_running_out_of_time_loses_the_match(env):
    """TN-7: the player to act when the deadline passes loses the match, not just a game."""
    service, clock = env
    await open_with_four(service, "knockout 3 points fast")
    await service.command(ALI, GROUP, "tournament", "start")
    games = await active_games(service)
    assert all(g.settings.fast and g.settings.length == 3 for g in games)
    slow = games[0]
    match = Match.from_dict(slow.match)
    loser = slow.seats[match.game.awaiting]
    # A reminder first, then the loss.
    clock.now += service.settings.fast_turn_limit * 0.8
    views = await service.tick()
    assert "it is your move" in text_of(views)
    clock.now += service.settings.fast_turn_limit
    views = await service.tick()
    assert "has run out of time and loses the tournament match" in text_of(views)
    assert all(v.chat == ("test", "-1") for v in views)
    t = await tournament(service)
    pairing = t.pairing_for_match(str(slow.id))
    assert pairing.result.outcome is Outcome.TIMEOUT
    assert pairing.loser == loser
    assert t.entrant(loser).withdrawn  # one time loss withdraws (the default setting)
    stopped = await service.storage.get_game(slow.id)
    assert stopped.status is GameStatus.ABORTED
    assert stopped.deadline is None


async def test_claim_after_the_deadline_wins_the_match(env):
    """TN-7: /claim before the deadline rounds ran gives the whole match, not one game."""
    service, clock = env
    await open_with_four(service, "knockout 5 points fast")
    await service.command(ALI, GROUP, "tournament", "start")
    game = (await active_games(service))[0]
    match = Match.from_dict(game.match)
    waiting_for = await actor_of(service, game.seats[match.game.awaiting])
    claimer = await actor_of(service, game.seats[1 - match.game.awaiting])
    early = await service.command(claimer, GROUP, "claim", "", reply_to_game=game.id)
    assert "only when your opponent has run out of time" in text_of(early)
    clock.now += service.settings.fast_turn_limit + 1
    views = await service.command(claimer, GROUP, "claim", "", reply_to_game=game.id)
    assert f"{waiting_for.name} has run out of time" in text_of(views)
    pairing = (await tournament(service)).pairing_for_match(str(game.id))
    assert pairing.result.outcome is Outcome.TIMEOUT
    assert (await service.storage.get_game(game.id)).status is GameStatus.ABORTED


async def test_leave_before_and_after_the_start(env):
    """TN-1 and TN-7: leaving before the start removes the entry; after it, the match in
    play is lost by forfeit and its game stopped."""
    service, _ = env
    await open_with_four(service, "roundrobin")
    views = await service.command(CAN, GROUP, "tournament", "leave")
    assert "Players (3/16): Ali, Veli, Ayşe" in text_of(views)
    await service.command(CAN, GROUP, "tournament", "join")
    await service.command(ALI, GROUP, "tournament", "start")
    veli = await service.storage.find_user("test", "veli")
    (veli_game,) = [g for g in await active_games(service) if veli.id in g.seats]
    views = await service.command(VELI, GROUP, "tournament", "leave")
    assert "Veli has left the tournament." in text_of(views)
    assert (await service.storage.get_game(veli_game.id)).status is GameStatus.ABORTED
    t = await tournament(service)
    pairing = t.pairing_for_match(str(veli_game.id))
    assert pairing.result.outcome is Outcome.FORFEIT


async def test_matches_a_crash_left_unstarted_are_started_by_the_deadline_rounds(env, monkeypatch):
    """The process dies after a round's games were created and attached but before they
    began: a restarted service's deadline rounds begin them, once."""
    service, clock = env
    await open_with_four(service, "swiss 2")

    async def crash(self, game, chat):
        raise RuntimeError("the process died here")

    with monkeypatch.context() as patch:
        patch.setattr(Rounds, "begin", crash)
        with pytest.raises(RuntimeError):
            await service.command(ALI, GROUP, "tournament", "start")
    assert await active_games(service) == []
    # The first match was created and attached, the second not even that.
    waiting = await service.storage.games_in_chat("test", "-1", (GameStatus.CHALLENGE,))
    assert len(waiting) == 1
    restarted = GameService(service.storage, service.settings, clock=clock)
    assert await restarted.tick() == []  # not yet due
    clock.now += RETRY_AFTER + 1
    await restarted.tick()
    games = await active_games(service)
    assert len(games) == 2
    assert waiting[0].id in [g.id for g in games]
    clock.now += RETRY_AFTER + 1
    await restarted.tick()
    assert len(await active_games(service)) == 2  # begun once, not again
    (record,) = await service.storage.tournaments_in_chat("test", "-1")
    assert record.deadline is None  # nothing left to start


async def test_the_organiser_awards_a_match_and_cancels(env):
    """TN-7: an awarded match counts and its game stops; only the organiser (or a chat
    admin) may award or cancel."""
    service, _ = env
    await open_with_four(service, "roundrobin 3")
    await service.command(ALI, GROUP, "tournament", "start")
    games = await active_games(service)
    can = await service.storage.find_user("test", "can")
    (can_game,) = [g for g in games if can.id in g.seats]
    refused = await service.command(VELI, GROUP, "tournament", "award @can")
    assert "Only the organiser or a chat admin" in text_of(refused)
    views = await service.command(ALI, GROUP, "tournament", "award @can")
    assert "The organiser awards the match to Can." in text_of(views)
    pairing = (await tournament(service)).pairing_for_match(str(can_game.id))
    assert pairing.result.outcome is Outcome.AWARD
    assert pairing.result.winner == can.id
    assert (await service.storage.get_game(can_game.id)).status is GameStatus.ABORTED
    nothing = await service.command(ALI, GROUP, "tournament", "award @can")
    assert "Can has no match to award now." in text_of(nothing)
    admin = Actor(VELI.platform, VELI.user_id, VELI.name, VELI.username, admin=True)
    views = await service.command(admin, GROUP, "tournament", "cancel")
    assert "The tournament is called off." in text_of(views)
    assert await active_games(service) == []
    assert (await tournament(service)).stage is Stage.CANCELLED


async def test_start_time_and_refusals(env):
    """TN-1: at its start time it starts by itself, or is called off with too few."""
    service, clock = env
    views = await service.command(ALI, GROUP, "tournament", "knockout in 30m")
    assert "It starts by itself in 30 minutes." in text_of(views)
    again = await service.command(VELI, GROUP, "tournament", "swiss")
    assert "has a tournament already" in text_of(again)
    clock.now += 31 * 60
    views = await service.tick()
    assert "called off" in text_of(views)
    assert (await tournament(service)).stage is Stage.CANCELLED

    views = await service.command(ALI, GROUP, "tournament", "knockout in 1h max 3")
    for actor in (VELI, AYSE):
        await service.command(actor, GROUP, "tournament", "join")
    full = await service.command(CAN, GROUP, "tournament", "join")
    assert "The tournament is full (3 players)." in text_of(full)
    clock.now += 3601
    views = await service.tick()
    assert "The tournament begins: 3 players, 2 rounds." in text_of(views)
    assert len(await active_games(service)) == 1  # the top seed has the bye (TN-2)
    bad = await service.command(ALI, GROUP, "tournament", "swiss 99")
    assert "has a tournament already" in text_of(bad)


async def test_bad_commands_are_explained(env):
    service, _ = env
    views = await service.command(ALI, GROUP, "tournament", "")
    assert "No tournament here yet." in text_of(views)
    views = await service.command(ALI, GROUP, "tournament", "swiss 99")
    assert "A Swiss has 1 to 30 rounds" in text_of(views)
    views = await service.command(ALI, GROUP, "tournament", "knockout banana")
    assert "I didn't understand “banana”." in text_of(views)
    views = await service.command(ALI, GROUP, "tournament", "join")
    assert "No tournament here yet." in text_of(views)
    private = Place("test", "100", private=True)
    views = await service.command(ALI, private, "tournament", "knockout")
    assert "played in groups" in text_of(views)


# --- whole tournaments of every format and size, with scripted players ------------------


async def run_tournament(service: GameService, clock: Clock, args: str, n: int, seed: int):
    """Open, fill with ``n`` players, start and play to the end: each match is won by a
    random player, some are lost on time (claimed), and one player leaves midway."""
    rng = random.Random(seed)
    actors = [Actor("test", str(1000 + i), f"P{i}", f"p{i}", "en") for i in range(n)]
    await service.command(actors[0], GROUP, "tournament", f"{args} max {n}")
    for actor in actors[1:]:
        await service.command(actor, GROUP, "tournament", "join")
    views = await service.command(actors[0], GROUP, "tournament", "start")
    assert "The tournament begins" in text_of(views), text_of(views)
    # The first match decided is lost on time (from three players on), a player still in
    # leaves once n // 2 matches are decided (from four on); then mostly played matches.
    for step in range(10 * n * n):
        games = await active_games(service)
        if not games:
            break
        game = rng.choice(games)
        seats = [await actor_of(service, s) for s in game.seats]
        if step == n // 2 and n > 3:
            still_in = [e for e in (await tournament(service)).entrants if not e.withdrawn]
            leaver = await actor_of(service, rng.choice(still_in).player)
            views = await service.command(leaver, GROUP, "tournament", "leave")
            assert "has left the tournament" in text_of(views), text_of(views)
        elif n > 2 and (step == 0 or rng.random() < 0.1):
            match = Match.from_dict(game.match)
            claimer = seats[1 - match.game.awaiting]
            clock.now = game.deadline + 1
            views = await service.command(claimer, GROUP, "claim", "", reply_to_game=game.id)
            assert "run out of time" in text_of(views), text_of(views)
        else:
            await play_out(service, game, rng.choice(game.seats))
    return await tournament(service)


def check_finished(t: Tournament) -> None:
    """What every finished tournament satisfies, whatever happened on the way."""
    assert t.stage is Stage.FINISHED
    assert all(p.result is not None for p in t.pairings)
    byes: dict[int, int] = {}
    for p in t.pairings:
        if p.bye:
            byes[p.home] = byes.get(p.home, 0) + 1
    pairs = [frozenset(p.players) for p in t.pairings if not p.bye and len(p.players) == 2]
    if t.format is Format.ROUND_ROBIN:  # TN-3: everyone meets everyone exactly once
        everyone = {e.player for e in t.entrants}
        expected = {frozenset((a, b)) for a in everyone for b in everyone if a < b}
        assert sorted(pairs, key=sorted) == sorted(expected, key=sorted)
        assert all(count == 1 for count in byes.values())
        assert len(byes) == (len(everyone) if len(everyone) % 2 else 0)
    if t.format is Format.SWISS:  # TN-4: never the same pair twice, at most one bye
        assert len(pairs) == len(set(pairs))
        assert all(count == 1 for count in byes.values())
    if t.format is Format.KNOCKOUT:  # TN-2: one winner, unless both finalists had left
        final = t.pairing(f"{t.rounds}.1")
        if t.winner is None:
            assert all(t.entrant(p).withdrawn for p in final.players)
        else:
            assert t.winner in final.players
        # Byes only in the first round, to the top seeds.
        first_byes = sorted(t.entrant(p.home).seed for p in t.round_pairings(1) if p.bye)
        assert first_byes == list(range(1, len(first_byes) + 1))


@pytest.mark.parametrize(
    ("args", "n"),
    [
        ("knockout", 2),
        ("knockout", 5),
        ("knockout", 8),
        ("knockout", 33),
        ("roundrobin", 2),
        ("roundrobin", 5),
        ("roundrobin", 6),
        ("swiss 3", 2),
        ("swiss 4", 5),
        ("swiss 5", 8),
        ("swiss 3", 33),
    ],
)
async def test_whole_tournaments_through_the_service(env, args: str, n: int):
    service, clock = env
    t = await run_tournament(service, clock, args, n, seed=n)
    check_finished(t)
    assert await active_games(service) == []
    outcomes = {p.result.outcome for p in t.pairings}
    assert Outcome.PLAYED in outcomes
    if n > 3:  # someone left and someone lost on time, midway
        assert Outcome.TIMEOUT in outcomes
        assert sum(e.withdrawn for e in t.entrants) >= 2
    # Every pairing's match is an ordinary game of the chat, over one way or another.
    for p in t.pairings:
        if p.match_ref is not None:
            game = await service.storage.get_game(int(p.match_ref))
            assert game.status in (GameStatus.FINISHED, GameStatus.ABORTED)
            assert game.settings.tournament


async def test_two_workers_finishing_both_semi_finals_at_once(env, make_storage):
    """Several workers: two results at the same moment on two processes' services both
    count, and the final is started exactly once."""
    service, clock = env
    other_storage = make_storage()  # another worker on the same database
    await other_storage.open()
    try:
        other = GameService(
            other_storage,
            service.settings,
            clock=clock,
            dice_factory=lambda: SeededDice(b"\x99" * 32),
        )
        await open_with_four(service, "knockout")
        await service.command(ALI, GROUP, "tournament", "start")
        semis = await active_games(service)
        offers = []
        for game in semis:
            loser = await actor_of(service, max(game.seats))
            views = await resign(service, loser, GROUP, reply_to_game=game.id)
            accept = next(
                b.action
                for v in views
                for row in v.buttons
                for b in row
                if (a := A.decode(b.action)) and a.code == A.RESIGN_ACCEPT
            )
            offers.append((await actor_of(service, min(game.seats)), accept))
        await asyncio.gather(
            service.press(offers[0][0], GROUP, offers[0][1]),
            other.press(offers[1][0], GROUP, offers[1][1]),
        )
        (final,) = await active_games(service)
        t = await tournament(service)
        assert [p.result.outcome for p in t.round_pairings(1)] == [Outcome.PLAYED] * 2
        assert t.pairing("2.1").match_ref == str(final.id)
        assert sorted(final.seats) == sorted(min(g.seats) for g in semis)
    finally:
        await other_storage.close()
