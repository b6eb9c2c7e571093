"""The web board in a real browser: Debian's Chromium driven by Playwright.

Two player pages and a spectator page play a short bear-off game through the real server
and game service, moving checkers by dragging and by tapping. An illegal drop snaps back with
core's reason, a reload in the middle of a turn resumes it, and the spectator page follows
every change without any controls. Skipped when Chromium or Playwright is not installed
(``.ci/run`` installs both).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import time
from pathlib import Path
from urllib.parse import quote, urlencode

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from bot.storage.base import PlayerPrefs
from bot.storage.sqlite import SqliteStorage
from bot.web.auth import LinkSigner
from bot.web.guard import WebLimits
from bot.web.hub import ChangeHub
from bot.web.links import seat_url, watch_url
from bot.web.server import WebBoard
from bot.web.state import game_state
from tests.factory import make_service
from tests.test_web_auth import signed
from tests.web_helpers import ALI, GROUP, seats, set_bear_off, set_position, start_game

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM) or importlib.util.find_spec("playwright") is None,
    reason="needs Debian's chromium and playwright (pip install playwright)",
)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 15_000  # generous for a loaded CI machine; updates normally arrive in milliseconds
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
#: A stand-in for Telegram's telegram-web-app.js (which cannot be fetched offline), served at
#: its real address: it reads the launch data from the fragment as the real one does, gives
#: dark theme colours and records the page's calls.
TELEGRAM_STUB = """
(function () {
  const hash = new URLSearchParams(location.hash.slice(1));
  const calls = (window.__telegram = { haptics: [], ready: 0, expand: 0, handlers: {} });
  window.Telegram = { WebApp: {
    initData: hash.get("tgWebAppData") || "",
    colorScheme: "dark",
    themeParams: { bg_color: "#101820", text_color: "#eeeeee", hint_color: "#8899aa",
      button_color: "#3390ec", button_text_color: "#ffffff", secondary_bg_color: "#1c2733" },
    ready() { calls.ready++; },
    expand() { calls.expand++; },
    onEvent(name, handler) { calls.handlers[name] = handler; },
    showConfirm(text, answer) { answer(true); },
    HapticFeedback: {
      impactOccurred(style) { calls.haptics.push("impact:" + style); },
      notificationOccurred(kind) { calls.haptics.push("notification:" + kind); },
      selectionChanged() { calls.haptics.push("selection"); },
    },
  } };
})();
"""
TOKEN = "4242:browser-test-bot"


@pytest.fixture
async def served(tmp_path):
    async with serving(tmp_path) as value:
        yield value[1:]


@contextlib.asynccontextmanager
async def serving(tmp_path, limits: WebLimits | None = None):
    """The board served on loopback, with a started game in a bear-off:
    ``(board, service, signer, base URL, game id)``."""
    hub = ChangeHub()
    inner = SqliteStorage(str(tmp_path / "b.db"))
    await inner.open()
    service = make_service(
        hub.watch(inner),  # type: ignore[arg-type]
        first_seed=7,
        render_images=False,
    )
    signer = LinkSigner("browser-test")
    board = WebBoard(service, hub, signer, telegram_token=TOKEN, limits=limits)
    server = TestServer(board.app, host="127.0.0.1")
    await server.start_server()
    game_id = await start_game(service)
    await set_bear_off(service, game_id, turn=0)
    try:
        yield board, service, signer, str(server.make_url("")).rstrip("/"), game_id
    finally:
        await server.close()
        await inner.close()


async def wait_version(page, version: int) -> None:
    await page.wait_for_function(
        "v => Number(document.body.dataset.version) >= v", arg=version, timeout=WAIT_MS
    )


async def walk_step(page, state: dict, walked: dict, source: int, dest: int) -> int | None:
    """After ``source`` to ``dest`` was tapped or dropped on ``page``, whose server state is
    ``state``: wait until the page shows it, and return the walk's node it reached (None: the
    move was sent, and its new version is shown). ``walked``: the page's node and steps so
    far (updated)."""
    node = state["walk"][walked["node"]]
    way = next(w for w in node["moves"][str(source)] if w["to"] == dest)
    if way["next"] is None:
        await wait_version(page, state["version"] + 1)
        walked.update(node=0, steps=0)
        return None
    walked.update(node=way["next"], steps=walked["steps"] + len(way["steps"]))
    await page.locator(f'body[data-walked="{walked["steps"]}"]').wait_for(timeout=WAIT_MS)
    return walked["node"]


def walk_legal(state: dict, walked: dict) -> dict[str, list[int]]:
    """The destinations of each checker on the board the page has walked to."""
    if not walked["node"]:
        return state["legal"]
    moves = state["walk"][walked["node"]]["moves"]
    return {s: list(dict.fromkeys(w["to"] for w in ws)) for s, ws in moves.items()}


async def centre(page, selector: str) -> tuple[float, float]:
    target = page.locator(selector).first
    # The board is redrawn when a change arrives; wait for the new drawing's element.
    await target.wait_for(state="visible", timeout=WAIT_MS)
    box = await target.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def drag(page, source: int, dest: int) -> None:
    x0, y0 = await centre(page, f'[data-top="{source}"]')
    x1, y1 = await centre(page, f'[data-point="{dest}"]')
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2 - 40, steps=6)
    await page.mouse.move(x1, y1, steps=6)
    await page.mouse.up()


async def tap(page, source: int, dest: int) -> None:
    """Two taps with a finger, as on a phone: the checker, then its highlighted point."""
    await page.touchscreen.tap(*await centre(page, f'[data-top="{source}"]'))
    await page.locator(f'[data-target="{dest}"]').first.wait_for(timeout=WAIT_MS)
    await page.touchscreen.tap(*await centre(page, f'[data-point="{dest}"]'))


async def test_two_players_and_a_spectator_play_a_bear_off_game(served, tmp_path):
    from playwright.async_api import async_playwright

    service, signer, base, game_id = served
    record = await service.storage.get_game(game_id)
    for user_id in record.seats:  # both confirm every move on the page (/settings)
        await service.storage.set_user_prefs(user_id, PlayerPrefs(auto_confirm="never"))
    urls = [seat_url(base, signer, game_id, s, record.seats[s]) for s in (0, 1)]
    urls.append(watch_url(base, signer, game_id) + "&lang=en")
    errors: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = []
        # The second player holds a small phone, 360 pixels wide.
        for url, viewport in zip(urls, (PHONE, SMALL_PHONE, PHONE), strict=True):
            context = await browser.new_context(
                viewport=viewport, device_scale_factor=2, has_touch=True
            )
            page = await context.new_page()
            page.set_default_timeout(WAIT_MS)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(url)
            await page.locator("body.ready").wait_for(timeout=WAIT_MS)
            pages.append(page)
        players, spectator = pages[:2], pages[2]

        async def synced() -> dict:
            fresh = await service.storage.get_game(game_id)
            for page in pages:
                await wait_version(page, fresh.version)
            # The spectator follows every change and never has a control.
            assert await spectator.locator("#controls button").count() == 0
            assert await spectator.locator("#resign").is_hidden()
            return fresh

        moves = drops = reloads = 0
        shots: dict[int, Path] = {}
        walked = {"node": 0, "steps": 0}  # the turn walked on the page (not yet sent)
        fresh = record
        for _ in range(300):
            if not walked["node"]:  # else the server's state is the one walked from
                fresh = await synced()
            if fresh.status.value != "active":
                break
            state = game_state(fresh, None, "en")
            seat = 0 if game_state(fresh, 0, "en")["my_turn"] else 1
            mine = game_state(fresh, seat, "en")
            page = players[seat]
            other = players[1 - seat]
            assert await other.locator("#controls button").count() == 0
            legal = walk_legal(mine, walked)
            if "roll" in mine["buttons"]:
                await page.locator('[data-action="roll"]').click()
            elif legal:
                source = max(int(s) for s in legal)
                dests = legal[str(source)]
                dest = 0 if 0 in dests else dests[0]
                if drops == 0 and not walked["node"]:
                    # A drop where core forbids it: the checker goes back, with the reason.
                    await drag(page, source, 12)
                    await page.locator("#message.error").wait_for(timeout=WAIT_MS)
                    assert await page.locator("#message").inner_text()
                    assert await page.locator(".lifted").count() == 0
                    assert (await service.storage.get_game(game_id)).version == fresh.version
                    drops += 1
                    continue
                used = mine["board"]["dice_used"]
                if reloads == 0 and walked["node"]:
                    # A reload between two checkers of a turn shows the server's board: the
                    # checkers moved on the page only were not sent, the dice are unused again.
                    await page.reload()
                    await page.locator("body.ready").wait_for(timeout=WAIT_MS)
                    await wait_version(page, fresh.version)
                    await page.locator('body[data-walked="0"]').wait_for(timeout=WAIT_MS)
                    assert await page.locator(".die.used").count() == sum(used)
                    walked.update(node=0, steps=0)
                    reloads += 1
                    continue
                if moves % 2 == 0:
                    await drag(page, source, dest)
                else:
                    await tap(page, source, dest)
                moves += 1
                if await walk_step(page, mine, walked, source, dest) is not None:
                    continue  # moved on the page: no action yet
                continue
            elif "confirm" in mine["buttons"]:
                if seat not in shots:
                    # One-handed: Undo and Confirm are thumb-sized and on screen, no scrolling.
                    height = page.viewport_size["height"]
                    for name in ("undo", "confirm"):
                        box = await page.locator(f'[data-action="{name}"]').bounding_box()
                        assert box["height"] >= 44
                        assert box["y"] >= 0
                        assert box["y"] + box["height"] <= height
                    shots[seat] = tmp_path / f"phone-{page.viewport_size['width']}.png"
                    await page.screenshot(path=str(shots[seat]))
                    target = os.environ.get("TAVLA_WEB_SCREENSHOTS")  # a folder, to look at them
                    if target:
                        Path(target, shots[seat].name).write_bytes(shots[seat].read_bytes())
                await page.locator('[data-action="confirm"]').click()
            else:
                raise AssertionError(f"nothing to do for seat {seat}: {state}")
            await wait_version(page, fresh.version + 1)  # the action went through
        else:
            raise AssertionError("the game did not end")
        assert moves >= 2, "both drag and tap were used"
        assert drops == 1
        assert reloads == 1
        assert len(shots) == 2  # both phones, each ready to confirm
        final = await service.storage.get_game(game_id)
        for seat, page in zip((0, 1, None), pages, strict=True):
            # Every page ends on the result, in its reader's language (Ali reads Turkish).
            lang = await page.evaluate("document.documentElement.lang")
            expected = game_state(final, seat, lang)["result"]
            assert await page.locator("#caption").inner_text() == expected
            # The players are offered a rematch and the analysis, as in the chat.
            assert await page.locator("#controls button").count() == (0 if seat is None else 2)
        assert "wins" in await spectator.locator("#caption").inner_text()
        await browser.close()
    assert errors == []


async def test_inside_telegram_without_its_script_the_launch_data_in_the_fragment_is_used(
    served,
):
    """Telegram puts the launch data in the URL fragment; offline (no telegram-web-app.js)
    the page reads it from there: the seated player gets controls, in Telegram's colours."""
    from playwright.async_api import async_playwright

    service, signer, base, game_id = served
    first = {seat: uid for uid, seat in (await seats(service, game_id)).items()}[0]
    theme = json.dumps({"bg_color": "#17212b", "text_color": "#f5f5f5", "button_color": "#5288c1"})
    pages = {}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # The player by the private chat's button; a group member by the group's direct link
        # (its signed start_param names the game).
        for who, user_id, start in (
            ("player", first, None),
            ("stranger", "999", signer.group_start(game_id)),
        ):
            user = json.dumps({"id": int(user_id), "first_name": who, "language_code": "ru"})
            fields = {"user": user, "auth_date": str(int(time.time()))}
            if start:
                fields["start_param"] = start
            init = signed(fields, token=TOKEN)
            launch = {
                "tgWebAppData": init,
                "tgWebAppVersion": "7.0",
                "tgWebAppPlatform": "android",
                "tgWebAppThemeParams": theme,
            }
            if start:
                launch["tgWebAppStartParam"] = start
            fragment = urlencode(launch, quote_via=quote)
            context = await browser.new_context(viewport=PHONE)
            # Offline, as here: Telegram's script cannot load (refused at once, not waited for).
            await context.route(TELEGRAM_SCRIPT, lambda route: route.abort())
            page = await context.new_page()
            page.set_default_timeout(WAIT_MS)
            query = "" if start else f"?game={game_id}"
            await page.goto(f"{base}/{query}#{fragment}")
            await page.locator("body.ready").wait_for()
            pages[who] = page
        player = pages["player"]
        assert await player.locator('[data-action="roll"]').count() == 1
        assert await player.evaluate("document.body.classList.contains('telegram')")
        assert await player.evaluate("document.body.dataset.theme") == "dark"
        assert await player.evaluate("document.documentElement.lang") == "ru"
        assert await player.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(23, 33, 43)"
        )
        stranger = pages["stranger"]
        assert await stranger.evaluate("document.body.classList.contains('spectator')")
        assert await stranger.locator("#controls button").count() == 0
        await browser.close()


