# ruff: noqa: F811  (the web fixture comes from tests/test_web_api.py)
"""A finished game through the web board's API: its result as the chat words it, the chat's
Rematch and Analyse for its players (none for spectators), and a rematch that names the new
contest (with a personal link to it for a player who came by one)."""

from __future__ import annotations

from tests.test_web_api import NOW, auth, init_data, web  # noqa: F401  (the fixture)


async def post(client, game_id: int, header: dict, action: str) -> dict:
    state = await (await client.get(f"/api/game/{game_id}", headers=header)).json()
    body = {"action": action, "version": state["version"]}
    resp = await client.post(f"/api/game/{game_id}/action", json=body, headers=header)
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_a_finished_game_offers_rematch_and_analyse_and_a_rematch_names_the_new_one(web):
    client, service, signer, game_id, players = web
    record = await service.storage.get_game(game_id)
    first = auth(init_data(int(players[0]), "Ali"))
    second = auth(init_data(int(players[1]), "Veli"))
    await post(client, game_id, second, "resign")
    answer = await post(client, game_id, first, "accept_resign")
    state = answer["state"]
    assert state["over"]
    assert state["result"].endswith("wins 1 point.")
    assert "resigned a single game" in state["result"]
    assert state["buttons"] == ["rematch", "analyse"]
    watch = auth("watch " + signer.watch_token(game_id))
    watched = await (await client.get(f"/api/game/{game_id}", headers=watch)).json()
    assert watched["buttons"] == []
    assert watched["result"] == state["result"]
    # Telegram's launch data opens any game of the player's: the new game's id is enough.
    answer = await post(client, game_id, first, "rematch")
    assert answer["ok"], answer
    new_id = answer["next"]["game"]
    assert new_id != game_id
    assert "link" not in answer["next"]
    assert (await service.storage.get_game(new_id)).status.value == "challenge"
    # A personal link's player gets a link to their seat of the new contest.
    link = auth("link " + signer.seat_token(game_id, 1, record.seats[1], now=NOW))
    answer = await post(client, game_id, link, "rematch")
    assert answer["ok"], answer
    newer = answer["next"]["game"]
    seat = signer.check_seat(answer["next"]["link"], newer, now=NOW)
    assert (await service.storage.get_game(newer)).seats[seat.seat] == record.seats[1]
