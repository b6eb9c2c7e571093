"""The console prints each game's web board links once: a personal link for each
local player and a watch link, all opening the right seat of the right game."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
from urllib.parse import unquote

from aiohttp.test_utils import TestClient, TestServer

from bot.console import ConsoleAdapter
from bot.service import actions as A
from bot.storage.sqlite import SqliteStorage
from bot.web import relay
from bot.web.hub import ChangeHub
from bot.web.run import console_links, signer_for
from bot.web.server import WebBoard
from bot.web.state import game_state
from core.match import Match
from tests.factory import make_service
from tests.test_web_telegram import config


async def test_console_prints_personal_and_watch_links_once_per_game(tmp_path):
    storage = SqliteStorage(str(tmp_path / "c.db"))
    await storage.open()
    service = make_service(storage, render_images=False)
    cfg = dataclasses.replace(config(web_base_url="http://127.0.0.1:8080"), web_secret="console")
    out = io.StringIO()
    console = ConsoleAdapter(
        service, board_dir=tmp_path, out=out, web_links=console_links(cfg, service)
    )
    try:
        await console.handle("/tavla")
        await console.handle("/board")
        text = out.getvalue()
        links = re.findall(r"Web board for (\w+): (\S+)", text)
        assert [name for name, _ in links] == ["Ali", "Veli"]
        assert text.count("Web board to watch: ") == 1
        record = await storage.get_game(console.game_id)
        signer = signer_for(cfg)
        for seat, (_, url) in enumerate(links):
            assert url.startswith(f"http://127.0.0.1:8080/#game={record.id}&link=")
            link = signer.check_seat(unquote(url.split("link=")[1]), record.id)
            assert record.seats[link.seat] == link.user_id
            assert link.seat == seat
    finally:
        await storage.close()


async def test_the_console_prints_the_board_after_a_turn_played_on_the_web_page(tmp_path):
    """A game of the console played on its web page: the console says nothing while the
    checkers move, and prints the new board, with its buttons, once the turn is finished
    (as a chat's board is edited), so the terminal follows the game. A typed number then
    presses the new board's buttons."""
    hub = ChangeHub()
    storage = SqliteStorage(str(tmp_path / "c.db"))
    await storage.open()
    service = make_service(hub.watch(storage), render_images=False)  # type: ignore[arg-type]
    cfg = dataclasses.replace(config(web_base_url="http://127.0.0.1:8080"), web_secret="console")
    out = io.StringIO()
    links = console_links(cfg, service)
    console = ConsoleAdapter(service, board_dir=tmp_path, out=out, web_links=links)
    console.follow_web()  # as python -m bot does when it serves the web board
    board = WebBoard(service, hub, signer_for(cfg))
    client = TestClient(TestServer(board.app))
    await client.start_server()
    try:
        await console.handle("/tavla")
        record = await storage.get_game(console.game_id)
        game_id = record.id

        async def act(body: dict) -> dict:
            record = await storage.get_game(game_id)
            seat = Match.from_dict(record.match).game.awaiting
            token = signer_for(cfg).seat_token(game_id, seat, record.seats[seat])
            state = await (
                await client.get(f"/api/game/{game_id}", headers={"Authorization": "link " + token})
            ).json()
            answer = await (
                await client.post(
                    f"/api/game/{game_id}/action",
                    json={**body, "version": state["version"]},
                    headers={"Authorization": "link " + token},
                )
            ).json()
            assert answer["ok"], answer
            return answer["state"]

        if (await storage.get_game(game_id)).match["game"]["phase"] == "roll":
            await act({"action": "roll"})
        printed = out.getvalue()
        record = await storage.get_game(game_id)
        game = Match.from_dict(record.match).game
        assert game.phase.value == "move"
        mover = game.awaiting
        # The checkers move one by one on the page: the console stays quiet.
        while True:
            state = game_state(await storage.get_game(game_id), mover, "en")
            if not state["moves"]:
                break
            before = out.getvalue()
            state = await act(
                {"action": "move", "steps": next(iter(state["moves"].values()))[0]["steps"]}
            )
            if state["moves"] or "confirm" in state["buttons"]:
                await drain()
                assert out.getvalue() == before
        if "confirm" in state["buttons"]:
            await act({"action": "confirm"})
        await drain()
        after = out.getvalue()[len(printed) :]
        record = await storage.get_game(game_id)
        game = Match.from_dict(record.match).game
        assert game.awaiting != mover  # the turn passed to the other side
        # The new board is printed, with the buttons of the player now to act.
        assert "to roll" in after
        assert "[1] " in after
        assert console.buttons
        assert A.decode(console.buttons[0].action).version == record.version  # type: ignore[union-attr]
        await console.handle("1")  # the other player rolls from the console
        assert (await storage.get_game(game_id)).version > record.version
    finally:
        relay.unregister("console")
        await client.close()
        await storage.close()


async def drain() -> None:
    """Let the relay's task (started by the page's action) run."""
    for _ in range(20):
        await asyncio.sleep(0)
