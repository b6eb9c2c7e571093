"""``/analyse`` through the service (bot/service/analysis.py): a finished game's card in the
group, the whole analysis in private, and one analysis at a time."""

from __future__ import annotations

import asyncio
import io

from PIL import Image

from bot.service import analysis as analysis_module
from bot.service.service import Place
from core.analysis.records import parse_mat
from tests.test_service import ALI, AYSE, GROUP, VELI, board, env, play_out, start_game, text_of

__all__ = ["env"]  # the fixture, imported for the tests below

ALI_PRIVATE = Place("test", ALI.user_id, private=True)


async def finished_game(service) -> int:
    views = await start_game(service)
    game_id = board(views).game_id
    await play_out(service, views)
    return game_id


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


async def test_analyse_in_the_group_answers_with_the_card(env):
    service, _ = env
    game_id = await finished_game(service)
    views = await service.command(VELI, GROUP, "analyse", "")
    assert len(views) == 1
    card = Image.open(io.BytesIO(views[0].image))
    assert card.format == "PNG"
    assert card.height > card.width  # the figures and the costliest decisions' boards
    assert f"/analyse {game_id}" in text_of(views)
    assert views[0].document is None  # the decision list goes to private chats only
    # The Turkish and Russian spellings reach the same command.
    again = await service.command(VELI, GROUP, "analiz", "")
    assert again[0].image is not None


async def test_analyse_in_private_sends_the_decisions_and_the_commented_mat(env):
    service, _ = env
    game_id = await finished_game(service)
    views = await service.command(ALI, ALI_PRIVATE, "analyse", str(game_id))
    assert views[0].image is not None
    documents = dict(v.document for v in views if v.document is not None)
    listing = documents[f"analysis-{game_id}.txt"].decode()
    mat = documents[f"tavla-{game_id}-analysed.mat"].decode()
    # Ali speaks Turkish: the document is in Turkish.
    assert views[0].lang == "tr"
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
    game_id = await finished_game(service)
    stranger = Place("test", "999", private=True)
    views = await service.command(AYSE, stranger, "analyse", str(game_id))
    assert views[0].notice
    assert f"{game_id}" in text_of(views)


async def test_one_analysis_at_a_time_the_second_is_asked_to_wait(env, monkeypatch):
    service, _ = env
    await finished_game(service)
    entered, release = asyncio.Event(), asyncio.Event()
    real = analysis_module._run

    async def held(*args):
        entered.set()
        await release.wait()
        return await real(*args)

    monkeypatch.setattr(analysis_module, "_run", held)
    first = asyncio.create_task(service.command(ALI, GROUP, "analyse", ""))
    await entered.wait()
    busy = await service.command(VELI, GROUP, "analyse", "")
    assert busy[0].notice
    assert "try again in a minute" in text_of(busy)
    release.set()
    done = await first
    assert done[0].image is not None
    # Free again once the first is done.
    after = await service.command(VELI, GROUP, "analyse", "")
    assert after[0].image is not None


def test_the_card_words_keep_their_fields_for_the_renderers_in_every_language():
    for lang, word in (("tr", "hamle"), ("ru", "ход"), ("en", "move")):
        words = analysis_module.labels(lang)
        assert word in words["where"]
        assert "{game}" in words["where"]
        assert "{move}" in words["where"]
        assert set(words) >= {"title", "worst", "Supernatural", "pips"}
