"""What a new player meets on the web board, in real Chromium on a 390×844 phone: every point
a checker can reach is a target and a run over both dice is one tap, two ways to one point
are a choice, a checker that cannot move says so. Screenshots go to ``TAVLA_WEB_SCREENSHOTS``
(a folder) when it is set, to look at them.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest

from bot.storage.base import PlayerPrefs
from bot.web import relay
from bot.web.guard import WebLimits
from bot.web.links import seat_url, watch_url
from bot.web.state import game_state
from bot.web.texts import page_texts
from tests.test_web_browser import (
    ARGS,
    CHROMIUM,
    PHONE,
    WAIT_MS,
    act_as_seat,
    centre,
    launch_fragment,
    serving,
    tap,
    until,
    wait_version,
    walk_legal,
    walk_step,
)
from tests.test_web_moves import START, other, side
from tests.web_helpers import ALI, GROUP, VELI, accept_of, seats, set_position

pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM),
    reason="needs Debian's chromium and playwright (pip install playwright)",
)
pytest.importorskip("playwright")


async def shot(page, name: str) -> None:
    """A screenshot to look at, when ``TAVLA_WEB_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("TAVLA_WEB_SCREENSHOTS")
    if folder:
        await page.screenshot(path=str(Path(folder, name)))


@contextlib.asynccontextmanager
async def phone_page(url: str):
    """A phone's page (390×844, touch) at ``url``, loaded."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = await browser.new_context(viewport=PHONE, device_scale_factor=2, has_touch=True)
        page = await context.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(url)
        await page.locator("body.ready").wait_for()
        yield page
        await browser.close()
        assert errors == []


@contextlib.asynccontextmanager
async def playing(tmp_path, opponent: list[int], dice: tuple[int, int] = (3, 2)):
    """Seat 0 to play ``dice`` (3-2) from the opening position against ``opponent``'s side,
    on its phone (its moves wait for Confirm): ``(service, game id, record, page)``."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        record = await service.storage.get_game(game_id)
        await service.storage.set_user_prefs(record.seats[0], PlayerPrefs(auto_confirm="never"))
        await set_position(service, game_id, [START, opponent], turn=0, dice=dice)
        record = await service.storage.get_game(game_id)
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            await wait_version(page, record.version)
            yield service, game_id, record, page


async def targets(page) -> list[int]:
    return sorted(
        int(v)
        for v in await page.locator("[data-target]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.target)"
        )
    )


async def test_a_checker_shows_every_point_it_reaches_and_a_run_is_one_tap(tmp_path):
    """13 with 3-2: 11, 10 and 8 are marked; a tap on 8 plays 13/10/8 (or 13/11/8) at once."""
    async with playing(tmp_path, START) as (service, game_id, record, page):
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="8"]').wait_for()
        assert await targets(page) == [8, 10, 11]
        await shot(page, "targets-13-32.png")
        await page.touchscreen.tap(*await centre(page, '[data-point="8"]'))
        await wait_version(page, record.version + 1)
        after = await service.storage.get_game(game_id)
        assert after.version == record.version + 1  # one action
        points = game_state(after, 0, "en")["board"]["points"]
        assert points[8]["count"] == 4
        assert points[13]["count"] == 4
        await page.locator('[data-action="confirm"]').wait_for()
        await shot(page, "after-13-8.png")


