# ruff: noqa: F811  (the web fixture comes from tests/test_web_api.py)
"""Every point a checker can reach this turn is a target on the web page, and a move over
several dice is one action: the page's state lists, for each checker, core's moves (one die
or several, with their steps), and the service makes the steps in order.

The rules named (shared/rules.md): common ground (one checker may use several dice only when
every stop is a legal landing point), T-3 landing, T-4 hitting, T-6 bearing off with a
larger die, U-3 no hitting and U-4 the head rule.
"""

from __future__ import annotations

from bot.web.state import game_state
from core.match import Match
from core.variants import variant_by_name
from tests.factory import seeded_dice
from tests.test_web_api import auth, init_data, web  # noqa: F401  (the fixture)
from tests.web_helpers import set_position

# Seat 0's side in its own numbering: index 0 borne off, 1-24 its points, 25 its bar.
START = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def side(points: dict[int, int], off: int = 0, bar: int = 0) -> list[int]:
    out = [0] * 26
    out[0], out[25] = off, bar
    for point, count in points.items():
        out[point] = count
    assert sum(out) == 15, out
    return out


def other(point: int) -> int:
    """Seat 0's point ``point`` in seat 1's numbering (Tavla). The opponent's sides below
    keep off seat 0's points 6, 8, 13 and 24 (their 19, 17, 12 and 1)."""
    return 25 - point


async def state_of(service, game_id: int, seat: int = 0) -> dict:
    return game_state(await service.storage.get_game(game_id), seat, "en")