def launch_fragment(user_id: str, name: str, lang: str, theme: str | None = None) -> str:
    """The URL fragment Telegram gives a Mini App: signed launch data and the client's facts."""
    user = json.dumps({"id": int(user_id), "first_name": name, "language_code": lang})
    fields = {
        "tgWebAppData": signed({"user": user, "auth_date": str(int(time.time()))}, token=TOKEN),
        "tgWebAppVersion": "7.0",
        "tgWebAppPlatform": "android",
    }
    if theme:
        fields["tgWebAppThemeParams"] = theme
    return urlencode(fields, quote_via=quote)


async def test_inside_telegram_its_script_gives_colours_and_haptics_in_the_player_s_style(
    served,
):
    """Telegram's own script, served at its real address under the page's CSP: the page
    takes the theme colours from it (and follows a switch to light), calls haptic feedback
    on a move, and draws the board as the player chose in /settings (contrast theme, home on
    the left); a spectator gets the default board."""
    from playwright.async_api import async_playwright

    service, signer, base, game_id = served
    record = await service.storage.get_game(game_id)
    first = {seat: uid for uid, seat in (await seats(service, game_id)).items()}[0]
    await service.storage.set_user_prefs(
        record.seats[0], PlayerPrefs(theme="contrast", home="left")
    )
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE, has_touch=True)
        fetched = []

        async def telegram_script(route):
            fetched.append(route.request.url)
            await route.fulfill(body=TELEGRAM_STUB, content_type="text/javascript")

        await context.route(TELEGRAM_SCRIPT, telegram_script)
        errors: list[str] = []
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        await page.goto(f"{base}/?game={game_id}#{launch_fragment(first, 'Ali', 'en')}")
        await page.locator("body.ready").wait_for()
        assert fetched == [TELEGRAM_SCRIPT]  # allowed by the Content-Security-Policy
        assert await page.evaluate("window.__telegram.ready") == 1
        assert await page.evaluate("window.__telegram.expand") == 1
        # Telegram's colours around the board, the player's own theme on it.
        assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(16, 24, 32)"
        )
        assert await page.evaluate("document.body.classList.contains('dark')")
        assert await page.evaluate("document.body.dataset.theme") == "contrast"
        # Home on the left: the player's point 1 and their tray on the left of the board.
        board = await page.locator("#board").bounding_box()
        middle = board["x"] + board["width"] / 2
        assert (await centre(page, '[data-point="1"]'))[0] < middle
        assert (await centre(page, '[data-point="12"]'))[0] > middle
        assert (await centre(page, '[data-point="0"]'))[0] < middle
        # A roll, then a checker moved by two taps: each gives a light haptic touch.
        await page.locator('[data-action="roll"]').click()
        await wait_version(page, record.version + 1)
        fresh = await service.storage.get_game(game_id)
        legal = game_state(fresh, 0, "en")["legal"]
        source = max(int(p) for p in legal)
        await tap(page, source, legal[str(source)][0])
        await wait_version(page, fresh.version + 1)
        # Roll, pick and move: three light touches (the move's may follow the new version,
        # which can arrive over the live stream before the action's own answer).
        await page.wait_for_function(
            "() => window.__telegram.haptics.filter(h => h === 'impact:light').length >= 3",
            timeout=WAIT_MS,
        )
        haptics = await page.evaluate("window.__telegram.haptics")
        assert haptics.count("impact:light") >= 3, haptics
        # Telegram switches to its light theme: the page follows.
        await page.evaluate(
            """() => {
              const tg = window.Telegram.WebApp;
              tg.colorScheme = "light";
              tg.themeParams = { bg_color: "#ffffff", text_color: "#000000" };
              window.__telegram.handlers.themeChanged();
            }"""
        )
        assert await page.evaluate("getComputedStyle(document.body).backgroundColor") == (
            "rgb(255, 255, 255)"
        )
        assert await page.evaluate("document.body.classList.contains('light')")
        # A spectator (a watch link, outside Telegram) gets the default board.
        watcher = await context.new_page()
        await watcher.goto(watch_url(base, signer, game_id) + "&lang=en")
        await watcher.locator("body.ready").wait_for()
        assert await watcher.evaluate("document.body.dataset.home") == "right"
        assert await watcher.evaluate("document.body.dataset.theme") == "classic"
        await browser.close()
    assert errors == []


