"""A roll is named and shown larger die first everywhere a player reads it: the caption
said "5-3" while the text board printed "Dice 3-5" (the order the dice came)."""

from __future__ import annotations

from bot.i18n import translate_lines
from bot.service import actions as A
from bot.service.service import Actor, Place
from core.match import Match
from tests.factory import find
from tests.test_service import board, service_at


async def test_the_text_board_the_picture_and_the_caption_name_the_roll_alike(tmp_path):
    async with service_at(tmp_path / "t.db") as (service, _clock):
        for n in range(40):
            actor = Actor("test", str(1000 + n), f"P{n}", None, "en")
            place = Place("test", actor.user_id, private=True, title=actor.name)
            shown = board(await service.command(actor, place, "bot", ""))
            roll = find(shown, A.ROLL)
            if roll is None:
                continue  # the opening roll: one die each
            shown = board(await service.press(actor, place, roll))
            record = await service.storage.get_game(shown.game_id)
            game = Match.from_dict(record.match).game
            if game.dice and game.dice[0] < game.dice[1]:
                break
        else:
            raise AssertionError("no roll came smaller die first")
        low, high = game.dice
        caption = translate_lines(shown.lines, "en")
        assert f"{high}-{low}" in caption
        assert f"Dice {high}-{low}" in shown.text_board
        assert f"{low}-{high}" not in caption + shown.text_board
        assert shown.board.dice[:2] == (high, low)  # the picture and the web page too
