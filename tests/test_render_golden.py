"""Golden images: a handful of boards compared with the PNGs in ``tests/golden/``.

A picture passes when it has the golden file's size and differs from it by less than
:data:`MEAN_TOLERANCE` on average (per channel, 0..255) and in fewer than
:data:`PIXEL_SHARE` of its pixels by more than :data:`PIXEL_TOLERANCE`: small differences
in anti-aliasing between Pillow or FreeType builds pass, a moved checker does not.

After a deliberate change to the pictures, look at the new ones and then rewrite the golden
files with::

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_render_golden.py

(the test then writes them and is skipped). Commit the PNGs that changed.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from core.movegen import Step
from core.position import Position
from core.turn import Turn
from core.variants import variant_by_name
from renderers.board import render_png
from renderers.samples import Line, find_play
from renderers.view import BLACK, WHITE, BoardView

GOLDEN = Path(__file__).with_name("golden")
WIDTH = 600
MEAN_TOLERANCE = 1.0
PIXEL_TOLERANCE = 48
PIXEL_SHARE = 0.002
NAMES = {WHITE: "Ayşe", BLACK: "Дмитрий"}


def tavla_opening() -> BoardView:
    tavla = variant_by_name("tavla")
    return BoardView.from_position(
        tavla, tavla.start_position(), WHITE, dice=(3, 1), names=NAMES, theme="classic"
    )


def tavla_double_hit() -> BoardView:
    tavla = variant_by_name("tavla")
    line = Line(tavla, names=NAMES, theme="dark").play((3, 1), "8/5 6/5")
    line.play((6, 4), "24/18 13/9").play((6, 4), "13/7* 5/1*")
    turn = Turn(tavla, line.position, (5, 2))
    targets = tuple(sorted({step.dest for step, _ in turn.targets(25)}))
    return line.view(dice=(5, 2), viewer=BLACK, selected=25, highlights=targets)


def tavla_bear_off_crawford() -> BoardView:
    tavla = variant_by_name("tavla")
    board = Position.from_points({6: 2, 5: 2, 4: 1, 2: 1}, {6: 3, 5: 3, 3: 2, 1: 2, 2: 1})
    play = find_play(tavla, board.swapped(), (6, 2), "6/off 2/off")
    return BoardView.from_position(
        tavla,
        play.after.swapped(),
        WHITE,
        dice=(4, 4),
        dice_used=(True, True, False),
        last_play=play.steps,
        last_play_color=BLACK,
        score={WHITE: 4, BLACK: 2},
        match_length=5,
        crawford=True,
        names=NAMES,
        theme="contrast",
        caption="Crawford game",
    )


def tavla_cube_8_black() -> BoardView:
    tavla = variant_by_name("tavla")
    board = Position.from_points({24: 2, 13: 3, 8: 2, 6: 7, 5: 1}, {24: 1, 13: 6, 8: 2, 6: 4, 4: 2})
    return BoardView.from_position(
        tavla,
        board,
        WHITE,
        cube_value=8,
        cube_owner=BLACK,
        score={WHITE: 3, BLACK: 1},
        match_length=7,
        names=NAMES,
        theme="classic",
    )


def uzun_heads() -> BoardView:
    uzun = variant_by_name("uzun")
    line = Line(uzun, names=NAMES, theme="classic").play((6, 5), "24/13").play((4, 3), "24/17")
    line.play((5, 2), "24/22 13/8")
    return line.view(dice=(6, 3), viewer=BLACK)


def uzun_six_block() -> BoardView:
    uzun = variant_by_name("uzun")
    board = Position.from_points(
        {24: 4, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 1}, {24: 9, 17: 2, 13: 2, 5: 2}
    )
    uzun.validate(board)
    return BoardView.from_position(
        uzun,
        board,
        WHITE,
        dice=(2, 1),
        dice_used=(True, False),
        last_play=(Step(8, 6),),
        last_play_color=WHITE,
        dice_color=WHITE,
        to_move=BLACK,
        names=NAMES,
        theme="dark",
    )


STATES: dict[str, Callable[[], BoardView]] = {
    "tavla-opening-classic": tavla_opening,
    "tavla-double-hit-dark": tavla_double_hit,
    "tavla-bear-off-crawford-contrast": tavla_bear_off_crawford,
    "tavla-cube-8-black-classic": tavla_cube_8_black,
    "uzun-heads-classic": uzun_heads,
    "uzun-six-block-dark": uzun_six_block,
    # The home board on the left: the same boards mirrored, the words not.
    "tavla-double-hit-dark-home-left": lambda: replace(tavla_double_hit(), home="left"),
    "uzun-heads-classic-home-left": lambda: replace(uzun_heads(), home="left"),
}


@pytest.mark.parametrize("name", sorted(STATES))
def test_matches_golden_image(name: str) -> None:
    data = render_png(STATES[name](), WIDTH)
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(data)
        pytest.skip(f"wrote {path}")
    assert path.exists(), f"no golden image {path.name}: run with UPDATE_GOLDEN=1 (see above)"
    got = Image.open(io.BytesIO(data)).convert("RGB")
    want = Image.open(path).convert("RGB")
    assert got.size == want.size
    diff = ImageChops.difference(got, want)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    far = diff.convert("L").point(lambda v: 255 if v > PIXEL_TOLERANCE else 0)
    share = ImageStat.Stat(far).mean[0] / 255
    assert mean < MEAN_TOLERANCE, f"{name}: mean difference {mean:.2f}"
    assert share < PIXEL_SHARE, f"{name}: {share:.2%} of the pixels differ clearly"
