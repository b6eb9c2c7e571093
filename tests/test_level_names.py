"""The computer's name says its strength in the reader's words ("Tavla Bot (usta)" in
Turkish, not "(expert)"): in the caption, the board picture's names, the text board and the
/bot usage; the words that usage shows are taken as /bot's arguments, as the English ones
still are."""

from __future__ import annotations

import pytest

from bot.i18n import translate, translate_lines
from bot.service.service import Place
from bot.service.store import seat_names
from tests.test_service import ALI, AYSE, VELI, board, service_at

HOME = Place("test", "100", private=True, title="Ali")


@pytest.fixture
async def service(tmp_path):
    async with service_at(tmp_path / "t.db") as (service, _clock):
        yield service


@pytest.mark.parametrize(
    ("actor", "word", "name", "english"),
    [
        (ALI, "expert", "Tavla Bot (usta)", "expert"),
        (ALI, "usta", "Tavla Bot (usta)", "expert"),
        (ALI, "üstat", "Tavla Bot (üstat)", "master"),
        (AYSE, "beginner", "Tavla Bot (новичок)", "beginner"),
        (AYSE, "гроссмейстер", "Tavla Bot (гроссмейстер)", "master"),
        (VELI, "мастер", "Tavla Bot (expert)", "expert"),
        (VELI, "club", "Tavla Bot (club)", "club"),
    ],
)
async def test_the_computers_level_is_named_in_the_readers_words(
    service, actor, word, name, english
):
    place = Place("test", actor.user_id, private=True, title=actor.name)
    shown = board(await service.command(actor, place, "bot", word))
    record = await service.storage.get_game(shown.game_id)
    assert record.settings.level == english  # the level itself, whatever word chose it
    caption = translate_lines(shown.lines, shown.lang)
    assert name in caption
    assert shown.board is not None
    assert name in shown.board.names.values()
    assert name in shown.text_board
    for other in ("(expert)", "(master)", "(beginner)", "(club)"):
        if other != f"({english})" or shown.lang != "en":
            assert other not in caption + shown.text_board
    assert translate(seat_names(record)[1], shown.lang) == name


@pytest.mark.parametrize(
    ("actor", "levels"),
    [
        (ALI, "[acemi|kahvehane|usta|üstat]"),
        (AYSE, "[новичок|клуб|мастер|гроссмейстер]"),
        (VELI, "[beginner|club|expert|master]"),
    ],
)
async def test_the_bot_usage_names_levels_it_takes_in_the_readers_words(service, actor, levels):
    place = Place("test", actor.user_id, private=True, title=actor.name)
    refused = await service.command(actor, place, "bot", "godlike")
    said = translate_lines(refused[0].lines, refused[0].lang)
    assert levels in said
    words = levels.strip("[]").split("|")
    for word, level in zip(words, ("beginner", "club", "expert", "master"), strict=True):
        started = board(await service.command(actor, place, "bot", word))
        assert (await service.storage.get_game(started.game_id)).settings.level == level
        await service.command(actor, place, "abort", "")
