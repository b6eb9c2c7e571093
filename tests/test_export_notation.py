"""``/export`` writes a file that says what it is and that every reader of the project takes
back: GNU Backgammon's ``.mat`` for Tavla; Tavla's notation (docs/notation.md) for Turkish
tavla and Uzun Tavla, with a header naming the game and its rules and a contest line that a
backgammon program refuses rather than misreads. Each variant round-trips: a game played
through the service, ``/export``, ``python -m core analyse`` (its main function) gives back
the moves as played."""

from __future__ import annotations

import json
import re

import pytest

from core.__main__ import main
from core.analysis import cli
from core.analysis.records import from_histories, parse_mat
from core.export import export_games, split_games
from core.gnubg import position_id
from tests.gnubg_anchor import gnubg_binary, gnubg_import
from tests.test_analysis import FlatEvaluator, selfplay
from tests.test_service import ALI, GROUP, board, env, play_out, start_game, text_of

__all__ = ["env"]  # the fixture, imported for the tests below

#: (command, arguments, variant, file name, what the message calls the file)
CONTESTS = [
    ("tavla", "3", "tavla", r"tavla-\d+\.mat", "for GNU Backgammon"),
    ("tavla", "3 turkish", "turkish", r"turkish-tavla-\d+\.txt", "in Tavla's notation"),
    ("uzun", "", "uzun", r"uzun-tavla-\d+\.txt", "in Tavla's notation"),
]


async def exported(service, cmd: str, args: str):
    """Play a contest out through the service; its ``/export`` and its stored events."""
    views = await play_out(service, await start_game(service, args, cmd=cmd))
    game_id = board(views).game_id
    answer = await service.command(ALI, GROUP, "export", "")
    events = [e.data for e in await service.storage.events(game_id) if e.type == "core"]
    return answer, split_games(events)


@pytest.mark.parametrize(("cmd", "args", "variant", "file_name", "said"), CONTESTS)
async def test_export_round_trips_through_python_m_core_analyse(
    env, tmp_path, monkeypatch, capsys, cmd, args, variant, file_name, said
):
    service, _ = env
    answer, games = await exported(service, cmd, args)
    name, data = answer[0].document
    assert re.fullmatch(file_name, name)
    assert said in text_of(answer)
    if variant != "tavla":
        assert "GNU Backgammon" not in text_of(answer)
        assert "python -m core analyse" in text_of(answer)
    # The project's reader takes the file back as the same game, move for move.
    record = parse_mat(data.decode())
    assert record.games == from_histories(games)
    assert (record.variant or "tavla") == variant
    # And so does the command line, without being told the game: every unforced play,
    # in the order played, game by game.
    path = tmp_path / name
    path.write_bytes(data)
    monkeypatch.setattr(cli, "evaluator_for", lambda *_: FlatEvaluator())
    capsys.readouterr()
    assert main(["analyse", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    played = [(d["game"], d["player"], d["played"]) for d in lines if d.get("kind") == "play"]
    expected = [
        (number, e["seat"], e["play"])
        for number, events in enumerate(games, 1)
        for e in events
        if e["type"] == "play" and not e["forced"]
    ]
    assert played == expected
    assert len(games) >= (2 if variant == "turkish" else 1)


@pytest.mark.parametrize("name", ["uzun", "turkish"])
def test_the_header_names_the_game_its_rules_and_its_start(name: str) -> None:
    variant, (_match, histories) = selfplay(name, 1, seed=5)
    text = export_games(["a", "b"], 1, histories, variant=name)
    lines = text.splitlines()
    title = {"uzun": "Uzun Tavla (long nardy)", "turkish": "Turkish tavla"}[name]
    assert lines[0] == f'; [Variant "{title}"]'
    assert lines[1].startswith('; [Rules "')
    assert "no cube" in lines[1] or "without the cube" in lines[1]
    assert f'; [Start "{position_id(variant.start_position())}"]' in lines
    assert '; [Notation "Tavla notation 1"]' in lines
    assert f" 1 point {title.split(' (')[0]} match" in lines
    assert "GNU" not in text


@pytest.mark.skipif(gnubg_binary() is None, reason="Debian's gnubg is not installed")
def test_gnubg_refuses_an_uzun_file_instead_of_misreading_it() -> None:
    """Before, gnubg imported an Uzun export as a backgammon game full of invalid moves."""
    _variant, (_match, histories) = selfplay("uzun", 1, seed=5)
    text = export_games(["a", "b"], 1, histories, variant="uzun")
    with pytest.raises(RuntimeError, match=r"not a valid \.mat file"):
        gnubg_import(text)


def test_the_cli_refuses_a_variant_the_file_does_not_have(tmp_path, capsys) -> None:
    path = tmp_path / "x.txt"
    path.write_text(" 1 point Nackgammon match\n\n Game 1\n a : 0   b : 0\n", encoding="utf-8")
    assert main(["analyse", str(path)]) == 2
    assert "Nackgammon" in capsys.readouterr().err
    path.write_text('; [Variant "uzun"]\n; [Options "sideways"]\n 1 point match\n')
    assert main(["analyse", str(path)]) == 2
    assert "no option sideways" in capsys.readouterr().err