async def test_the_checkers_of_a_turn_move_on_the_page_and_go_in_one_action(tmp_path):
    """T-3, 3-2 from the opening: 13/10 moves on the page at once, with no action sent (the
    server's version stays); Undo there puts it back, still without one; 13/10 then 24/22
    plays the roll, and both steps go in one action, made by the service as they were shown."""
    async with playing(tmp_path, START) as (service, game_id, record, page):
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="10"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-point="10"]'))
        await page.locator('[data-top="10"]').wait_for()
        # The pips the server told for that board: 167 - 3; what the game waits for there.
        assert "164" in await page.locator("#strip-bottom .info").inner_text()
        lang = await page.evaluate("document.documentElement.lang")
        told = game_state(record, 0, lang)
        way = next(w for w in told["moves"]["13"] if w["to"] == 10)
        waiting = told["walk"][way["next"]]["action_line"]
        assert waiting != told["action_line"]  # one die left now
        assert await page.locator("#caption").inner_text() == waiting
        assert await page.locator("[data-action=undo]").count() == 1
        assert (await service.storage.get_game(game_id)).version == record.version
        await shot(page, "walked-13-10.png")
        await page.locator("[data-action=undo]").click()
        await page.locator('[data-top="10"]').wait_for(state="detached")
        assert await page.locator("[data-action=undo]").count() == 0
        assert (await service.storage.get_game(game_id)).version == record.version
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="10"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-point="10"]'))
        await page.locator('[data-top="10"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-top="24"]'))
        await page.locator('[data-target="22"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-point="22"]'))
        await wait_version(page, record.version + 1)
        after = await service.storage.get_game(game_id)
        assert after.version == record.version + 1  # one action for the two moves
        points = game_state(after, 0, "en")["board"]["points"]
        assert points[10]["count"] == 1
        assert points[22]["count"] == 1
        assert points[13]["count"] == 4
        assert points[24]["count"] == 1
        await page.locator('[data-action="confirm"]').wait_for()


async def test_a_double_past_the_boards_told_goes_in_parts_and_the_page_walks_on(tmp_path):
    """1-1 from the opening reaches more boards than a state tells (MOST_NODES): the page
    walks the boards it was told, sends the steps made when a move leads past them, and
    walks on from the answer; the four steps are made as shown, in two actions at most."""
    async with playing(tmp_path, START, dice=(1, 1)) as (service, game_id, record, page):
        walked = {"node": 0, "steps": 0}
        sent = 0
        fresh = record
        made: list[tuple[int, int]] = []
        while True:
            mine = game_state(fresh, 0, "en")
            legal = walk_legal(mine, walked)
            if not legal:
                break
            source = min(int(s) for s in legal)  # the home board's checkers, one by one
            dest = legal[str(source)][0]
            await tap(page, source, dest)
            made.append((source, dest))
            if await walk_step(page, mine, walked, source, dest) is None:
                sent += 1
                fresh = await service.storage.get_game(game_id)
        assert sent == fresh.version - record.version
        assert sent == 2  # the first move from node 0 past the boards told, then the rest
        assert len(made) <= 4
        board = game_state(fresh, 0, "en")["board"]
        assert sum(board["dice_used"]) == 4
        await page.locator('[data-action="confirm"]').wait_for()


async def test_a_stuck_checker_tapped_mid_turn_says_the_servers_reason(tmp_path):
    """After a checker moved on the page, a tap on a checker that cannot move sends the step
    made (the server keeps it, as a chat button's) and says core's reason from its answer."""
    blot = side({other(10): 1, other(21): 2, other(22): 2, 6: 4, 7: 3, 5: 3})
    async with playing(tmp_path, blot) as (service, game_id, record, page):
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="11"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-point="11"]'))
        await page.locator('[data-top="11"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-top="24"]'))
        await wait_version(page, record.version + 1)
        await page.locator("#message.error").wait_for()
        stored = await service.storage.get_game(game_id)
        lang = await page.evaluate("document.documentElement.lang")
        reason = game_state(stored, 0, lang)["stuck"]["24"]
        assert await page.locator("#message").inner_text() == reason
        assert game_state(stored, 0, "en")["board"]["points"][11]["count"] == 1


