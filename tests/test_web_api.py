"""The web board's API through the real game service: who may see and act, actions
as button presses with the game's version, live updates, and the page's security headers."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.service import boards, presenter
from bot.service.limits import RateLimiter
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from bot.web import relay
from bot.web import state as web_state
from bot.web.auth import LinkSigner
from bot.web.hub import ChangeHub
from bot.web.server import WebBoard
from tests.factory import make_service
from tests.test_web_auth import TOKEN, signed
from tests.web_helpers import ALI, VELI, seats, set_bear_off, start_game

NOW = 1_800_000_000.0


def init_data(user_id: int, name: str, *, lang: str = "en", **extra: str) -> str:
    user = json.dumps({"id": user_id, "first_name": name, "language_code": lang})
    return "tma " + signed({"user": user, "auth_date": str(int(NOW) - 10), **extra})


@contextlib.asynccontextmanager
async def serving(tmp_path, *, render_images: bool = False):
    """The web board's server on a service with a game in the bear-off, seat 0 to act."""
    hub = ChangeHub()
    inner = SqliteStorage(str(tmp_path / "w.db"))
    await inner.open()
    storage = hub.watch(inner)
    service = make_service(
        storage,  # type: ignore[arg-type]
        clock=lambda: NOW,
        render_images=render_images,
        burst_actions=10**6,
    )
    signer = LinkSigner("test-secret")
    board = WebBoard(service, hub, signer, telegram_token=TOKEN, clock=lambda: NOW)
    client = TestClient(TestServer(board.app))
    await client.start_server()
    game_id = await start_game(service)
    await set_bear_off(service, game_id, turn=0)
    by_user = await seats(service, game_id)
    players = {seat: uid for uid, seat in by_user.items()}
    try:
        yield client, service, signer, game_id, players
    finally:
        await client.close()
        await inner.close()


@pytest.fixture
async def web(tmp_path):
    async with serving(tmp_path) as parts:
        yield parts


def as_stored(user_id: str, *, name: str | None = None) -> str:
    """Launch data of a player (ALI or VELI) with the name and language stored for them
    (``name``: another name)."""
    actor = ALI if user_id == ALI.user_id else VELI
    return init_data(int(user_id), name or actor.name, lang=actor.lang or "en")


def auth(value: str) -> dict[str, str]:
    return {"Authorization": value}


async def test_players_see_their_own_side_and_legal_moves_spectators_see_no_controls(web):
    client, _service, signer, game_id, players = web
    name = {"100": "Ali", "200": "Veli"}
    first = auth(init_data(int(players[0]), name[players[0]]))
    resp = await client.get(f"/api/game/{game_id}", headers=first)
    assert resp.status == 200
    state = await resp.json()
    assert state["seat"] == 0
    assert state["my_turn"] is True
    assert state["buttons"][0] == "roll"
    # The player's own checkers are at the bottom: on their own points 1 and 2.
    board = state["board"]
    assert board["points"][6] == {"color": board["bottom"], "count": 2}
    assert board["off"][board["bottom"]] == 11
    assert board["pips"][board["bottom"]] == 21
    other = await (
        await client.get(f"/api/game/{game_id}", headers=auth(init_data(int(players[1]), "x")))
    ).json()
    assert other["seat"] == 1
    assert other["my_turn"] is False
    assert other["buttons"] == []
    assert other["board"]["bottom"] != board["bottom"]
    watch = await (
        await client.get(
            f"/api/game/{game_id}", headers=auth("watch " + signer.watch_token(game_id))
        )
    ).json()
    assert watch["seat"] is None
    assert watch["buttons"] == []
    assert watch["legal"] == {}
    # A Telegram user who is not seated is a spectator when they came by the group's link.
    stranger = auth(init_data(999, "Zed", start_param=signer.group_start(game_id)))
    watching = await (await client.get(f"/api/game/{game_id}", headers=stranger)).json()
    assert watching["seat"] is None
    assert watching["buttons"] == []


async def test_forged_or_foreign_credentials_are_refused(web):
    client, _service, signer, game_id, _players = web
    for header in (
        "",
        "tma "
        + signed({"user": json.dumps({"id": 1}), "auth_date": str(int(NOW))}, token="1:other"),
        "watch " + signer.watch_token(game_id + 1),
        "link " + signer.seat_token(game_id + 1, 0, 1, now=NOW),
        "link " + LinkSigner("other").seat_token(game_id, 0, 1, now=NOW),
    ):
        resp = await client.get(f"/api/game/{game_id}", headers=auth(header))
        assert resp.status == 403, header


