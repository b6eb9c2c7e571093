"""Numbers from outside (command arguments, button data, the console's picks) are read one way
(bot.service.numbers): ASCII digits within range, anything else refused politely in the
player's language; never an error, never a lookup past a 64-bit integer."""

from __future__ import annotations

import pytest

from bot.i18n import translate, translate_lines
from bot.service import actions as A
from bot.service.analysis import USAGE as ANALYSE_USAGE
from bot.service.numbers import MAX_ID
from tests.test_console import make
from tests.test_service import ALI, GROUP, VELI, env

__all__ = ["env"]  # the fixture, imported for the tests below

#: Past SQLite's integers, a superscript ('²'.isdigit() is true, int() refuses it),
#: Arabic-Indic twelve (int() reads it as 12), and plain garbage.
ODD_NUMBERS = [str(MAX_ID + 1), "²", "١٢", "12abc"]


def said(views, lang: str) -> str:
    return "\n".join(translate_lines(v.lines, lang) for v in views)


@pytest.mark.parametrize("number", ODD_NUMBERS)
async def test_analyse_with_an_odd_number_answers_its_usage_in_the_players_language(env, number):
    service, _ = env
    views = await service.command(ALI, GROUP, "analyse", number)  # Ali reads Turkish
    assert len(views) == 1
    assert views[0].notice
    assert views[0].lang == "tr"
    assert said(views, "tr") == translate(ANALYSE_USAGE, "tr")
    assert translate(ANALYSE_USAGE, "tr") != translate(ANALYSE_USAGE, "en")


@pytest.mark.parametrize(
    "data",
    [
        f"{MAX_ID + 1}:1:r",  # a game id past 2**63
        f"1:{MAX_ID + 1}:r",
        "²:1:r",
        "١:1:r",
        "1:1:s٣",
        "1:1:s99",  # no point 99
        f"tn:{MAX_ID + 1}:j",  # a tournament card's Join
        "tn:١٢:j",
        "tn:²:j",
    ],
)
async def test_button_data_with_odd_numbers_is_an_unknown_button(env, data):
    service, _ = env
    views = await service.press(VELI, GROUP, data)
    assert len(views) == 1
    assert views[0].notice
    assert said(views, "en") == "That button is not one of mine."


def test_decode_reads_ids_up_to_a_64_bit_signed_integer():
    assert A.decode(f"{MAX_ID}:{MAX_ID}:r") == A.Action(MAX_ID, MAX_ID, A.ROLL)
    assert A.decode(f"{MAX_ID + 1}:0:r") is None
    assert A.decode("1:1:s25") == A.Action(1, 1, A.SELECT, "25")
    assert A.decode("1:1:s26") is None


@pytest.mark.parametrize("command", ["tavla", "bot", "uzun"])
async def test_a_match_length_of_thousands_of_digits_is_refused_politely(env, command):
    service, _ = env
    views = await service.command(VELI, GROUP, command, "9" * 5000)
    assert said(views, "en") == "A match can be 1 to 25 points long."


@pytest.mark.parametrize(
    ("args", "word"),
    [("knockout in ١٢h", "١٢h"), ("knockout ١٢m", "١٢m"), ("knockout max ١٢", "max")],
)
async def test_a_tournament_with_other_digits_is_refused_with_its_usage(env, args, word):
    service, _ = env
    views = await service.command(VELI, GROUP, "tournament", args)
    text = said(views, "en")
    assert text.startswith(f"I didn't understand “{word}”. Open a tournament with")
    assert await service.storage.get_tournament(1) is None


async def test_the_console_takes_only_plain_numbers_for_its_buttons(tmp_path):
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/bot")
        buttons = len(console.buttons)
        assert buttons
        for line in ("²", "١", str(MAX_ID + 1)):
            await console.handle(line)
            assert out.getvalue().rstrip().endswith(f"Choose 1 to {buttons}.")
    finally:
        await storage.close()
