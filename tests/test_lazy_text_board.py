"""The text board of a board view is written only when something reads it.

Telegram never shows it; the console and the web's "this is a board" check read it. Whoever
reads it gets the same text as before: the text of the board the service drew.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import bot.service.views as views_module
from bot.service.views import View
from core.variants import variant_by_name
from renderers.text import render_text
from renderers.view import WHITE, BoardView
from tests.test_service import board, service_at, start_game


def opening() -> BoardView:
    tavla = variant_by_name("tavla")
    return BoardView.from_position(tavla, tavla.start_position(), WHITE, dice=(3, 1))


def test_a_board_views_text_is_the_text_of_its_board() -> None:
    drawn = opening()
    view = View(["caption"], game_id=1, board=drawn)
    assert view.text_board == render_text(drawn)
    # Kept once written, and carried over by dataclasses.replace.
    assert view.text_board is view.text_board
    assert replace(view, lines=["other"]).text_board == render_text(drawn)


def test_a_text_given_wins_and_a_view_without_a_board_has_none() -> None:
    assert View(["x"], text_board=".").text_board == "."
    assert View(["x"], text_board=".", board=opening()).text_board == "."
    assert View(["x"]).text_board is None
    view = View(["x"], board=opening())
    view.text_board = "set later"
    assert view.text_board == "set later"


def test_whether_a_view_shows_a_board_is_told_without_writing_its_text(monkeypatch) -> None:
    monkeypatch.setattr(views_module, "render_text", lambda drawn: pytest.fail("written"))
    assert View(["x"], board=opening()).shows_board
    assert View(["x"], text_board=".").shows_board
    assert not View(["x"]).shows_board


async def test_the_service_writes_the_text_board_only_when_it_is_read(tmp_path, monkeypatch):
    written: list[BoardView] = []

    def counting(drawn: BoardView) -> str:
        written.append(drawn)
        return render_text(drawn)

    monkeypatch.setattr(views_module, "render_text", counting)
    async with service_at(tmp_path / "lazy.db") as (service, _):
        current = board(await start_game(service, "1"))
        assert written == []
        assert current.board is not None
        assert current.text_board == render_text(current.board)
        assert len(written) == 1
