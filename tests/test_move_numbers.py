"""One numbering of moves everywhere: the analysis (its card, its document, the comments of
the ``.mat``, the CLI's ``move``) names a decision by the number of the line it is written on
in the exported file, ``N)``, one line per exchange of both players, as gnubg numbers them.
Before, the analysis counted every roll ("move 12") where the file said "7)"."""

from __future__ import annotations

import functools
import re

import pytest

from core.analysis import analyse_match
from core.export import COLUMN, export_games
from renderers.analysis_text import analysis_text, mat_comments
from tests.test_analysis import FlatEvaluator, selfplay

_LINE = re.compile(r"^\s*(\d+)\) (.*)$")


@functools.cache
def analysed(name: str, length: int, seed: int):
    variant, (_match, histories) = selfplay(name, length, seed)
    analysis = analyse_match(variant, histories, length=length, evaluator=FlatEvaluator())
    return analysis, export_games(["a", "b"], length, histories, variant=name)


def written(text: str) -> dict[tuple[int, int], tuple[str, str]]:
    """Each numbered line of each game, by (game, line): its left and right column."""
    out: dict[tuple[int, int], tuple[str, str]] = {}
    game = 0
    for line in text.splitlines():
        if line.strip().startswith("Game "):
            game += 1
        elif m := _LINE.match(line):
            body = m.group(2)
            out[(game, int(m.group(1)))] = (body[:COLUMN].strip(), body[COLUMN:].strip())
    return out


@pytest.mark.parametrize(("name", "length", "seed"), [("tavla", 3, 11), ("uzun", 1, 2)])
def test_every_decision_is_named_by_the_line_it_is_written_on(name, length, seed):
    analysis, text = analysed(name, length, seed)
    lines = written(text)
    cube = {"double": "Doubles", "take": "Takes", "pass": "Drops"}
    checked = {"play": 0, "cube": 0}
    for d in analysis.decisions:
        cell = lines[(d.game, d.move)][d.player]
        if d.kind == "play":
            a, b = d.dice
            assert cell.startswith(f"{a}{b}:"), (d, cell)
        elif d.played in cube:
            assert cell.startswith(cube[d.played]), (d, cell)
        checked[d.kind] += 1
    assert checked["play"] > 20
    if name == "tavla":
        assert checked["cube"] > 0
    # Two players' turns share a line: the numbers are the file's, not a count of rolls.
    assert max(d.move for d in analysis.decisions if d.game == 1) <= max(
        n for g, n in lines if g == 1
    )


def test_the_document_and_the_mat_comments_name_the_same_lines():
    analysis, _text = analysed("tavla", 3, 11)
    document = analysis_text(analysis)
    comments = "\n".join(mat_comments(analysis))
    for d in analysis.decisions:
        where = f"Game {d.game}, move {d.move} · {analysis.names[d.player]}"
        assert where in document
        if d.skill.value:
            assert where in comments
