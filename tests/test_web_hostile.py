"""The web board against odd requests from outside: who may read a game by its id, odd ids
and bodies, and the headers of every answer (errors included)."""

from __future__ import annotations

import json
import logging

from bot.service.service import Place
from bot.web.auth import LinkSigner
from tests import test_web_api
from tests.test_web_api import auth, init_data
from tests.web_helpers import ALI

web = test_web_api.web  # the fixture: a served game between two Telegram users

ODD_IDS = (
    "9223372036854775808",  # 2**63: past SQLite's and PostgreSQL's integers
    "99999999999999999999999999",
    "١٢",  # Arabic-Indic digits: str.isdigit() says yes
    "²",
    "0",
    "-1",
    "1e3",
    " 1",
)


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_telegram_user_reads_only_games_they_play_or_were_linked_to(web):
    client, service, signer, game_id, _players = web
    stranger = 999

    async def status(game: int, **launch: str) -> int:
        header = auth(init_data(stranger, "Zed", **launch))
        return (await client.get(f"/api/game/{game}", headers=header)).status

    # Valid launch data alone names the user, not a game they may see.
    assert await status(game_id) == 403
    # A start_param anyone can type, another game's link, a forged signature: nothing.
    assert await status(game_id, start_param=f"g{game_id}") == 403
    assert await status(game_id, start_param=signer.group_start(game_id + 1)) == 403
    assert await status(game_id, start_param=LinkSigner("other").group_start(game_id)) == 403
    # The group's own link of the game (what its board message carries): a spectator.
    assert await status(game_id, start_param=signer.group_start(game_id)) == 200
    # A private game against the computer: its player only.
    private = Place("telegram", ALI.user_id, private=True)
    views = await service.command(ALI, private, "bot", "")
    computer_game = next(v.game_id for v in views if v.game_id is not None)
    assert computer_game != game_id
    assert await status(computer_game) == 403
    assert await status(computer_game, start_param=f"g{computer_game}") == 403
    mine = auth(init_data(int(ALI.user_id), "Ali"))
    assert (await client.get(f"/api/game/{computer_game}", headers=mine)).status == 200
    # The live updates of a game the stranger may not read: no stream token to open them.
    body = await (await client.get(f"/api/game/{computer_game}", headers=mine)).text()
    assert "stream" in json.loads(body)


async def test_odd_game_ids_are_no_game_and_log_no_error(web, caplog):
    client, _service, _signer, _game_id, players = web
    header = auth(init_data(int(players[0]), "P0"))
    for odd in ODD_IDS:
        for method, path in (
            ("GET", f"/api/game/{odd}"),
            ("POST", f"/api/game/{odd}/action"),
            ("GET", f"/api/game/{odd}/events"),
        ):
            resp = await client.request(
                method, path, headers=header, json={"action": "roll", "version": 1}
            )
            assert resp.status == 404, (odd, method, path, resp.status)
    assert errors(caplog) == []


async def test_malformed_action_bodies_are_400_and_log_no_error(web, caplog):
    client, _service, _signer, game_id, players = web
    header = auth(init_data(int(players[0]), "P0"))
    state = await (await client.get(f"/api/game/{game_id}", headers=header)).json()
    version = state["version"]
    bodies = [
        b"[" * 1500 + b"]" * 1500,  # deeper than json.loads can go (about 1,000)
        b'{"action": "roll", "version": ' + b"[" * 1500 + b"]" * 1500 + b"}",
        b'{"action": "roll", "version": 1e999}',  # infinity
        b'{"action": "roll", "version": "\xd9\xa1\xd9\xa2"}',  # "١٢"
        b'{"action": "roll", "version": true}',
        b'{"action": "roll", "version": 9223372036854775808}',
        b'{"action": "roll", "version": -1}',
        b'{"action": ["roll"], "version": 1}',
        b'{"action": "move", "version": %d, "from": 6.0, "to": 1}' % version,
        b'{"action": "move", "version": %d, "from": 6, "to": 99999999999999999999}' % version,
        b'{"action": "move", "version": %d, "from": "6", "to": 1}' % version,
        b"[1, 2]",
        b'"roll"',
        b"\xff\xfe",
        b"not json",
        b"",
    ]
    for body in bodies:
        resp = await client.post(
            f"/api/game/{game_id}/action",
            data=body,
            headers={**header, "Content-Type": "application/json"},
        )
        assert resp.status == 400, (body[:40], resp.status)
    # A body of 200,000 brackets is over the size an action may have.
    resp = await client.post(
        f"/api/game/{game_id}/action",
        data=b"[" * 200_000,
        headers={**header, "Content-Type": "application/json"},
    )
    assert resp.status == 413
    assert errors(caplog) == []
    # A well-formed action still goes through.
    resp = await client.post(
        f"/api/game/{game_id}/action", json={"action": "roll", "version": version}, headers=header
    )
    assert (await resp.json())["ok"] is True


async def test_every_answer_carries_the_security_headers_and_no_server_version(web):
    client, _service, signer, game_id, _players = web
    watch = auth("watch " + signer.watch_token(game_id))
    answers = {
        200: await client.get("/"),
        403: await client.get(f"/api/game/{game_id}"),
        404: await client.get("/nowhere"),
        405: await client.delete("/api/layout"),
    }
    for _ in range(61):  # 60 API requests per 10 s per address
        last = await client.get(f"/api/game/{game_id}", headers=watch)
    answers[429] = last
    for status, resp in answers.items():
        assert resp.status == status
        assert resp.headers["X-Content-Type-Options"] == "nosniff", status
        assert "default-src 'none'" in resp.headers["Content-Security-Policy"], status
        assert resp.headers["Referrer-Policy"] == "no-referrer", status
        server = resp.headers.get("Server", "")
        assert "aiohttp" not in server, (status, server)
        assert "Python" not in server, (status, server)
        assert not any(ch.isdigit() for ch in server), (status, server)
    # The clock stands still in this test: a token comes back after 10 s / 60.
    assert answers[429].headers["Retry-After"] == "1"