START_SIDE = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


async def test_a_double_tap_on_confirm_does_not_press_what_the_computer_s_answer_brings(served):
    """Against the computer the answer comes within the Confirm request, and its buttons
    (Roll and Double, or Take and Pass) appear where Confirm was: the second tap of a
    double tap must not double or pass. The page tells what the computer did."""
    from playwright.async_api import async_playwright

    service, signer, base, _ = served
    views = await service.command(ALI, GROUP, "bot", "tavla 5")
    game_id = next(v.game_id for v in views if v.game_id is not None)
    record = await service.storage.get_game(game_id)
    human = record.seats[0]
    await service.storage.set_user_prefs(human, PlayerPrefs(auto_confirm="never"))
    await set_position(service, game_id, [START_SIDE, START_SIDE], turn=0, dice=(6, 5))
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE, has_touch=True)
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        await page.goto(seat_url(base, signer, game_id, 0, human) + "&lang=en")
        await page.locator("body.ready").wait_for()
        board_y = (await page.locator("#board").bounding_box())["y"]
        for _ in range(4):
            fresh = await service.storage.get_game(game_id)
            await wait_version(page, fresh.version)
            mine = game_state(fresh, 0, "en")
            if "confirm" in mine["buttons"]:
                break
            walked = {"node": 0, "steps": 0}
            while True:  # the turn's checkers, moved on the page, then sent
                legal = walk_legal(mine, walked)
                source = max(int(s) for s in legal)
                dest = legal[str(source)][0]
                await tap(page, source, dest)
                if await walk_step(page, mine, walked, source, dest) is None:
                    break
        confirmed = (await service.storage.get_game(game_id)).version + 1
        # The board stays put while buttons and lines under it come and go.
        assert (await page.locator("#board").bounding_box())["y"] == board_y
        box = await page.locator('[data-action="confirm"]').bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await page.touchscreen.tap(x, y)
        await wait_version(page, confirmed)
        await page.touchscreen.tap(x, y)  # the second tap lands on the new buttons
        # Until the buttons take taps again and no action is on its way.
        await page.wait_for_function(
            "() => performance.now() >= Number(document.body.dataset.settleUntil)"
            " && !document.body.classList.contains('busy')"
        )
        after = await service.storage.get_game(game_id)
        assert after.version == confirmed  # nothing pressed by the second tap
        assert (await page.locator("#board").bounding_box())["y"] == board_y
        assert "Tavla Bot" in await page.locator("#last").inner_text()  # its move, told
        # A tap after the moment is taken.
        await page.locator("#controls button").first.click()
        await wait_version(page, confirmed + 1)
        await browser.close()