async def test_a_turn_played_through_the_api_goes_through_the_service(web):
    client, _service, _signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    answer = await (
        await client.post(
            f"/api/game/{game_id}/action",
            json={"action": "roll", "version": state["version"]},
            headers=me,
        )
    ).json()
    assert answer["ok"], answer
    state = answer["state"]
    assert state["board"]["dice"]
    assert state["legal"]
    # Every legal destination of every checker comes from core.
    source, dests = next(iter(state["legal"].items()))
    answer = await (
        await client.post(
            f"/api/game/{game_id}/action",
            json={
                "action": "move",
                "from": int(source),
                "to": dests[0],
                "version": state["version"],
            },
            headers=me,
        )
    ).json()
    assert answer["ok"], answer
    assert answer["state"]["version"] == state["version"] + 1
    assert "undo" in answer["state"]["buttons"]


async def test_an_old_version_or_the_other_seat_cannot_act(web):
    client, _service, signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    them = auth(init_data(int(players[1]), "P1"))
    spectator = auth("watch " + signer.watch_token(game_id))
    version = (await (await client.get(f"/api/game/{game_id}", headers=me)).json())["version"]
    # The seat not on turn gets the service's refusal; the game does not change.
    answer = await (
        await client.post(
            f"/api/game/{game_id}/action", json={"action": "roll", "version": version}, headers=them
        )
    ).json()
    assert not answer["ok"]
    assert answer["message"]
    assert answer["state"]["version"] == version
    resp = await client.post(
        f"/api/game/{game_id}/action",
        json={"action": "roll", "version": version},
        headers=spectator,
    )
    assert resp.status == 403
    # A stale version (a page that missed a change) is refused.
    answer = await (
        await client.post(
            f"/api/game/{game_id}/action",
            json={"action": "roll", "version": version - 1},
            headers=me,
        )
    ).json()
    assert not answer["ok"]
    assert answer["state"]["version"] == version


async def test_an_illegal_move_is_refused_with_core_s_reason(web):
    client, _service, _signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    version = (await (await client.get(f"/api/game/{game_id}", headers=me)).json())["version"]
    state = (
        await (
            await client.post(
                f"/api/game/{game_id}/action",
                json={"action": "roll", "version": version},
                headers=me,
            )
        ).json()
    )["state"]
    answer = await (
        await client.post(
            f"/api/game/{game_id}/action",
            json={"action": "move", "from": 2, "to": 9, "version": state["version"]},
            headers=me,
        )
    ).json()
    assert not answer["ok"]
    assert answer["message"]
    assert answer["state"]["version"] == state["version"]


async def test_signed_link_acts_for_its_seat_only(web):
    client, service, signer, game_id, _players = web
    record = await service.storage.get_game(game_id)
    link = auth("link " + signer.seat_token(game_id, 0, record.seats[0], now=NOW))
    state = await (await client.get(f"/api/game/{game_id}", headers=link)).json()
    assert state["seat"] == 0
    # The same signature with the other seat's user is not a link.
    forged = "link " + signer.seat_token(game_id, 0, record.seats[1], now=NOW)
    assert (await client.get(f"/api/game/{game_id}", headers=auth(forged))).status == 403


async def test_the_flood_guard_applies_to_web_actions(web):
    client, service, _signer, game_id, players = web
    service.limiter = RateLimiter(5, 60.0, service.clock)
    service.idle_limiter = RateLimiter(5, 60.0, service.clock)
    them = auth(init_data(int(players[1]), "P1"))
    messages = []
    for _ in range(7):  # the service allows 5 (refused) actions per minute here
        answer = await (
            await client.post(
                f"/api/game/{game_id}/action", json={"action": "undo", "version": 1}, headers=them
            )
        ).json()
        messages.append(answer["message"])
    assert "Not so fast" in messages[-1]


async def open_stream(client, game_id: int, header: str):
    """A page's live updates: the state answer's stream token, then the events."""
    state = await (await client.get(f"/api/game/{game_id}", headers=auth(header))).json()
    resp = await client.get(f"/api/game/{game_id}/events", params={"token": state["stream"]})
    assert resp.headers["Content-Type"].startswith("text/event-stream")

    async def next_state() -> dict:
        data = None
        while True:
            line = (await resp.content.readline()).decode().rstrip("\n")
            if line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and data is not None:
                return data

    return resp, next_state


