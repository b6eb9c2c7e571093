"""Tournaments and the clock, through the game service with a fake clock: the card's
countdown refreshed at coarse steps (TN-1), the pace driving every match's deadlines, time
losses and players leaving midway in every format (TN-7), and the mentions that notify the
players of their pairings and reminders.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

from bot.i18n import t
from bot.service.mentions import Mention, mentions_in, pieces
from bot.service.service import GameService
from bot.service.tournaments.base import countdown_step
from bot.service.views import MessageRef
from core.match import Match
from core.tournament import Format, Outcome, Stage
from tests.test_tournament_chat import (
    ALI,
    AYSE,
    GROUP,
    PLAYERS,
    VELI,
    active_games,
    actor_of,
    card_button,
    check_finished,
    open_with_four,
    play_out,
    text_of,
    tournament,
)
from tests.test_tournament_chat import env as env
from tests.test_tournament_chat import make_storage as make_storage

CARD_AT = MessageRef(9, chat_id="-1", photo=False)


async def test_the_countdown_is_edited_at_coarse_steps_until_the_start(env):
    """TN-1: deadline rounds every 30 seconds for three hours edit the card in place, never
    twice within a minute (Telegram allows a group about twenty edits a minute), more often
    as the start nears; at the start time the card is closed and the matches begin."""
    service, clock = env
    views = await service.command(ALI, GROUP, "tournament", "knockout in 3h")
    (card,) = views
    assert "It starts by itself in 3 h 0 min." in text_of(views)
    await card.posted(CARD_AT)  # where the adapter posted it
    join = card_button(views, "j")
    for actor in PLAYERS[1:]:
        await service.press(actor, GROUP, join, message=CARD_AT)
    opened, edits = clock.now, []
    while True:
        clock.now += 30
        views = await service.tick()
        if any("begins" in text_of([v]) for v in views):
            break
        for view in views:
            assert view.edit
            assert view.message == CARD_AT
            assert view.chat == ("test", "-1")
            edits.append((clock.now, text_of([view])))
    assert clock.now - opened == pytest.approx(3 * 3600, abs=30)
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(edits)]
    assert min(gaps) >= 60
    assert 20 <= len(edits) <= 60
    assert "It starts by itself in 1 minute." in edits[-1][1]
    assert "It starts by itself in 2 h 45 min." in edits[0][1]
    (closed,) = [v for v in views if v.message == CARD_AT]
    assert closed.edit
    assert not closed.buttons
    assert "Entries are closed" in text_of([closed])
    assert len(await active_games(service)) == 2


def test_countdown_steps_are_coarse_far_off_and_never_under_a_minute():
    lefts = [0, 59, 60, 900, 901, 7200, 7201, 43200, 43201, 10**6]
    steps = [countdown_step(left) for left in lefts]
    assert min(steps) == 60
    assert steps == sorted(steps)  # never finer when the start is further off
    assert countdown_step(10**6) == 3600


async def test_a_card_called_off_by_the_organiser_or_too_few_players_is_closed(env):
    service, clock = env
    (card,) = await service.command(ALI, GROUP, "tournament", "swiss in 10m")
    await card.posted(CARD_AT)
    views = await service.command(ALI, GROUP, "tournament", "cancel")
    closed = [v for v in views if v.edit and v.message == CARD_AT]
    assert len(closed) == 1
    assert not closed[0].buttons
    assert "The tournament is called off." in text_of(views)

    (card,) = await service.command(ALI, GROUP, "tournament", "roundrobin in 10m")
    await card.posted(CARD_AT)
    clock.now += 11 * 60
    views = await service.tick()
    assert "fewer than 2 players had joined by its start" in text_of(views)
    assert [v for v in views if v.edit and not v.buttons and v.message == CARD_AT]


@pytest.mark.parametrize(("pace", "limit"), [("fast", "fast_turn_limit"), ("daily", "turn_limit")])
async def test_the_pace_sets_every_matchs_deadlines(env, pace: str, limit: str):
    """Fast: minutes per move; daily: 24 hours per move. The time to move is the pace's from
    the first move on, and running out of it loses the match (TN-7), not earlier."""
    service, clock = env
    views = await open_with_four(service, f"knockout 3 points {pace}")
    seconds = getattr(service.settings, limit)
    assert seconds == (300 if pace == "fast" else 24 * 3600)
    shown = "fast: 5 min per move" if pace == "fast" else "daily: 24 h per move"
    assert shown in text_of(views)
    await service.command(ALI, GROUP, "tournament", "start")
    games = await active_games(service)
    assert {g.deadline - clock.now for g in games} == {seconds}
    clock.now += seconds - 1
    views = await service.tick()
    assert "run out of time" not in text_of(views)
    assert "it is your move" in text_of(views)  # reminded first
    clock.now += 2
    views = await service.tick()
    assert text_of(views).count("loses the tournament match") == 2
    t = await tournament(service)
    assert [p.result.outcome for p in t.round_pairings(1)] == [Outcome.TIMEOUT] * 2


async def drive(service: GameService, clock, quitter: str, rounds: int) -> None:
    """Play: the first round's first match normally; then ``quitter`` leaves; then every
    match in play runs out of time at once (the deadline rounds); then the rest is played."""
    games = await active_games(service)
    await play_out(service, games[0], min(games[0].seats))
    views = await service.command(
        next(a for a in PLAYERS if a.name == quitter), GROUP, "tournament", "leave"
    )
    assert f"{quitter} has left the tournament." in text_of(views)
    games = await active_games(service)
    if games:
        clock.now = max(g.deadline for g in games) + 1
        views = await service.tick()
        assert text_of(views).count("has run out of time") == len(games)
    for _ in range(20 * rounds):
        games = await active_games(service)
        if not games:
            break
        await play_out(service, games[0], min(games[0].seats))


@pytest.mark.parametrize("args", ["knockout", "roundrobin", "swiss 3"])
async def test_leaving_and_running_out_of_time_midway_in_every_format(env, args: str):
    """TN-7 in every format: a player leaving forfeits the match in play and the rest, a
    time loss (one withdraws by default) too; the tournament still ends, with byes and
    pairings as the format states."""
    service, clock = env
    await open_with_four(service, args)
    fifth = type(ALI)("test", "500", "Ece", "ece", "en")
    await service.command(fifth, GROUP, "tournament", "join")
    await service.command(ALI, GROUP, "tournament", "start")
    await drive(service, clock, "Can", rounds=5)
    t = await tournament(service)
    check_finished(t)
    assert await active_games(service) == []
    outcomes = {p.result.outcome for p in t.pairings}
    assert Outcome.TIMEOUT in outcomes
    can = next(e for e in t.entrants if e.name == "Can")
    assert can.withdrawn
    # Nobody who left or lost on time played again: their later pairings (round robin's
    # fixed table, a knockout's next round) are forfeits without a match; a Swiss stops
    # pairing them.
    for e in t.entrants:
        if not e.withdrawn:
            continue
        later = [
            p
            for p in t.pairings
            if e.player in p.players and p.created_at is not None and p.created_at > e.withdrawn_at
        ]
        assert all(p.match_ref is None and p.result.outcome is Outcome.FORFEIT for p in later)
        if t.format is Format.SWISS:
            assert later == []
    assert t.stage is Stage.FINISHED


async def test_pairings_and_reminders_mention_the_players(env):
    """The bot posts each round's pairings mentioning both players (and a bye's player),
    and reminds the slow player with a mention, so the platform notifies them."""
    service, clock = env
    await open_with_four(service, "roundrobin fast")
    fifth = type(ALI)("test", "500", "Ece", "ece", "en")
    await service.command(fifth, GROUP, "tournament", "join")
    views = await service.command(ALI, GROUP, "tournament", "start")
    (pairings,) = [v for v in views if "Tournament matches" in text_of([v])]
    mentioned = mentions_in(pairings.lines)
    everyone = {a.user_id for a in [*PLAYERS, fifth]}
    assert {m.user_id for m in mentioned} == everyone  # two matches and a bye
    assert all(m.platform == "test" for m in mentioned)
    assert "has a bye" in text_of([pairings])
    game = (await active_games(service))[0]
    slow = await actor_of(service, game.seats[Match.from_dict(game.match).game.awaiting])
    clock.now += service.settings.fast_turn_limit * 0.8
    views = await service.tick()
    reminders = [v for v in views if "it is your move" in text_of([v])]
    assert Mention("test", slow.user_id, slow.name) in {
        m for v in reminders for m in mentions_in(v.lines)
    }


def test_mentions_are_pieces_of_the_translated_text():
    ayse = Mention("telegram", "33", "Ayşe \ue0001\ue001")  # a name can't forge a mention
    line = t("Round {n}: {home} – {away}", n=2, home=ayse, away="Veli")
    assert pieces([line, "ok"], "tr") == ["2. tur: ", ayse, " – Veli\nok"]
    assert str(ayse) == ayse.name
    assert f"{ayse}" == ayse.name
    assert mentions_in([line, t("{x}", x=line)]) == [ayse]


async def test_the_number_of_time_losses_that_put_a_player_out_is_a_setting(env):
    """TN-7's setting from the command: ``0 timeouts`` keeps players who lose on time in."""
    service, clock = env
    views = await open_with_four(service, "swiss 2 fast 0 timeouts")
    assert "A match lost on time never puts a player out." in text_of(views)
    await service.command(ALI, GROUP, "tournament", "start")
    games = await active_games(service)
    clock.now = max(g.deadline for g in games) + 1
    await service.tick()
    t = await tournament(service)
    assert t.settings.timeouts_to_withdraw == 0
    assert not any(e.withdrawn for e in t.entrants)
    assert len(await active_games(service)) == 2  # everyone paired again in round 2
    await service.command(ALI, GROUP, "tournament", "cancel")
    views = await service.command(ALI, GROUP, "tournament", "knockout 2 timeouts")
    assert "Matches lost on time that put a player out: 2." in text_of(views)