async def until(condition, what: str) -> None:
    """Wait (at most WAIT_MS) for ``condition()`` of the server's side to hold."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def act_as_seat(service, signer, base: str, game_id: int, seat: int, action: str) -> int:
    """``action`` through the API with the seat's personal link; the new version."""
    record = await service.game_record(game_id)
    header = {"Authorization": "link " + signer.seat_token(game_id, seat, record.seats[seat])}
    async with aiohttp.ClientSession() as session:
        url = f"{base}/api/game/{game_id}"
        state = await (await session.get(url, headers=header)).json()
        body = {"action": action, "version": state["version"]}
        answer = await (await session.post(url + "/action", json=body, headers=header)).json()
    assert answer["ok"], answer
    return answer["state"]["version"]


async def test_the_page_follows_the_game_across_closed_streams_and_stops_at_its_end(tmp_path):
    """The server closes a stream at its maximum age (here 1 s): the page reconnects by
    itself and follows the game; at the end the server says so and the page stops."""
    from playwright.async_api import async_playwright

    async with (
        serving(tmp_path, WebLimits(stream_max_age=1.0)) as (board, service, signer, base, game_id),
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = await (await browser.new_context(viewport=PHONE)).new_page()
        page.set_default_timeout(WAIT_MS)
        await page.goto(watch_url(base, signer, game_id) + "&lang=en")
        await page.locator("body.ready").wait_for()
        # A renewed stream is not a lost connection: the page never looks offline for it.
        await page.evaluate(
            """() => {
              window.__offline = 0;
              new MutationObserver(() => {
                if (document.body.classList.contains("offline")) window.__offline++;
              }).observe(document.body, { attributes: true });
            }"""
        )
        await until(lambda: board.streams.opened >= 3, "the page opened no new stream")
        assert await page.evaluate("window.__offline") == 0
        version = await act_as_seat(service, signer, base, game_id, 0, "roll")
        await wait_version(page, version)
        await act_as_seat(service, signer, base, game_id, 1, "resign")
        version = await act_as_seat(service, signer, base, game_id, 0, "accept_resign")
        await wait_version(page, version)
        await page.wait_for_function("() => document.body.dataset.listening === 'ended'")
        await until(lambda: board.streams.open == 0, "the ended game's stream is open")
        await browser.close()


async def test_a_page_refused_live_updates_tries_again_later(tmp_path):
    """One stream per address here: a second page is refused (503) and shows it is offline;
    once the first page closes, it gets its stream and follows the game."""
    from playwright.async_api import async_playwright

    async with (
        serving(tmp_path, WebLimits(max_streams_per_address=1)) as (
            board,
            service,
            signer,
            base,
            game_id,
        ),
        async_playwright() as pw,
    ):
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE)
        first, second = await context.new_page(), await context.new_page()
        for page in (first, second):
            page.set_default_timeout(WAIT_MS)
            await page.goto(watch_url(base, signer, game_id) + "&lang=en")
            await page.locator("body.ready").wait_for()
        await second.locator("body.offline").wait_for()
        await first.close()
        await second.wait_for_function("() => !document.body.classList.contains('offline')")
        await until(lambda: board.streams.open == 1, "the second page has no stream")
        version = await act_as_seat(service, signer, base, game_id, 0, "roll")
        await wait_version(second, version)
        await browser.close()