async def test_every_open_page_gets_the_new_state_after_a_change(web):
    client, _service, signer, game_id, players = web
    me = as_stored(players[0])
    watcher, watched = await open_stream(client, game_id, "watch " + signer.watch_token(game_id))
    player, played = await open_stream(client, game_id, me)
    first = await asyncio.wait_for(watched(), 2)
    assert (await asyncio.wait_for(played(), 2))["seat"] == 0
    await client.post(
        f"/api/game/{game_id}/action",
        json={"action": "roll", "version": first["version"]},
        headers=auth(me),
    )
    second = await asyncio.wait_for(watched(), 1)
    assert second["version"] == first["version"] + 1
    assert second["board"]["dice"]
    assert second["seat"] is None
    assert second["buttons"] == []
    # The player's own page gets the player's view: the checkers' legal destinations.
    mine = await asyncio.wait_for(played(), 1)
    assert mine["version"] == second["version"]
    assert mine["legal"]
    watcher.close()
    player.close()


async def test_pages_get_an_action_s_result_without_reading_it_back(web, monkeypatch):
    """The pages of the worker that committed an action show its result as committed: the
    action reads its game once and the pages woken by it read nothing (each read was a
    database round trip per action); the answer is the same state as the actor's page's."""
    client, _service, signer, game_id, players = web
    me = as_stored(players[0])
    watcher, watched = await open_stream(client, game_id, "watch " + signer.watch_token(game_id))
    player, played = await open_stream(client, game_id, me)
    first = await asyncio.wait_for(watched(), 2)
    await asyncio.wait_for(played(), 2)
    reads = count_reads(monkeypatch)
    answer = await post(client, game_id, auth(me), first["version"], action="roll")
    assert answer["ok"]
    second = await asyncio.wait_for(watched(), 1)
    mine = await asyncio.wait_for(played(), 1)
    assert second["version"] == mine["version"] == answer["state"]["version"]
    assert mine == answer["state"]
    assert reads == ["game_with_people"]
    watcher.close()
    player.close()


def count_reads(monkeypatch) -> list[str]:
    """The storage's reads from now on, by name (each one a round trip on PostgreSQL)."""
    reads: list[str] = []
    for name in ("get_game", "game_with_people", "get_users", "get_or_create_user", "get_chat"):
        real = getattr(SqliteStorage, name)

        async def counted(self, *args, _real=real, _name=name, **kwargs):
            reads.append(_name)
            return await _real(self, *args, **kwargs)

        monkeypatch.setattr(SqliteStorage, name, counted)
    return reads


async def test_live_updates_need_a_stream_token_of_that_game(web):
    client, _service, signer, game_id, _players = web
    for token in ("", signer.stream_token(game_id + 1, None, "en"), "1..en.9999999999.00"):
        resp = await client.get(f"/api/game/{game_id}/events", params={"token": token})
        assert resp.status == 403
    # No credential in a URL: the stream token names a view, and cannot act.
    token = signer.stream_token(game_id, 0, "en")
    resp = await client.post(
        f"/api/game/{game_id}/action",
        json={"action": "roll", "version": 1},
        headers=auth("stream " + token),
    )
    assert resp.status == 403


async def test_the_address_limit_sees_through_a_local_proxy(web):
    client, _service, signer, game_id, _players = web
    watch = auth("watch " + signer.watch_token(game_id))
    statuses = []
    for n in range(70):  # 60 requests per 10 s per address
        headers = {**watch, "X-Forwarded-For": f"198.51.100.{n % 2}"}
        statuses.append((await client.get(f"/api/game/{game_id}", headers=headers)).status)
    assert set(statuses) == {200}  # two clients behind the proxy, 35 each
    for _ in range(30):
        headers = {**watch, "X-Forwarded-For": "198.51.100.0"}
        statuses.append((await client.get(f"/api/game/{game_id}", headers=headers)).status)
    assert statuses[-1] == 429


