"""The home board on the left (``BoardView.home = "left"``): the board drawn as a mirror image.

Many players (in Turkey and the Caucasus especially) set up the board with their home on the
left: points 1..6 bottom left, 7..12 bottom right, 13..18 top right, 19..24 top left, the
trays on the left. The numbering does not change (``13/8`` is still typed and labelled so);
only where everything is drawn. These tests read :func:`renderers.board.layout`, the record
of what a picture draws where, as tests/test_render_geometry.py does.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import Image, ImageChops, ImageStat

from core.movegen import Step
from core.position import Position
from core.turn import Turn
from core.variants import variant_by_name
from renderers.board import Placed, background, layout
from renderers.geometry import Geometry, geometry
from renderers.picture import picture_key
from renderers.samples import NAMES, Line, find_play
from renderers.text import render_text
from renderers.view import BLACK, HOME_LEFT, HOME_RIGHT, WHITE, BoardView

WIDTHS = (1000, 640)


def mid_game(name: str, theme: str = "classic") -> BoardView:
    """A board with something of everything: a hit, the bar, a selected checker, targets."""
    variant = variant_by_name(name)
    if name == "uzun":
        line = Line(variant, names=NAMES, theme=theme).play((6, 5), "24/13")
        line.play((4, 3), "24/17").play((5, 2), "24/22 13/8")
        turn = Turn(variant, line.position, (6, 3))
        targets = tuple(sorted({step.dest for step, _ in turn.targets(24)}))
        return line.view(dice=(6, 3), viewer=BLACK, selected=24, highlights=targets)
    line = Line(variant, names=NAMES, theme=theme).play((3, 1), "8/5 6/5")
    line.play((6, 4), "24/18 13/9").play((6, 4), "13/7* 5/1*")
    turn = Turn(variant, line.position, (5, 2))
    targets = tuple(sorted({step.dest for step, _ in turn.targets(25)}))
    cube = {"cube_value": 2, "cube_owner": WHITE} if variant.cube else {}
    return line.view(dice=(5, 2), viewer=BLACK, selected=25, highlights=targets, **cube)


def bear_off() -> BoardView:
    """Both sides bearing off: checkers in both trays, a borne-off target, the cube owned."""
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
        cube_value=4,
        cube_owner=BLACK,
        highlights=(0, 2),
        selected=4,
        caption="Crawford game",
    )


BOARDS = {
    "tavla": lambda: mid_game("tavla"),
    "turkish": lambda: mid_game("turkish"),
    "uzun": lambda: mid_game("uzun"),
    "bear-off": bear_off,
    "uzun-white": lambda: replace(mid_game("uzun"), viewer=WHITE),
}


def same_drawings(a: list[Placed], b: list[Placed]) -> bool:
    """Whether ``a`` and ``b`` draw the same things in the same boxes (in any order)."""
    rest = list(b)
    for placed in a:
        for i, other in enumerate(rest):
            if placed[:3] == other[:3] and placed.box == pytest.approx(other.box, abs=1e-6):
                del rest[i]
                break
        else:
            return False
    return not rest


def mirror(drawings: list[Placed], width: int) -> list[Placed]:
    return [p._replace(box=p.box.mirrored(width)) for p in drawings]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("board", sorted(BOARDS))
def test_everything_drawn_is_mirrored_exactly(board: str, width: int) -> None:
    right = BOARDS[board]()
    drawn_right = layout(right, width)
    drawn_left = layout(replace(right, home=HOME_LEFT), width)
    assert {p.kind for p in drawn_left} >= {"checker", "ghost", "moved", "selected", "target"}
    assert same_drawings(drawn_left, mirror(drawn_right, width))
    # The layouts do differ: a mirror that changed nothing would pass the line above too.
    assert not same_drawings(drawn_left, drawn_right)


@pytest.mark.parametrize("width", WIDTHS)
def test_point_1_is_bottom_left_and_the_numbering_runs_clockwise(width: int) -> None:
    geo = geometry(width, home=HOME_LEFT)
    xs = {p: geo.column(p).centre[0] for p in range(1, 25)}
    # Bottom row: 1 at the far left to 12 at the far right; top row 24 at the far left to 13.
    assert sorted(range(1, 13), key=lambda p: xs[p]) == list(range(1, 13))
    assert sorted(range(13, 25), key=lambda p: xs[p]) == list(range(24, 12, -1))
    for p in range(1, 25):
        assert (geo.column(p).y1 <= geo.mid_y + 1e-6) == (p >= 13)
        assert geo.column(p).centre[0] == pytest.approx(geo.column(25 - p).centre[0])
    # The home boards left of the bar, the outer boards right of it.
    for p in (*range(1, 7), *range(19, 25)):
        assert geo.column(p).x1 <= geo.bar.x0
        assert geo.home_field.contains_rect(geo.column(p))
    for p in range(7, 19):
        assert geo.column(p).x0 >= geo.bar.x1
        assert geo.outer_field.contains_rect(geo.column(p))
    # The trays beside the home board, the cube's rail on the other side.
    assert all(tray.x1 <= geo.field.x0 for tray in geo.trays.values())
    assert geo.rail.x0 >= geo.field.x1
    assert geo.label_centre(1)[0] < geo.label_centre(12)[0]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("caption", [False, True])
def test_geometry_is_the_mirror_image(width: int, caption: bool) -> None:
    right = Geometry(width, caption)
    left = Geometry(width, caption, HOME_LEFT)
    assert (left.width, left.height) == (right.width, right.height)
    for p in range(1, 25):
        assert left.column(p) == pytest.approx(right.column(p).mirrored(width))
        # The same corners (the two base corners change places).
        reflected = sorted((width - x, y) for x, y in right.triangle(p))
        for a, b in zip(sorted(left.triangle(p)), reflected, strict=True):
            assert a == pytest.approx(b)
        for i in range(6):
            x, y = right.checker_centre(p, i)
            assert left.checker_centre(p, i) == pytest.approx((width - x, y))
        assert left.label_centre(p) == pytest.approx(
            (width - right.label_centre(p)[0], right.label_centre(p)[1])
        )
    for name in ("rail", "bar", "field", "tray_column", "home_field", "outer_field"):
        assert getattr(left, name) == pytest.approx(getattr(right, name).mirrored(width)), name
    for top in (True, False):
        for i in range(15):
            assert left.tray_slot(top, i) == pytest.approx(right.tray_slot(top, i).mirrored(width))
    # The name strips and the caption band (text) stay where they are.
    assert (left.header, left.footer, left.caption_band) == (
        right.header,
        right.footer,
        right.caption_band,
    )


def test_the_viewers_borne_off_checkers_and_the_cube() -> None:
    view = replace(bear_off(), home=HOME_LEFT)
    geo = geometry(1000, caption=True, home=HOME_LEFT)
    placed = layout(view)
    trays = [p for p in placed if p.kind == "tray"]
    assert {p.color for p in trays} == {WHITE, BLACK}
    for p in trays:
        # Each side's borne-off checkers in its own tray, on the left of the board.
        assert geo.trays["bottom" if p.color == view.viewer else "top"].contains_rect(p.box)
        assert p.box.x1 < geo.field.x0
    # The viewer may bear off: the target is their tray, bottom left.
    target = next(p for p in placed if p.kind == "target" and p.where == 0)
    assert geo.trays["bottom"].contains_rect(target.box)
    # The cube, owned by the opponent (at the top), on the rail at the right.
    cube = next(p for p in placed if p.kind == "cube")
    assert geo.rail.contains_rect(cube.box)
    assert cube.box.y1 < geo.mid_y
    assert cube.box.x0 > geo.field.x1


@pytest.mark.parametrize("name", ["tavla", "uzun"])
def test_dice_on_the_rollers_half(name: str) -> None:
    variant = variant_by_name(name)
    start = variant.start_position()
    geo = geometry(1000, home=HOME_LEFT)
    for roller, half in ((WHITE, geo.home_field), (BLACK, geo.outer_field)):
        view = BoardView.from_position(variant, start, roller, viewer=WHITE, dice=(4, 2))
        dice = [p for p in layout(replace(view, home=HOME_LEFT)) if p.kind == "die"]
        assert len(dice) == 2
        assert all(half.contains_rect(p.box) for p in dice)
        # The dice are still read from left to right, like the roll written "4-2".
        assert dice[0].box.x0 < dice[1].box.x0


def test_13_8_is_still_labelled_13_and_8_top_right_and_bottom_right() -> None:
    tavla = variant_by_name("tavla")
    play = Position.from_points({24: 2, 13: 4, 8: 4, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    view = BoardView.from_position(
        tavla, play, WHITE, last_play=(Step(13, 8),), last_play_color=WHITE, home=HOME_LEFT
    )
    geo = geometry(1000, home=HOME_LEFT)
    placed = layout(view)
    ghost = next(p for p in placed if p.kind == "ghost")
    moved = next(p for p in placed if p.kind == "moved")
    assert (ghost.where, moved.where) == (13, 8)
    assert geo.column(13).contains_rect(ghost.box)
    assert geo.column(8).contains_rect(moved.box)
    assert ghost.box.x0 > geo.bar.x1
    assert ghost.box.y1 < geo.mid_y
    assert moved.box.x0 > geo.bar.x1
    assert moved.box.y0 > geo.mid_y


@pytest.mark.parametrize("theme", ["classic", "dark", "contrast"])
@pytest.mark.parametrize("uzun", [False, True])
def test_the_static_board_is_drawn_mirrored(theme: str, uzun: bool) -> None:
    """The points and the field (not the wood grain, not the numbers) are a mirror image."""
    width = 600
    geo = geometry(width)
    right = background(theme, width, uzun, False, HOME_RIGHT)
    left = background(theme, width, uzun, False, HOME_LEFT)
    box = geo.field.inset(2).box()
    flipped = left.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    diff = ImageChops.difference(flipped.crop(box), right.crop(box))
    assert sum(ImageStat.Stat(diff).mean) / 3 < 0.5
    assert ImageChops.difference(left.crop(box), right.crop(box)).getbbox() is not None


def test_home_is_checked_and_is_part_of_the_picture_key() -> None:
    view = mid_game("tavla")
    assert view.home == HOME_RIGHT
    left = replace(view, home=HOME_LEFT)
    assert picture_key(left) != picture_key(view)
    assert picture_key(left) == picture_key(replace(view, home="left"))
    with pytest.raises(ValueError, match="home"):
        replace(view, home="up")
    with pytest.raises(ValueError, match="home"):
        Geometry(1000, home="Left")


def _board_cells(line: str) -> tuple[list[str], str]:
    """A text board row ``|6 cells|bar|6 cells|`` as its 12 point cells and its bar cell."""
    assert line[0] == line[19] == line[23] == line[42] == "|", line
    cells = [line[1 + 3 * i : 4 + 3 * i] for i in range(6)]
    cells += [line[24 + 3 * i : 27 + 3 * i] for i in range(6)]
    return cells, line[20:23]


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_text_board_is_mirrored_too(board: str) -> None:
    right = BOARDS[board]()
    text_right = render_text(right).splitlines()
    text_left = render_text(replace(right, home=HOME_LEFT)).splitlines()
    assert len(text_left) == len(text_right)
    rows = range(2, 13)  # between the frame lines
    for i in rows:
        a = text_left[i][:43]
        b = text_right[i][:43]
        if "BAR" in b:
            assert a == b
            continue
        cells_a, bar_a = _board_cells(a)
        cells_b, bar_b = _board_cells(b)
        assert cells_a == cells_b[::-1]
        assert bar_a == bar_b
        # The words written beside the board stay the same.
        assert text_left[i][43:] == text_right[i][43:]
    for i in (0, 14):  # the point numbers above and below the board
        assert text_left[i][:43].split() == text_right[i][:43].split()[::-1]
    assert text_left[14][:43].split() == [str(p) for p in range(1, 13)]


def test_the_text_boards_bar_is_named_in_the_boards_language_and_uzun_has_none() -> None:
    """The middle of the text board said "BAR" in Latin letters to a Russian reader, and in
    Uzun Tavla, where nothing is ever hit and there is no bar (U-3)."""
    from bot.service.presenter import picture_labels

    def middle(name: str, lang: str) -> str:
        variant = variant_by_name(name)
        view = BoardView.from_position(
            variant, variant.start_position(), WHITE, labels=picture_labels(lang)
        )
        from renderers.text import ROWS

        return render_text(view).splitlines()[2 + ROWS][19:24]  # numbers, frame, upper half

    assert middle("tavla", "en") == "|BAR|"
    assert middle("tavla", "ru") == "|БАР|"
    assert middle("turkish", "tr") == "|BAR|"  # "kırık" does not fit: Turkish says bar too
    assert middle("uzun", "ru") == "|   |"