async def test_two_ways_to_one_point_are_a_choice_and_a_stuck_checker_says_so(tmp_path):
    """T-4: a blot on 10: a tap on 8 offers 13/10*/8 and 13/8 as buttons; the hitting one
    sends the blot to the bar. A tap on a checker that cannot move says why not (core's
    reason, as for a refused drop)."""
    # A blot on seat 0's 10; seat 0's 21 and 22 closed: its checkers on 24 are stuck.
    blot = side({other(10): 1, other(21): 2, other(22): 2, 6: 4, 7: 3, 5: 3})
    async with playing(tmp_path, blot) as (service, game_id, record, page):
        # The checkers on 24 are shut in (21 and 22 are closed).
        await page.touchscreen.tap(*await centre(page, '[data-top="24"]'))
        await page.locator("#message.error").wait_for()
        lang = await page.evaluate("document.documentElement.lang")
        reason = game_state(record, 0, lang)["stuck"]["24"]  # core's: 21 is closed
        assert await page.locator("#message").inner_text() == reason
        assert await page.locator("[data-target]").count() == 0
        await shot(page, "stuck-checker.png")
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="8"]').wait_for()
        await page.touchscreen.tap(*await centre(page, '[data-point="8"]'))
        await page.locator("[data-way]").first.wait_for()
        ways = await page.locator("[data-way]").all_inner_texts()
        assert sorted(ways) == ["13/10*/8", "13/8"]
        assert (await service.storage.get_game(game_id)).version == record.version
        await shot(page, "two-ways.png")
        await page.locator('[data-way="13/10*/8"]').click()
        await wait_version(page, record.version + 1)
        board = game_state(await service.storage.get_game(game_id), 0, "en")["board"]
        assert board["bar"][board["top"]] == 1  # the blot is on the bar
        assert board["points"][8]["count"] == 4