async def test_page_is_served_with_a_strict_content_security_policy(web):
    client, *_ = web
    resp = await client.get("/")
    assert resp.status == 200
    csp = resp.headers["Content-Security-Policy"]
    assert "script-src 'self' https://telegram.org" in csp
    assert "unsafe-inline" not in csp
    html = await resp.text()
    assert "<script>" not in html
    assert "telegram.org" not in html  # Telegram's script is loaded only inside Telegram
    assert "onclick" not in html
    for asset in ("/static/board.js", "/static/draw.js", "/static/board.css"):
        assert (await client.get(asset)).status == 200
    assert (await client.get("/static/../server.py")).status == 404
    layout = await (await client.get("/api/layout")).json()
    for home in ("right", "left"):
        assert set(layout["homes"][home]["points"]) == {str(p) for p in range(1, 25)}
    texts = await (await client.get("/api/texts", params={"lang": "tr"})).json()
    assert texts["lang"] == "tr"
    assert texts["texts"]["roll"]


async def play_a_turn(
    client,
    game_id: int,
    me: dict[str, str],
    state: dict,
    each_step: Callable[[], None] | None = None,
) -> dict:
    """One turn through the API from ``state``: roll if asked, the first legal checker moved
    until none is left (``each_step`` called before each action after the roll), Confirm if
    the turn does not end by itself. The state after it."""

    async def act(**body) -> dict:
        answer = await client.post(
            f"/api/game/{game_id}/action", json={**body, "version": state["version"]}, headers=me
        )
        data = await answer.json()
        assert data["ok"], data.get("message")
        return data["state"]

    if "roll" in state["buttons"]:
        state = await act(action="roll")
    while state["legal"]:
        if each_step is not None:
            each_step()
        source, dests = next(iter(state["legal"].items()))
        state = await act(action="move", **{"from": int(source), "to": dests[0]})
    if "confirm" in state["buttons"]:
        if each_step is not None:
            each_step()
        state = await act(action="confirm")
    return state


async def test_the_chat_board_is_edited_after_each_finished_turn_not_each_checker(web):
    client, _service, _signer, game_id, players = web

    delivered: list[tuple[str, list]] = []
    arrived = asyncio.Queue()

    async def deliver(views, chat_id):
        delivered.append((chat_id, views))
        await arrived.put(None)

    relay.register("telegram", deliver)
    try:
        me = auth(init_data(int(players[0]), "P0"))
        state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
        assert "roll" in state["buttons"]

        def chat_left_alone() -> None:  # the roll and the steps of the turn
            assert not delivered

        await play_a_turn(client, game_id, me, state, each_step=chat_left_alone)
        await asyncio.wait_for(arrived.get(), 2)
        assert len(delivered) == 1
        chat_id, views = delivered[-1]
        assert chat_id == "-1001"
        assert any(v.edit and v.game_id == game_id for v in views)
    finally:
        relay.unregister("telegram")


async def test_a_web_action_that_does_not_end_the_turn_draws_no_chat_picture(tmp_path, monkeypatch):
    """The chat's board follows the web only at each turn's end: its picture is drawn then,
    not at the roll nor at each checker moved on the page (it cost about a third of a web
    action)."""
    drawn: list[str] = []
    real = boards.render_picture

    def counted(view, fmt):
        drawn.append(fmt)
        return real(view, fmt)

    monkeypatch.setattr(boards, "render_picture", counted)
    arrived: asyncio.Queue = asyncio.Queue()

    async def deliver(views, chat_id):
        await arrived.put([v for v in views if v.image is not None])

    relay.register("telegram", deliver)
    try:
        async with serving(tmp_path, render_images=True) as (client, _s, _k, game_id, players):
            me = auth(init_data(int(players[0]), "P0"))
            state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
            version = state["version"]
            drawn.clear()  # the game's opening
            state = (await post(client, game_id, me, version, action="roll"))["state"]
            assert not drawn
            while len(state["legal"]) and "confirm" not in state["buttons"]:
                source, dests = next(iter(state["legal"].items()))
                body = {"from": int(source), "to": dests[0]}
                answer = await post(client, game_id, me, state["version"], action="move", **body)
                state = answer["state"]
                if state["legal"]:  # the turn goes on: a checker moved on the page
                    assert not drawn
            if "confirm" in state["buttons"]:
                await post(client, game_id, me, state["version"], action="confirm")
            assert len(await asyncio.wait_for(arrived.get(), 2)) == 1  # the turn's end
            assert len(drawn) == 1
            assert arrived.empty()
    finally:
        relay.unregister("telegram")