async def test_a_minimum_of_players_set_in_turkish_calls_it_off_when_missed(env):
    """TN-1: ``en az 4`` (at least four) and ``en çok 8`` (at most eight): three players at
    the start time are too few, and the group is told so."""
    service, clock = env
    views = await service.command(ALI, GROUP, "tournament", "eleme en çok 8 en az 4 30dk")
    assert "Players (1/8)" in text_of(views)
    assert "At least 4 players are needed to start." in text_of(views)
    for actor in (VELI, AYSE):
        await service.command(actor, GROUP, "tournament", "join")
    clock.now += 30 * 60
    views = await service.tick()
    assert "fewer than 4 players had joined by its start" in text_of(views)
    assert (await tournament(service)).stage is Stage.CANCELLED


async def test_two_workers_refresh_the_countdown_once(env, make_storage):
    """Several workers: both run the deadline rounds; the card is edited by one of them."""
    service, clock = env
    other_storage = make_storage()
    await other_storage.open()
    try:
        other = GameService(other_storage, service.settings, clock=clock)
        (card,) = await service.command(ALI, GROUP, "tournament", "knockout in 1h")
        await card.posted(CARD_AT)
        clock.now += 10 * 60
        first, second = await asyncio.gather(service.tick(), other.tick())
        assert len([v for v in first + second if v.message == CARD_AT]) == 1
    finally:
        await other_storage.close()