async def test_a_bad_or_expired_link_says_so_with_what_to_do_and_shows_no_controls(tmp_path):
    """A link with a wrong signature, an expired one, one to a game that does not exist and
    one without a game: no board with empty bars and a Resign button, but a plain notice in
    the page's language telling to ask for a new link with /board."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        record = await service.storage.get_game(game_id)
        week_ago = time.time() - 8 * 24 * 3600
        expired = signer.seat_token(game_id, 0, record.seats[0], now=week_ago)
        links = {
            "forged": f"{base}/#game={game_id}&link=1.0.1.9999999999.abcdef&lang=ru",
            "expired": f"{base}/#game={game_id}&link={quote(expired)}&lang=ru",
            "no-game": f"{base}/#game=99999&watch=x&lang=ru",
            "no-link": f"{base}/?lang=ru",
        }
        expected = page_texts("ru")
        assert "/board" in expected["no_access"]
        for name, url in links.items():
            async with phone_page(url) as page:
                await page.locator("#refused").wait_for()
                assert await page.locator("#refused h1").inner_text() == expected["no_access_title"]
                assert await page.locator("#refused p").inner_text() == expected["no_access"]
                for control in ("#resign", ".strip", "#controls button", "#board"):
                    assert await page.locator(control).count() == 0, (name, control)
                if name == "expired":
                    await shot(page, "expired-link.png")


async def test_a_spectator_and_a_game_not_started_show_no_player_control(tmp_path):
    """A watcher never sees Resign, not even while the page loads; a challenge not yet
    accepted shows neither empty bars nor Resign."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        views = await service.command(ALI, GROUP, "tavla", "")
        challenge = next(v.game_id for v in views if v.game_id is not None)
        record = await service.storage.get_game(challenge)
        async with phone_page(watch_url(base, signer, game_id) + "&lang=en") as page:
            assert await page.locator("#resign").is_hidden()
            assert await page.locator(".strip").first.is_visible()  # the names are shown
        url = seat_url(base, signer, challenge, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            assert await page.locator("#resign").is_hidden()
            assert await page.locator(".strip").first.is_hidden()
            assert await page.locator("#board").is_hidden()
            await shot(page, "challenge.png")


async def test_the_end_shows_the_result_with_rematch_and_analyse(tmp_path):
    """The finished game's page says how it ended, as the chat does (who resigned, who wins
    how many points), and offers Rematch and Analyse: Analyse sends the analysis to the chat
    and says so; Rematch opens the new contest (a challenge to the same opponent) and takes
    the page there."""
    relayed: list = []

    async def deliver(views, chat_id):
        relayed.extend(views)

    relay.register("telegram", deliver)
    try:
        async with serving(tmp_path) as (_board, service, signer, base, game_id):
            record = await service.storage.get_game(game_id)
            url = seat_url(base, signer, game_id, 0, record.seats[0])
            async with phone_page(url) as page:
                await act_as_seat(service, signer, base, game_id, 1, "resign")
                version = await act_as_seat(service, signer, base, game_id, 0, "accept_resign")
                await wait_version(page, version)
                final = await service.storage.get_game(game_id)
                lang = await page.evaluate("document.documentElement.lang")
                result = game_state(final, 0, lang)["result"]
                assert result
                assert await page.locator("#caption").inner_text() == result
                actions = await page.locator("#controls button").evaluate_all(
                    "nodes => nodes.map(n => n.dataset.action)"
                )
                assert actions == ["rematch", "analyse"]
                await shot(page, "finished.png")
                before = len(relayed)
                await page.locator('[data-action="analyse"]').click()
                texts = page_texts(lang)
                await page.locator(f'#message:text-is("{texts["analysis_sent"]}")').wait_for()
                # The result stays on screen beside the notice.
                assert await page.locator("#caption").inner_text() == result
                await shot(page, "finished-analyse-sent.png")
                await until(lambda: len(relayed) > before, "nothing went to the chat")
                assert "nalys" in str(relayed[before].lines)  # "Analysing game #1…"
                await page.locator('[data-action="rematch"]').click()
                await page.wait_for_function(
                    "old => new URLSearchParams(location.hash.slice(1)).get('game') !== old",
                    arg=str(game_id),
                )
                fragment = await page.evaluate("location.hash.slice(1)")
                new_id = int(dict(p.split("=", 1) for p in fragment.split("&"))["game"])
                challenge = await service.storage.get_game(new_id)
                assert challenge.status.value == "challenge"
                assert challenge.seats[0] == record.seats[0]
                await page.locator(f'#message:text-is("{texts["not_started"]}")').wait_for()
                # Once the opponent accepts in the chat, the page shows the new game.
                await until(lambda: any(v.game_id == new_id for v in relayed), "no challenge")
                await service.press(VELI, GROUP, accept_of(relayed))
                await page.locator("#board").wait_for()
                await page.locator("[data-action]").first.wait_for()
                await shot(page, "rematch-started.png")
    finally:
        relay.unregister("telegram")


async def test_the_end_marks_the_winner_in_their_strip_as_the_picture_does(tmp_path):
    """The picture writes "★ winner" under the winner's name; the page's strips said
    nothing: the winner's strip is marked the same way, in the player's language, and the
    loser's is not."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        record = await service.storage.get_game(game_id)
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=tr"
        async with phone_page(url) as page:
            await act_as_seat(service, signer, base, game_id, 1, "resign")
            version = await act_as_seat(service, signer, base, game_id, 0, "accept_resign")
            await wait_version(page, version)
            await page.locator("#caption.result").wait_for()
            final = game_state(await service.storage.get_game(game_id), 0, "tr")
            winner = final["board"]["winner"]
            assert winner == final["board"]["bottom"]  # seat 0 accepted: seat 0 won
            mark = "★ " + page_texts("tr")["winner"]
            assert mark == "★ kazanan"
            assert await page.locator("#strip-bottom .mark").inner_text() == mark
            assert await page.locator("#strip-top .mark").inner_text() == ""
            assert await page.locator("#strip-bottom.winner").count() == 1
            assert await page.locator("#strip-top.winner").count() == 0
            await shot(page, "finished-winner.png")


async def post_action(base: str, signer, service, game_id: int, seat: int, body: dict) -> dict:
    """``body`` through the API with the seat's personal link; the answer."""
    record = await service.game_record(game_id)
    header = {"Authorization": "link " + signer.seat_token(game_id, seat, record.seats[seat])}
    async with aiohttp.ClientSession() as session:
        url = f"{base}/api/game/{game_id}/action"
        answer = await (await session.post(url, json=body, headers=header)).json()
    assert answer["ok"], answer
    return answer


async def game_with_plays(service, signer, base: str, plays: int = 6):
    """A match to 5 against the computer in which the person played their first legal moves
    until ``plays`` plays are told: ``(game id, record, state)``."""
    views = await service.command(ALI, GROUP, "bot", "tavla 5")
    game_id = next(v.game_id for v in views if v.game_id is not None)
    record = await service.storage.get_game(game_id)
    await service.storage.set_user_prefs(record.seats[0], PlayerPrefs(auto_confirm="never"))
    for _ in range(60):  # the person plays their first legal moves; the computer answers
        state = game_state(await service.storage.get_game(game_id), 0, "en")
        if len(state["plays"]) >= plays or state["over"]:
            break
        body: dict = {"version": state["version"]}
        if state["moves"]:
            body |= {"action": "move", "steps": next(iter(state["moves"].values()))[0]["steps"]}
        else:
            body["action"] = next(
                b for b in ("confirm", "roll", "take", "accept_resign") if b in state["buttons"]
            )
        await post_action(base, signer, service, game_id, 0, body)
    state = game_state(await service.storage.get_game(game_id), 0, "en")
    assert len(state["plays"]) >= plays
    return game_id, record, state


async def test_a_phone_s_room_under_the_board_holds_the_contest_and_the_last_plays(tmp_path):
    """On a 390×844 phone the room between the board and the buttons is used: the contest
    (players, score, game, match length) and the last plays of both sides, the newest at the
    bottom, then what the game waits for; the board keeps the top and the buttons the bottom."""
    async with serving(tmp_path) as (_board, service, signer, base, _game_id):
        game_id, record, state = await game_with_plays(service, signer, base)
        assert "match to 5" in state["contest"]
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            await wait_version(page, state["version"])
            await shot(page, "phone-plays.png")
            height = PHONE["height"]
            strip = await page.locator("#strip-bottom").bounding_box()
            info = await page.locator("#info").bounding_box()
            hand = await page.locator("#hand").bounding_box()
            # The lines fill the room between the board and the buttons...
            assert info["y"] - (strip["y"] + strip["height"]) < 16
            assert hand["y"] - (info["y"] + info["height"]) < 16
            # ...and the buttons end at the bottom of the screen, no scrolling.
            assert height - 24 <= hand["y"] + hand["height"] <= height
            assert await page.evaluate("document.scrollingElement.scrollHeight") <= height
            lang = await page.evaluate("document.documentElement.lang")
            state = game_state(await service.storage.get_game(game_id), 0, lang)
            shown = await page.locator("#last .play").all_inner_texts()
            assert shown == state["plays"]
            contest = await page.locator("#contest").inner_text()
            assert contest == state["contest"]
            # Every line listed is on screen: none hidden under the buttons.
            last = await page.locator("#last .play").last.bounding_box()
            assert last["y"] + last["height"] <= hand["y"]


async def empty_room(page) -> float:
    """The height between the bottom player strip and the buttons that no line uses."""
    return await page.evaluate(
        """() => {
          const box = (id) => document.getElementById(id).getBoundingClientRect();
          const used = [...document.querySelectorAll("#contest, #last .play, #caption")]
            .filter((p) => p.offsetParent !== null)
            .reduce((sum, p) => sum + p.getBoundingClientRect().height, 0);
          return box("hand").top - box("strip-bottom").bottom - used;
        }"""
    )


async def test_early_in_a_game_a_phone_s_room_goes_to_a_larger_board(tmp_path):
    """Early in a game (no plays yet to list) about a third of a 390×844 phone was empty
    between the contest line and the buttons: the board held upright takes that room (its
    points longer, showing more checkers) and leaves the lines theirs; no scrolling."""
    async with playing(tmp_path, START) as (_service, _game_id, _record, page):
        await shot(page, "phone-early.png")
        height = PHONE["height"]
        assert await empty_room(page) < 0.2 * height
        board = await page.locator("#board").bounding_box()
        assert board["height"] > 1.1 * board["width"] * 710 / 1000  # taller than the picture
        assert int(await page.locator("#board").get_attribute("data-stack")) > 5
        assert await page.evaluate("document.scrollingElement.scrollHeight") <= height
        hand = await page.locator("#hand").bounding_box()
        assert height - 24 <= hand["y"] + hand["height"] <= height
        # Still a board to play on: a tap on 13 marks where it reaches.
        await page.touchscreen.tap(*await centre(page, '[data-top="13"]'))
        await page.locator('[data-target="8"]').wait_for()
        assert await targets(page) == [8, 10, 11]
        await shot(page, "phone-early-targets.png")


async def cut_lines(page) -> list[str]:
    """The plays shown under the board that are cut by the edge of their room."""
    return await page.evaluate(
        """() => {
          const room = document.getElementById("last").getBoundingClientRect();
          return [...document.querySelectorAll("#last .play")]
            .filter((p) => p.offsetParent !== null)
            .filter((p) => {
              const r = p.getBoundingClientRect();
              return r.top < room.top - 0.5 || r.bottom > room.bottom + 0.5;
            })
            .map((p) => p.textContent);
        }"""
    )


async def test_the_resign_choice_leaves_no_half_line_and_no_second_resign(tmp_path):
    """While the resignation levels take the buttons' place on a phone, the last plays that
    no longer fit are left out whole (never a line cut in half under the score); the Resign
    button is not shown again under "Play on"; the levels read as labels ("A gammon (mars)
    …", capitalised). "Play on" brings the buttons, Resign and every play back."""
    async with serving(tmp_path) as (_board, service, signer, base, _game_id):
        game_id, record, state = await game_with_plays(service, signer, base, plays=8)
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            await wait_version(page, state["version"])
            assert await cut_lines(page) == []
            shown = await page.locator("#last .play:visible").count()
            await page.locator("#resign").click()
            await page.locator("[data-resign]").first.wait_for()
            await shot(page, "resign-choice-plays.png")
            assert await cut_lines(page) == []
            assert await page.locator("#last .play:visible").count() >= 1  # the newest kept
            assert await page.locator("#resign").is_hidden()
            labels = await page.locator("[data-resign]").all_inner_texts()
            assert all(label[:1].isupper() for label in labels), labels
            await page.locator('[data-action="keep_playing"]').click()
            assert await page.locator("#resign").is_visible()
            assert await page.locator("#last .play:visible").count() == shown
            assert await cut_lines(page) == []


async def test_a_refused_action_says_why_and_a_lost_stream_does_not_hide_it(tmp_path):
    """A refused action (here: too many, 429) says so, not "reconnecting…"; live updates
    refused meanwhile (one stream per address, held by another page) show a banner and leave
    the refusal readable, even when the same state arrives again."""
    async with serving(tmp_path, WebLimits(max_streams_per_address=1)) as (
        _board,
        service,
        signer,
        base,
        game_id,
    ):
        record = await service.storage.get_game(game_id)
        async with phone_page(watch_url(base, signer, game_id) + "&lang=en") as _watcher:
            url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
            async with phone_page(url) as page:
                await page.locator("body.offline").wait_for()
                assert await page.locator("#offline").is_visible()
                await page.route(
                    "**/action*",
                    lambda route: route.fulfill(status=429, body="slow down"),
                )
                await page.locator('[data-action="roll"]').click()
                lang = await page.evaluate("document.documentElement.lang")
                texts = page_texts(lang)
                await page.locator("#message.error").wait_for()
                assert await page.locator("#message").inner_text() == texts["slow_down"]
                # The page asks for its state again (and is refused its stream again): the
                # refusal is still there, beside the banner.
                version = record.version
                asked: list[str] = []
                page.on(
                    "request",
                    lambda r: asked.append(r.url) if f"/api/game/{game_id}?" in r.url else None,
                )
                await until(lambda: len(asked) >= 2, "the page did not ask again")
                await page.locator("body.offline").wait_for()
                await shot(page, "refused-offline.png")
                assert await page.locator("#message").inner_text() == texts["slow_down"]
                assert (await service.storage.get_game(game_id)).version == version


async def test_a_busy_board_says_so_and_sends_the_move_again(tmp_path):
    """The server, its line of actions full, answers "busy" (503, when to retry): the page
    says so and sends the same action again after that wait, which is then made, once."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        record = await service.storage.get_game(game_id)
        url = seat_url(base, signer, game_id, 0, record.seats[0]) + "&lang=en"
        async with phone_page(url) as page:
            texts = page_texts(await page.evaluate("document.documentElement.lang"))
            sent: list[str] = []

            async def busy_once(route):
                sent.append(route.request.post_data or "")
                if len(sent) == 1:
                    await route.fulfill(
                        status=503,
                        headers={"Retry-After": "1"},
                        content_type="application/json",
                        body='{"busy": true}',
                    )
                else:
                    await route.continue_()

            await page.route("**/action*", busy_once)
            await page.locator('[data-action="roll"]').click()
            await page.wait_for_function(
                "text => document.getElementById('message').textContent === text",
                arg=texts["busy_retrying"],
                timeout=WAIT_MS,
            )
            await wait_version(page, record.version + 1)
            assert len(sent) == 2
            assert sent[0] == sent[1]  # the same action, on the same version
            assert (await service.storage.get_game(game_id)).version == record.version + 1
            assert not await page.locator("#message.error").count()


async def test_a_link_that_expires_while_the_page_is_open_says_so_instead_of_retrying(
    tmp_path,
):
    """The page renews its live updates (here after 9 s) with its link, which has expired
    by then (it lasted 8 s): the page says the link no longer opens the board, and stops."""
    async with serving(tmp_path, WebLimits(stream_max_age=9.0)) as (
        board,
        service,
        signer,
        base,
        game_id,
    ):
        record = await service.storage.get_game(game_id)
        token = signer.seat_token(game_id, 0, record.seats[0], ttl=8)
        async with phone_page(f"{base}/#game={game_id}&link={quote(token)}&lang=en") as page:
            assert await page.locator("#board").count() == 1
            await page.locator("#refused").wait_for(timeout=30_000)
            texts = page_texts(await page.evaluate("document.documentElement.lang"))
            assert await page.locator("#refused p").inner_text() == texts["no_access"]
            await until(lambda: board.streams.open == 0, "a stream is still open")


async def test_inside_telegram_rematch_takes_the_page_to_the_new_contest(tmp_path):
    """Telegram's launch data opens any game of the player's: Rematch puts the new contest's
    number in the address (a reload opens it) and the page shows it."""
    async with serving(tmp_path) as (_board, service, signer, base, game_id):
        first = {seat: uid for uid, seat in (await seats(service, game_id)).items()}[0]
        url = f"{base}/?game={game_id}#{launch_fragment(first, 'Ali', 'en')}"
        async with phone_page(url) as page:
            await act_as_seat(service, signer, base, game_id, 1, "resign")
            version = await act_as_seat(service, signer, base, game_id, 0, "accept_resign")
            await wait_version(page, version)
            await page.locator('[data-action="rematch"]').click()
            await page.wait_for_function(
                "old => new URLSearchParams(location.search).get('game') !== old",
                arg=str(game_id),
            )
            new_id = int(await page.evaluate("new URLSearchParams(location.search).get('game')"))
            assert (await service.storage.get_game(new_id)).status.value == "challenge"
            lang = await page.evaluate("document.documentElement.lang")
            await page.locator(f'#message:text-is("{page_texts(lang)["not_started"]}")').wait_for()
            assert "tgWebAppData" in await page.evaluate("location.hash")
            await page.reload()
            await page.locator("body.ready").wait_for()
            await page.locator(f'#message:text-is("{page_texts(lang)["not_started"]}")').wait_for()