async def test_web_steps_within_a_turn_lay_out_no_chat_keypad(tmp_path, monkeypatch):
    """The chat's keypad (every move of the turn, labelled) is laid out only for a board
    that is read: not at the roll nor at each checker moved on the page, whose chat board
    is not edited then, nor for the page's own buttons; the board sent at the turn's end
    still has its buttons."""
    laid_out: list[int] = []
    real = presenter.move_rows

    def counted(*args, **kwargs):
        laid_out.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(presenter, "move_rows", counted)
    arrived: asyncio.Queue = asyncio.Queue()

    async def deliver(views, chat_id):
        await arrived.put([v.buttons for v in views if v.game_id is not None])

    relay.register("telegram", deliver)
    try:
        async with serving(tmp_path) as (client, _s, _k, game_id, players):
            me = auth(init_data(int(players[0]), "P0"))
            state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
            laid_out.clear()
            state = (await post(client, game_id, me, state["version"], action="roll"))["state"]
            assert state["legal"]
            assert not laid_out
            while state["legal"] and "confirm" not in state["buttons"]:
                source, dests = next(iter(state["legal"].items()))
                body = {"from": int(source), "to": dests[0]}
                answer = await post(client, game_id, me, state["version"], action="move", **body)
                state = answer["state"]
                if state["legal"]:  # the turn goes on
                    assert not laid_out
            if "confirm" in state["buttons"]:
                await post(client, game_id, me, state["version"], action="confirm")
            sent = await asyncio.wait_for(arrived.get(), 2)  # the turn's end
            assert sent
            assert all(rows for rows in sent)  # its board has its buttons
    finally:
        relay.unregister("telegram")


async def test_a_move_by_its_two_points_takes_its_steps_from_the_state_shown(web, monkeypatch):
    """A move the page names by its two points is made with the steps of the state the page
    was given (worked out once): an action works out the moves of its new state only."""
    client, _service, _signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    state = (await post(client, game_id, me, state["version"], action="roll"))["state"]
    looked_up: list[int] = []
    walked: list[int] = []
    real_moves, real_walk = web_state.checker_moves, web_state.turn_walk

    def looked(*args, **kwargs):
        looked_up.append(1)
        return real_moves(*args, **kwargs)

    def walking(*args, **kwargs):
        walked.append(1)
        return real_walk(*args, **kwargs)

    monkeypatch.setattr(web_state, "checker_moves", looked)
    monkeypatch.setattr(web_state, "turn_walk", walking)
    source, moves = next(iter(state["moves"].items()))
    body = {"from": int(source), "to": moves[-1]["to"]}
    answer = await post(client, game_id, me, state["version"], action="move", **body)
    assert answer["ok"], answer
    assert answer["state"]["board"]["points"] != state["board"]["points"]
    assert not looked_up
    assert len(walked) == (1 if answer["state"]["my_turn"] else 0)


async def test_an_action_reads_its_game_players_and_chat_in_one_read(web, monkeypatch):
    """An action reads the game, its players and its chat once, together: to check who
    acts, and the service reuses them; the answer is the action's own result, not read back
    (each read is a round trip to the database: there were five an action)."""
    client, service, _signer, game_id, players = web
    me = as_stored(players[0])
    state = await (await client.get(f"/api/game/{game_id}", headers=auth(me))).json()
    reads = count_reads(monkeypatch)
    answer = await post(client, game_id, auth(me), state["version"], action="roll")
    assert answer["ok"]
    assert reads == ["game_with_people"]
    source, moves = next(iter(answer["state"]["moves"].items()))
    reads.clear()
    body = {"from": int(source), "to": moves[0]["to"]}
    moved = await post(client, game_id, auth(me), answer["state"]["version"], action="move", **body)
    assert moved["ok"]
    assert reads == ["game_with_people"]
    # A player whose name changed since is written anew (and read again as written).
    reads.clear()
    renamed = as_stored(players[0], name="Ali Baba")
    undone = await post(client, game_id, auth(renamed), moved["state"]["version"], action="undo")
    assert undone["ok"]
    assert "get_or_create_user" in reads
    assert (await service.storage.find_user("telegram", players[0])).name == "Ali Baba"


async def post(client, game_id: int, header: dict, version: int, **body) -> dict:
    resp = await client.post(
        f"/api/game/{game_id}/action", json={**body, "version": version}, headers=header
    )
    return await resp.json()