async def post_move(client, game_id: int, player: str, steps: list, version: int) -> dict:
    body = {"action": "move", "steps": steps, "version": version}
    resp = await client.post(
        f"/api/game/{game_id}/action", json=body, headers=auth(init_data(int(player), "P"))
    )
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_a_checker_s_targets_are_every_point_it_reaches_with_one_die_or_both(web):
    """Common ground: 13 with 3-2 reaches 11, 10 and 8 (13/10/8 or 13/11/8, one move)."""
    client, service, _signer, game_id, players = web
    await set_position(service, game_id, [START, START], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    assert sorted(state["legal"]["13"]) == [8, 10, 11]
    to_8 = [m for m in state["moves"]["13"] if m["to"] == 8]
    assert len(to_8) == 1  # the same board either way: one move
    assert to_8[0]["text"] == "13/8"
    assert len(to_8[0]["steps"]) == 2
    # One action plays it; the checker stands on 8, both dice used.
    answer = await post_move(client, game_id, players[0], to_8[0]["steps"], state["version"])
    assert answer["ok"], answer
    board = answer["state"]["board"]
    assert board["points"][8]["count"] == 4
    assert board["points"][13]["count"] == 4
    assert all(board["dice_used"])


async def test_a_run_stops_only_where_it_may_land(web):
    """T-3: with the opponent holding 11 and 10, 13 reaches neither 8 (both stops are
    closed) nor either of them; with 11 alone closed, 8 is reached through 10 only."""
    _client, service, _signer, game_id, _players = web
    both = side({other(11): 2, other(10): 2, 6: 5, 7: 3, 24: 3})
    await set_position(service, game_id, [START, both], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    assert "13" not in state["legal"]
    one = side({other(11): 2, 6: 5, 7: 5, 24: 3})
    await set_position(service, game_id, [START, one], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    assert sorted(state["legal"]["13"]) == [8, 10]
    assert [m["steps"] for m in state["moves"]["13"] if m["to"] == 8] == [[[13, 10], [10, 8]]]


async def test_a_run_through_a_blot_hits_it_and_both_ways_are_offered(web):
    """T-4: a blot on 10: 13 reaches 8 by hitting it on the way (13/10*/8) or passing it
    (13/11/8); both are offered, and the hitting one puts the blot on the bar."""
    client, service, _signer, game_id, players = web
    blot = side({other(10): 1, 6: 5, 7: 3, 24: 4, 5: 2})
    await set_position(service, game_id, [START, blot], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    ways = {m["text"]: m for m in state["moves"]["13"] if m["to"] == 8}
    assert set(ways) == {"13/10*/8", "13/8"}
    assert ways["13/10*/8"]["hit"]
    assert not ways["13/8"]["hit"]
    assert ways["13/8"]["steps"] == [[13, 11], [11, 8]]
    answer = await post_move(
        client, game_id, players[0], ways["13/10*/8"]["steps"], state["version"]
    )
    assert answer["ok"], answer
    board = answer["state"]["board"]
    assert board["bar"][board["top"]] == 1
    assert board["points"][8]["count"] == 4


async def test_bearing_off_with_a_larger_die_and_after_a_step_home(web):
    """T-6: the last checker outside (on 8) goes 8/2 with the 6 and off with the 5 (no
    checker above 2 by then): one target, off, in one action; a lone checker on 4 bears off
    with either die of 6-5."""
    client, service, _signer, game_id, players = web
    home = side({19: 5, 18: 5, 16: 5})
    await set_position(service, game_id, [side({8: 1, 1: 4}, off=10), home], dice=(6, 5))
    state = await state_of(service, game_id)
    off = [m for m in state["moves"]["8"] if m["to"] == 0]
    assert len(off) == 1
    assert len(off[0]["steps"]) == 2
    answer = await post_move(client, game_id, players[0], off[0]["steps"], state["version"])
    assert answer["ok"], answer
    assert answer["state"]["board"]["off"][answer["state"]["board"]["bottom"]] == 11
    await set_position(service, game_id, [side({4: 1, 1: 1}, off=13), home], dice=(6, 5))
    state = await state_of(service, game_id)
    assert [m["steps"] for m in state["moves"]["4"]] == [[[4, 0]]]


async def test_uzun_head_rule_a_run_is_one_checker_from_the_head(web):
    """U-4 (and U-3): one checker leaves the head per turn: with 3-3 the head checker
    reaches 21, 18 and 15 (12 is the opponent's head, closed), and once it has left, the
    head offers no more moves this turn."""
    client, service, _signer, game_id, players = web
    record = await service.storage.get_game(game_id)
    record.variant = "uzun"
    record.match = Match(variant_by_name("uzun"), length=1).to_dict()
    match = Match.from_dict(record.match)
    match.start_game(seeded_dice(3)())
    record.match = match.to_dict()
    async with service.storage.transaction() as tx:
        await tx.save_game(record, record.version)
    mine = [0] * 26
    mine[24], mine[20] = 14, 1
    theirs = [0] * 26
    theirs[24] = 15
    await set_position(service, game_id, [mine, theirs], turn=0, dice=(3, 3))
    state = await state_of(service, game_id)
    assert sorted(state["legal"]["24"]) == [15, 18, 21]
    to_15 = next(m for m in state["moves"]["24"] if m["to"] == 15)
    assert to_15["steps"] == [[24, 21], [21, 18], [18, 15]]
    answer = await post_move(client, game_id, players[0], [[24, 21]], state["version"])
    assert answer["ok"], answer
    assert "24" not in answer["state"]["legal"]
    assert "24" not in answer["state"]["moves"]
    # A tap on the head then says why (U-4), as a refused move would.
    assert answer["state"]["stuck"]["24"] == "Only one checker may leave the head each turn."


async def test_a_checker_that_cannot_move_has_core_s_reason(web):
    """T-3 and T-5: checkers shut in behind closed points, and everything else while a
    checker is on the bar, each with the reason a refused move would give."""
    _client, service, _signer, game_id, _players = web
    walled = side({other(21): 2, other(22): 2, other(10): 1, 6: 4, 7: 3, 5: 3})
    await set_position(service, game_id, [START, walled], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    assert state["stuck"] == {"24": "Point 21 is closed: your opponent holds it."}
    assert "13" in state["moves"]
    on_bar = side({13: 4, 8: 3, 6: 5, 24: 2}, bar=1)
    await set_position(service, game_id, [on_bar, START], turn=0, dice=(3, 2))
    state = await state_of(service, game_id)
    assert set(state["moves"]) == {"25"}
    assert state["stuck"]["13"] == "You have a checker on the bar: enter it first."


async def test_a_move_s_steps_are_read_strictly(web):
    client, service, _signer, game_id, players = web
    await set_position(service, game_id, [START, START], turn=0, dice=(3, 2))
    version = (await state_of(service, game_id))["version"]
    me = auth(init_data(int(players[0]), "P"))
    for steps in ([], [[13, 10]] * 5, [[13]], [["13", "10"]], [[13, 26]], "13-10", [[True, 10]]):
        body = {"action": "move", "steps": steps, "version": version}
        resp = await client.post(f"/api/game/{game_id}/action", json=body, headers=me)
        assert resp.status == 400, steps
    # A run that core refuses (13/10/7 needs a second 3) is refused with its reason.
    answer = await post_move(client, game_id, players[0], [[13, 10], [10, 7]], version)
    assert not answer["ok"]
    assert answer["message"]
    assert answer["state"]["version"] == version
