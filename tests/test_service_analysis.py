"""``/analyse`` through the service (bot/service/analysis.py): a "working…" message
at once, then the card in the group and the whole analysis in private, delivered later; the
Analyse button under a finished board; progress for a long match; one analysis at a time;
play never held up; automatic analysis of rated matches as a chat setting for admins
(bot/service/chat_settings.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import io

import pytest
from PIL import Image

from bot.service import actions as A
from bot.service import analysis as analysis_module
from bot.service.service import Place
from bot.service.views import MessageRef
from bot.storage.base import ChatPrefs
from core.analysis.records import parse_mat
from tests.factory import find
from tests.test_service import (
    ALI,
    AYSE,
    GROUP,
    VELI,
    awaiting_actor,
    board,
    env,
    play_out,
    start_game,
    text_of,
)

__all__ = ["env"]  # the fixture, imported for the tests below

ALI_PRIVATE = Place("test", ALI.user_id, private=True)
#: Where the adapter says it posted "working…".
WORKING_AT = MessageRef(4242, chat_id=GROUP.chat_id)


@pytest.fixture
def outbox(env):
    """The views the service delivers outside any request (what an adapter's outlet gets)."""
    service, _ = env
    sent = []

    async def collect(view):
        sent.append(view)

    service.outlets["test"] = collect
    return sent


async def finished_game(service, args: str = "") -> tuple[int, list]:
    views = await start_game(service, args)
    game_id = board(views).game_id
    return game_id, await play_out(service, views)


async def posted(views, where=WORKING_AT) -> None:
    """Do what an adapter does with the "working…" view: post it, say where."""
    (working,) = views
    assert not working.notice
    assert working.posted is not None
    await working.posted(where)


async def test_analyse_before_any_game_ends_says_so(env):
    service, _ = env
    views = await service.command(ALI, GROUP, "analyse", "")
    assert views[0].notice
    assert "no finished game" in text_of(views)
    views = await start_game(service)
    running = board(views).game_id
    answer = await service.command(ALI, GROUP, "analyse", str(running))
    assert answer[0].notice
    assert "not finished yet" in text_of(answer)


async def test_analyse_in_the_group_says_working_then_edits_it_and_posts_the_card(env, outbox):
    service, _ = env
    game_id, _ = await finished_game(service)
    views = await service.command(VELI, GROUP, "analyse", "")
    assert text_of(views) == f"⏳ Analysing game {game_id}…"
    assert views[0].chat == ("test", GROUP.chat_id)
    await posted(views)
    await service.settle()
    ready, card_view = outbox
    # The "working…" message itself says the analysis is ready…
    assert ready.edit
    assert ready.message == WORKING_AT
    assert text_of([ready]) == f"✅ The analysis of game {game_id} is ready."
    # … and the card follows where it was, with the pointer to the private analysis.
    assert not card_view.edit
    assert card_view.message == WORKING_AT
    card = Image.open(io.BytesIO(card_view.image))
    assert card.format == "PNG"
    assert card.height > card.width  # the figures and the costliest decisions' boards
    assert f"/analyse {game_id}" in text_of([card_view])
    assert card_view.document is None  # the decision list goes to private chats only
    # The Turkish and Russian spellings reach the same command.
    again = await service.command(VELI, GROUP, "analiz", "")
    assert not again[0].notice
    await posted(again)
    await service.settle()
    assert outbox[-1].image is not None


async def test_analyse_in_private_sends_the_decisions_and_the_commented_mat(env, outbox):
    service, _ = env
    game_id, _ = await finished_game(service)
    views = await service.command(ALI, ALI_PRIVATE, "analyse", str(game_id))
    await posted(views, MessageRef(7, chat_id=ALI.user_id))
    await service.settle()
    _, card_view, *files = outbox
    assert card_view.image is not None
    assert card_view.chat == ("test", ALI.user_id)
    documents = dict(v.document for v in files)
    listing = documents[f"analysis-{game_id}.txt"].decode()
    mat = documents[f"tavla-{game_id}-analysed.mat"].decode()
    # Ali speaks Turkish: the document is in Turkish.
    assert card_view.lang == "tr"
    assert "Zorunlu hamleler" in listing
    assert "Oyun 1, hamle " in listing  # a label with fields, translated, then filled
    # The .mat keeps the match (read back the same) with the analysis as header comments.
    exported = await service.command(ALI, GROUP, "export", "")
    plain = exported[0].document[1].decode()
    assert parse_mat(mat).games == parse_mat(plain).games
    header = mat[: mat.index("point match")]
    assert header.count("\n;") + header.startswith(";") >= 3  # evaluator and both players


async def test_someone_elses_game_is_not_analysed(env):
    service, _ = env
    game_id, _ = await finished_game(service)
    stranger = Place("test", "999", private=True)
    views = await service.command(AYSE, stranger, "analyse", str(game_id))
    assert views[0].notice
    assert f"{game_id}" in text_of(views)


async def test_the_analyse_button_under_a_finished_board_posts_the_card(env, outbox):
    service, _ = env
    game_id, last = await finished_game(service)
    final = board(last)
    analyse = find(final, A.ANALYSE)
    assert A.decode(analyse) == A.Action(game_id, final.version, A.ANALYSE)
    assert find(final, A.REMATCH)  # next to the rematch
    # Anyone in the group may press it: the card is for the group to talk about.
    views = await service.press(AYSE, GROUP, analyse)
    assert text_of(views) == f"⏳ Analysing game {game_id}…"
    await posted(views)
    await service.settle()
    assert outbox[-1].image is not None
    assert f"/analyse {game_id}" in text_of([outbox[-1]])
    # A running game's board has no such button, and a forged one is refused.
    running = board(await start_game(service))
    assert find(running, A.ANALYSE) is None
    forged = A.encode(running.game_id, running.version, A.ANALYSE)
    refused = await service.press(AYSE, GROUP, forged)
    assert refused[0].notice
    assert "not finished yet" in text_of(refused)


def hold_analyses(monkeypatch) -> tuple[asyncio.Event, asyncio.Event]:
    """Analyses wait, once started, until the test sets the second event; the first is set
    when one has started."""
    entered, release = asyncio.Event(), asyncio.Event()
    real = analysis_module._run

    async def held(*args):
        entered.set()
        await release.wait()
        return await real(*args)

    monkeypatch.setattr(analysis_module, "_run", held)
    return entered, release


async def test_one_analysis_at_a_time_the_second_is_asked_to_wait(env, outbox, monkeypatch):
    service, _ = env
    await finished_game(service)
    entered, release = hold_analyses(monkeypatch)
    first = await service.command(ALI, GROUP, "analyse", "")
    await posted(first)
    await entered.wait()
    busy = await service.command(VELI, GROUP, "analyse", "")
    assert busy[0].notice
    assert "try again in a minute" in text_of(busy)
    release.set()
    await service.settle()
    assert outbox[-1].image is not None
    # Free again once the first is done.
    after = await service.command(VELI, GROUP, "analyse", "")
    assert not after[0].notice
    await posted(after)
    await service.settle()
    assert len([v for v in outbox if v.image is not None]) == 2


async def test_play_goes_on_while_an_analysis_runs(env, outbox, monkeypatch):
    """The analysis never holds up play: while one is under way, a press in another game is
    answered with its new board."""
    service, _ = env
    await finished_game(service)
    entered, release = hold_analyses(monkeypatch)
    working = await service.command(ALI, GROUP, "analyse", "")
    await posted(working)
    await entered.wait()
    other = board(await start_game(service))
    player = await awaiting_actor(service, other.game_id)
    code = next(filter(None, (find(other, c) for c in (A.MOVE, A.SELECT, A.ROLL))))
    answered = await service.press(player, GROUP, code)
    assert not any(v.notice for v in answered), text_of(answered)
    assert board(answered).game_id == other.game_id
    assert not [v for v in outbox if v.image is not None]  # the analysis is still going
    release.set()
    await service.settle()
    assert outbox[-1].image is not None


async def test_a_long_match_shows_its_progress_in_coarse_steps(env, outbox, monkeypatch):
    """The "working…" message is edited at 25/50/75% at most, and never twice within
    PROGRESS_EVERY seconds: a 1,000-roll match reporting every roll costs three edits."""
    service, clock = env
    await finished_game(service)
    real = analysis_module._run

    async def slow(record, events, words, theme, progress):
        for done in range(1, 1001):
            clock.now += 0.1  # 100 s in all
            progress(done, 1000)
        return await real(record, events, words, theme, progress)

    monkeypatch.setattr(analysis_module, "_run", slow)
    working = await service.command(ALI, GROUP, "analyse", "")
    await posted(working)
    await service.settle()
    edits = [text_of([v]) for v in outbox if v.edit]
    assert edits == [
        "⏳ Analysing game 1… 25%",
        "⏳ Analysing game 1… 50%",
        "⏳ Analysing game 1… 75%",
        "✅ The analysis of game 1 is ready.",
    ]
    assert all(v.message == WORKING_AT for v in outbox if v.edit)


async def test_the_analysis_process_reports_its_progress(env):
    """The real analysis process: its progress reaches the event loop, in order, in steps of
    about a tenth (not one report per roll)."""
    service, _ = env
    game_id, _ = await finished_game(service)
    record = await service.storage.get_game(game_id)
    events = [e.data for e in await service.storage.events(game_id) if e.type == "core"]
    rolls = sum(1 for e in events if e.get("type") == "roll")
    seen: list[tuple[int, int]] = []
    files = await analysis_module._run(
        record, events, analysis_module.labels("en"), "classic", lambda *p: seen.append(p)
    )
    assert files.card[:4] == b"\x89PNG"
    assert seen
    assert seen == sorted(seen)
    assert all(0 < done <= total for done, total in seen)
    assert len(seen) <= 11 < rolls


async def test_a_short_analysis_edits_working_only_once(env, outbox):
    service, _ = env
    await finished_game(service)
    working = await service.command(ALI, GROUP, "analyse", "")
    await posted(working)
    await service.settle()
    assert [text_of([v]) for v in outbox if v.edit] == ["✅ The analysis of game 1 is ready."]


async def test_a_failed_analysis_says_so_on_the_working_message(env, outbox, monkeypatch):
    service, _ = env
    await finished_game(service)

    async def broken(*args):
        raise RuntimeError("the analysis process died")

    monkeypatch.setattr(analysis_module, "_run", broken)
    working = await service.command(ALI, GROUP, "analyse", "")
    await posted(working)
    await service.settle()
    (failed,) = outbox
    assert failed.edit
    assert failed.message == WORKING_AT
    assert "failed" in text_of([failed])
    # The lock is free again.
    monkeypatch.undo()
    again = await service.command(ALI, GROUP, "analyse", "")
    assert not again[0].notice
    await posted(again)
    await service.settle()
    assert outbox[-1].image is not None


def test_the_card_words_keep_their_fields_for_the_renderers_in_every_language():
    for lang, word in (("tr", "hamle"), ("ru", "ход"), ("en", "move")):
        words = analysis_module.labels(lang)
        assert word in words["where"]
        assert "{game}" in words["where"]
        assert "{move}" in words["where"]
        assert set(words) >= {"title", "worst", "Supernatural", "pips"}


# -- the chat's setting: automatic analysis ---------------------------------------------------


ADMIN_ALI = dataclasses.replace(ALI, admin=True)


async def test_only_a_groups_admins_get_its_settings_and_may_change_them(env):
    service, _ = env
    # A member is pointed to their own settings, privately.
    views = await service.command(VELI, GROUP, "settings")
    assert views[0].notice
    assert "private" in text_of(views)
    # An admin gets the chat's settings, in the group, with a button.
    views = await service.command(ADMIN_ALI, GROUP, "settings")
    (shown,) = views
    assert not shown.notice
    assert "Analyse every rated match: ⬜" in text_of(views)
    switch = find(shown, A.SETTING)
    message = MessageRef(99, chat_id=GROUP.chat_id)
    # A member pressing the admins' button changes nothing.
    refused = await service.press(VELI, GROUP, switch, message=message)
    assert refused[0].notice
    assert "administrators" in text_of(refused)
    chat = await service.storage.get_chat("test", GROUP.chat_id)
    assert chat.prefs == ChatPrefs()
    # The admin's press keeps the setting and edits the message in place.
    (edited,) = await service.press(ADMIN_ALI, GROUP, switch, message=message)
    assert edited.edit
    assert edited.message == message
    assert "Analyse every rated match: ✅" in text_of([edited])
    chat = await service.storage.get_chat("test", GROUP.chat_id)
    assert chat.prefs == ChatPrefs(auto_analysis=True)
    # Pressed in a private chat (a forwarded message), it is refused.
    private = await service.press(ADMIN_ALI, ALI_PRIVATE, switch)
    assert private[0].notice


async def test_a_chat_that_asks_for_it_gets_every_rated_match_analysed(env, outbox):
    service, _ = env
    # Off by default: a finished match brings no analysis.
    _, last = await finished_game(service)
    assert "Analysing" not in text_of(last)
    await service.storage.set_chat_prefs("test", GROUP.chat_id, ChatPrefs(auto_analysis=True))
    game_id, last = await finished_game(service)
    working = [v for v in last if "Analysing" in text_of([v])]
    assert text_of(working) == f"⏳ Analysing game {game_id}…"
    await posted(working)
    await service.settle()
    assert outbox[-1].image is not None
    assert f"/analyse {game_id}" in text_of([outbox[-1]])
    # An unrated one (the pair's rated games for the day used up) is not analysed.
    service.settings.max_rated_per_day = 0
    unrated, last = await finished_game(service)
    assert "this one is not rated" in text_of(last)
    assert "Analysing" not in text_of(last)
    # The stored game says so too, as its result row does (the flag used to be set after
    # the game was saved).
    assert (await service.storage.get_game(unrated)).rated is False
