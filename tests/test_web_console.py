"""The console prints each game's web board links once (issue 14): a personal link for each
local player and a watch link, all opening the right seat of the right game."""

from __future__ import annotations

import dataclasses
import io
import re
from urllib.parse import unquote

from bot.console import ConsoleAdapter
from bot.storage.sqlite import SqliteStorage
from bot.web.run import console_links, signer_for
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