async def test_double_take_and_resign_from_the_page(web):
    client, _service, _signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    them = auth(init_data(int(players[1]), "P1"))
    state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    assert "double" in state["buttons"]  # rules T-8: the cube is centred, seat 0 to roll
    answer = await post(client, game_id, me, state["version"], action="double")
    assert answer["ok"], answer
    other = await (await client.get(f"/api/game/{game_id}", headers=them)).json()
    assert other["buttons"] == ["take", "pass"]
    answer = await post(client, game_id, them, other["version"], action="take")
    assert answer["ok"], answer
    assert answer["state"]["board"]["cube"] == 2
    assert answer["state"]["board"]["cube_owner"] == answer["state"]["board"]["bottom"]
    # The doubler's page says the double was taken (the chat's caption says the same).
    mine = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    assert len(mine["news"]) == 1
    assert mine["news"][0].endswith(" took the double: the cube is at 2.")
    assert mine["over"] is False
    # Resigning offers the game; declined, the offerer's page says so and play goes on.
    answer = await post(client, game_id, me, answer["state"]["version"], action="resign")
    assert answer["ok"], answer
    other = await (await client.get(f"/api/game/{game_id}", headers=them)).json()
    assert other["buttons"] == ["accept_resign", "decline_resign"]
    answer = await post(client, game_id, them, other["version"], action="decline_resign")
    assert answer["ok"], answer
    mine = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    assert mine["news"][-1].endswith(" declined the resignation: play goes on.")
    assert mine["can_resign"] is True
    # Offered again and accepted: the game is over on both pages.
    answer = await post(client, game_id, me, mine["version"], action="resign")
    assert answer["ok"], answer
    other = await (await client.get(f"/api/game/{game_id}", headers=them)).json()
    answer = await post(client, game_id, them, other["version"], action="accept_resign")
    assert answer["ok"], answer
    assert answer["state"]["status"] == "finished"
    assert answer["state"]["can_resign"] is False
    assert answer["state"]["over"] is True


async def test_the_last_play_is_shown_in_each_viewer_s_numbering(web):
    client, _service, _signer, game_id, players = web
    me = auth(init_data(int(players[0]), "P0"))
    them = auth(init_data(int(players[1]), "P1"))
    state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
    state = (await post(client, game_id, me, state["version"], action="roll"))["state"]
    moved = []
    while state["legal"]:
        source = max(int(s) for s in state["legal"])
        # One die's step (the other targets are runs over several dice).
        dest = min(m["to"] for m in state["moves"][str(source)] if len(m["steps"]) == 1)
        moved.append((source, dest))
        state = (
            await post(
                client, game_id, me, state["version"], action="move", to=dest, **{"from": source}
            )
        )["state"]
    if "confirm" in state["buttons"]:
        state = (await post(client, game_id, me, state["version"], action="confirm"))["state"]
    mine = state["board"]["last_play"]
    assert sorted((s["from"], s["to"]) for s in mine) == sorted(moved)
    theirs = (await (await client.get(f"/api/game/{game_id}", headers=them)).json())["board"]
    # Tavla: my point p is the opponent's point 25 - p; borne off stays off.
    assert sorted((s["from"], s["to"]) for s in theirs["last_play"]) == sorted(
        (25 - a, 25 - b if b else 0) for a, b in moved
    )


async def test_uzun_tavla_head_is_each_player_s_24_point(web):
    client, service, _signer, _game_id, _players = web
    uzun = await start_game(service, "uzun")
    by_user = await seats(service, uzun)
    first = {seat: uid for uid, seat in by_user.items()}
    for seat in (0, 1):
        header = auth(init_data(int(first[seat]), "P"))
        state = await (await client.get(f"/api/game/{uzun}", headers=header)).json()
        board = state["board"]
        # The starter's first roll is made (and played, when forced) by itself: at most one
        # checker has left a head yet.
        assert board["points"][24]["color"] == board["bottom"]
        assert board["points"][24]["count"] >= 14
        opponent_head = [
            p
            for p in range(1, 25)
            if board["points"][p]
            and board["points"][p]["color"] == board["top"]
            and board["points"][p]["count"] >= 14
        ]
        assert opponent_head == [12]  # rules U-1: the heads face each other across the board


