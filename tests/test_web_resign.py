# ruff: noqa: F811  (the web fixture comes from tests/test_web_api.py)
"""Resigning on the web page at the levels the rules allow (T-9: single, gammon or
backgammon; U-9 and Turkish tavla: no backgammon), each with what the opponent would win,
confirmed before it is offered."""

from __future__ import annotations

import os

import pytest

from bot.web.links import seat_url
from bot.web.state import game_state, resign_levels
from core.match import Match
from core.variants import variant_by_name
from tests.factory import seeded_dice
from tests.test_web_api import auth, init_data, web  # noqa: F401  (the fixture)
from tests.test_web_browser import CHROMIUM, serving, wait_version
from tests.test_web_page import phone_page, shot


async def test_the_levels_offered_are_the_rules_and_a_gammon_is_offered_as_chosen(web):
    """T-9: Tavla offers a single (1), a gammon (2) and a backgammon (3) times the cube;
    Turkish tavla and Uzun Tavla (U-9) no backgammon. A gammon chosen is what the opponent
    is asked to accept, and accepting it ends the game with 2 points."""
    client, service, _signer, game_id, players = web
    state = game_state(await service.storage.get_game(game_id), 0, "en")
    assert [level["kind"] for level in state["resign_levels"]] == [
        "single",
        "gammon",
        "backgammon",
    ]
    assert [level["label"] for level in state["resign_levels"]] == [
        "A single game: 1 point",
        "A gammon (mars): 2 points",
        "A backgammon: 3 points",
    ]
    for variant in ("turkish", "uzun"):
        match = Match(variant_by_name(variant), length=1)
        match.start_game(seeded_dice(1)())
        levels = resign_levels(match.game, "Veli", "en")
        assert [level["kind"] for level in levels] == ["single", "gammon"]
    me = auth(init_data(int(players[0]), "P0"))
    them = auth(init_data(int(players[1]), "P1"))
    body = {"action": "resign", "kind": "gammon", "version": state["version"]}
    answer = await (await client.post(f"/api/game/{game_id}/action", json=body, headers=me)).json()
    assert answer["ok"], answer
    assert answer["state"]["resign_levels"] == []  # one offer at a time
    theirs = await (await client.get(f"/api/game/{game_id}", headers=them)).json()
    assert theirs["buttons"] == ["accept_resign", "decline_resign"]
    body = {"action": "accept_resign", "version": theirs["version"]}
    answer = await (
        await client.post(f"/api/game/{game_id}/action", json=body, headers=them)
    ).json()
    assert answer["ok"], answer
    result = (await service.storage.get_game(game_id)).match["game"]["result"]
    assert result["kind"] == "gammon"
    assert result["points"] == 2
    assert "gammon" in answer["state"]["result"]
    # A level that is not one is refused as a bad request.
    bad = {"action": "resign", "kind": "everything", "version": answer["state"]["version"]}
    resp = await client.post(f"/api/game/{game_id}/action", json=bad, headers=me)
    assert resp.status == 400


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Debian's chromium")
async def test_the_resign_button_offers_each_level_and_confirms_the_one_chosen(tmp_path):
    pytest.importorskip("playwright")
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        record = await service.storage.get_game(game_id)
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            asked: list[str] = []

            async def answer(dialog):
                asked.append(dialog.message)
                await dialog.accept()

            page.on("dialog", answer)
            await page.locator("#resign").click()
            await page.locator("[data-resign]").first.wait_for()
            kinds = await page.locator("[data-resign]").evaluate_all(
                "nodes => nodes.map(n => n.dataset.resign)"
            )
            assert kinds == ["single", "gammon", "backgammon"]
            board_y = (await page.locator("#board").bounding_box())["y"]
            await shot(page, "resign-levels.png")
            await page.locator('[data-resign="gammon"]').click()
            await wait_version(page, record.version + 1)
            lang = await page.evaluate("document.documentElement.lang")
            levels = game_state(record, 0, lang)["resign_levels"]
            assert asked == [levels[1]["question"]]
            offer = (await service.storage.get_game(game_id)).match["game"]["resign_offer"]
            assert offer == [0, "gammon"]
            assert (await page.locator("#board").bounding_box())["y"] == board_y
