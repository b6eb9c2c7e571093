"""Players' names in the ``.mat`` export (core.export): whatever a player calls themselves,
GNU Backgammon and the project's own reader (``python -m core analyse``) read the file back
with the names as written and every move in place."""

from __future__ import annotations

import functools
import json

import pytest

from core.__main__ import main
from core.ai import player_for
from core.analysis.records import from_histories, parse_mat
from core.analysis.selfplay import play_match
from core.dice import RandomDice
from core.export import NAME_BYTES, export_games, mat_name
from core.variants import variant_by_name
from tests.gnubg_anchor import gnubg_binary, gnubg_read

#: Names a player may choose, and what the file can hold of them.
HOSTILE = [
    ("x 1) 31: 13/10", "x 1) 31\u2236 13/10"),  # a colon ends a name in gnubg's header
    ("A" * 40, "A" * NAME_BYTES),  # longer than the column and than gnubg keeps
    ("Ayşe, 1500", "Ayşe\u201a 1500"),  # a comma before a number is read as a rating
    ("Ali, Veli", "Ali, Veli"),  # other commas are kept
    ("  two  spaces  ", "two  spaces"),
    ("line\nbreak\tand\x00nul", "line break and nul"),
    ('; [Variant "uzun"]', '; [Variant "uzun"]'),  # looks like a comment line
    ("é" * 20, "é" * 15),  # 31 bytes of UTF-8, cut at a character
    (":", "\u2236"),
    (" \n ", "Player 2"),
]


@functools.cache
def tavla_match(seed: int = 5, length: int = 3):
    variant = variant_by_name("tavla")
    players = [player_for("tavla", "beginner", seed), player_for("tavla", "club")]
    return play_match(variant, players, RandomDice(seed), length=length)


@pytest.mark.parametrize(("name", "written"), HOSTILE)
def test_a_name_is_written_as_the_format_can_hold_it(name, written):
    assert mat_name(name, "Player 2") == written
    assert len(written.encode()) <= NAME_BYTES


def test_the_projects_reader_reads_back_every_name_and_move():
    _match, histories = tavla_match()
    for (left, _), (right, _) in zip(HOSTILE, HOSTILE[1:] + HOSTILE[:1], strict=True):
        text = export_games([left, right], 3, histories)
        record = parse_mat(text)
        assert record.names == (mat_name(left, "Player 1"), mat_name(right, "Player 2"))
        assert record.games == from_histories(histories)
        assert record.variant is None


def test_python_m_core_analyse_reads_a_file_with_hostile_names(tmp_path, capsys):
    _match, histories = tavla_match(seed=8, length=1)
    path = tmp_path / "match.mat"
    names = ['; [Variant "uzun"]', "x 1) 31: 13/10"]
    path.write_text(export_games(names, 1, histories), encoding="utf-8")
    assert main(["analyse", "--variant", "tavla", str(path), "--level", "network"]) == 0
    summaries = [json.loads(x) for x in capsys.readouterr().out.splitlines()][-2:]
    assert [s["name"] for s in summaries] == ['; [Variant "uzun"]', "x 1) 31\u2236 13/10"]


@pytest.mark.skipif(gnubg_binary() is None, reason="needs Debian's gnubg program")
def test_gnubg_reads_back_every_name_and_move():
    _match, histories = tavla_match()
    rolls = [
        [(a.seat, tuple(sorted(a.dice or ()))) for a in game if a.kind == "roll"]
        for game in from_histories(histories)
    ]
    # Every name on each side, in five files (gnubg takes a second or so to start).
    for (left, _), (right, right_written) in zip(HOSTILE[0::2], HOSTILE[1::2], strict=True):
        names, games = gnubg_read(export_games([left, right], 3, histories))
        assert names == [mat_name(left, "Player 1"), right_written], (left, right)
        assert games == rolls
    for (left, _), (right, right_written) in zip(HOSTILE[1::2], HOSTILE[0::2], strict=True):
        names, _games = gnubg_read(export_games([left, right], 3, histories))
        assert names == [mat_name(left, "Player 1"), right_written], (left, right)