async def test_the_chat_board_of_a_game_followed_on_both_pages_waits_for_nobody(web):
    """The chat's board after a turn played on the web goes to the chat marked followed on
    the page (relay.ON_PAGE: nobody waits for it in the chat, so the chat's adapter sends it
    after the boards people there wait for) only while both players have the game's page
    open: not while one follows it in the chat alone, nor at the game's end."""
    client, service, _signer, game_id, players = web
    delivered: list[tuple[list, bool]] = []
    arrived: asyncio.Queue[None] = asyncio.Queue()

    async def deliver(views, _chat_id):
        delivered.append((views, relay.ON_PAGE.get()))
        await arrived.put(None)

    headers = {seat: init_data(int(players[seat]), f"P{seat}") for seat in (0, 1)}

    async def play_turn(seat: int) -> dict:
        me = auth(headers[seat])
        state = await (await client.get(f"/api/game/{game_id}", headers=me)).json()
        assert state["my_turn"]
        state = await play_a_turn(client, game_id, me, state)
        await asyncio.wait_for(arrived.get(), 2)
        return state

    async def open_page(seat: int) -> None:
        page, first_state = await open_stream(client, game_id, headers[seat])
        pages.append(page)
        await asyncio.wait_for(first_state(), 2)  # the page follows the game

    relay.register("telegram", deliver)
    pages = []
    try:
        await open_page(0)
        await play_turn(0)  # the other player has no page open: they may watch the chat
        assert delivered[-1][1] is False
        await open_page(1)
        seat, followed = 1, 0
        while True:
            await play_turn(seat)
            record = await service.game_record(game_id)
            if record.status is not GameStatus.ACTIVE:
                break
            assert delivered[-1][1] is True  # both follow it on their pages
            followed += 1
            seat = 1 - seat
        assert followed
        assert delivered[-1][1] is False  # the end reaches the chat as any press's would
        assert any(v.game_id == game_id for v in delivered[-1][0])
    finally:
        for page in pages:
            page.close()
        relay.unregister("telegram")


async def test_a_stopping_server_finishes_the_actions_under_way_before_it_returns(tmp_path):
    """SIGTERM while a move is being made: the page's connection closes with the server, but
    the move is made and saved before the server returns (and the bot closes its database)."""
    from bot.web.run import serve
    from tests.drivers import free_port

    hub = ChangeHub()
    inner = SqliteStorage(str(tmp_path / "w.db"))
    await inner.open()
    service = make_service(hub.watch(inner), clock=lambda: NOW, burst_actions=10**6)  # type: ignore[arg-type]
    board = WebBoard(service, hub, LinkSigner("s"), telegram_token=TOKEN, clock=lambda: NOW)
    game_id = await start_game(service)
    await set_bear_off(service, game_id, turn=0)
    seat0 = {seat: uid for uid, seat in (await seats(service, game_id)).items()}[0]
    version = (await service.storage.get_game(game_id)).version
    pressing, release, made = asyncio.Event(), asyncio.Event(), []
    real_press = service.press

    async def slow_press(*args, **kwargs):
        pressing.set()
        await release.wait()
        views = await real_press(*args, **kwargs)
        made.append(True)
        return views

    service.press = slow_press  # type: ignore[method-assign]
    port, stop = free_port(), asyncio.Event()
    serving_task = asyncio.create_task(serve(board, "127.0.0.1", port, stop))
    order: list[str] = []
    serving_task.add_done_callback(lambda _: order.append("served" if made else "served first"))
    try:
        for _ in range(500):  # until it listens
            with contextlib.suppress(OSError):
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            await asyncio.sleep(0.02)
        async with aiohttp.ClientSession() as session:
            request = asyncio.create_task(
                session.post(
                    f"http://127.0.0.1:{port}/api/game/{game_id}/action",
                    json={"action": "roll", "version": version},
                    headers=auth(init_data(int(seat0), "P0")),
                )
            )
            await asyncio.wait_for(pressing.wait(), 10)
            stop.set()
            with contextlib.suppress(aiohttp.ClientError):
                await asyncio.wait_for(request, 10)  # the server closed the connection
            await asyncio.wait({serving_task}, timeout=1)  # returned now, if it does not wait
            release.set()
            await asyncio.wait_for(serving_task, 10)
        assert order == ["served"]
        assert (await inner.get_game(game_id)).version > version  # the roll was saved
    finally:
        release.set()
        stop.set()
        await asyncio.wait_for(serving_task, 10)
        await inner.close()
