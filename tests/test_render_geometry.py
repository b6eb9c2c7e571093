"""Board geometry: every checker, marker and tray drawn where it belongs.

These tests read :func:`renderers.board.layout`, the record of what a picture draws where,
so they check the real drawing code, not only the layout arithmetic.
"""

from __future__ import annotations

import itertools

import pytest

from core.movegen import Step
from core.position import Position
from core.variants import variant_by_name
from renderers.board import layout
from renderers.geometry import MAX_BAR, MAX_STACK, Geometry, geometry
from renderers.view import BLACK, HOMES, WHITE, BoardView, other

WIDTHS = (1000, 640)
VARIANTS = ("tavla", "uzun")
VIEWERS = (WHITE, BLACK)


def spread_position(name: str) -> Position:
    """A board with a checker on every one of the 24 points (the mover's 1..12, 3 more on 6)."""
    variant = variant_by_name(name)
    mover = dict.fromkeys(range(1, 13), 1) | {6: 4}
    opponent = dict.fromkeys(range(1, 13), 1) | {12: 4}
    position = Position.from_points(mover, opponent)
    variant.validate(position)
    return position


def inside_triangle(pt: tuple[float, float], tri: tuple[tuple[float, float], ...]) -> bool:
    """Whether ``pt`` lies inside (or on the edge of) the triangle ``tri``."""
    (x, y), (a, b, c) = pt, tri

    def cross(p: tuple[float, float], q: tuple[float, float]) -> float:
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])

    signs = [cross(a, b), cross(b, c), cross(c, a)]
    return all(s >= -1e-9 for s in signs) or all(s <= 1e-9 for s in signs)


def expected_viewer_point(name: str, color: str, viewer: str, own: int) -> int:
    """The viewer's number of ``color``'s point ``own``, from the rules (rules.md)."""
    if color == viewer:
        return own
    if name == "uzun":
        return (own + 11) % 24 + 1  # the shift by 12 is its own inverse
    return 25 - own


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("viewer", VIEWERS)
@pytest.mark.parametrize("name", VARIANTS)
def test_each_points_checkers_are_inside_its_triangle(
    name: str, viewer: str, width: int, home: str
) -> None:
    variant = variant_by_name(name)
    position = spread_position(name)
    view = BoardView.from_position(variant, position, WHITE, viewer=viewer, home=home)
    geo = geometry(width, home=home)
    drawn = [p for p in layout(view, width) if p.kind == "checker"]
    assert {p.where for p in drawn} == set(range(1, 25))
    for placed in drawn:
        col = geo.column(placed.where)
        assert col.contains_rect(placed.box), (placed, col)
        # Centred on the triangle's axis, and its centre inside the triangle.
        tri = geo.triangle(placed.where)
        assert placed.box.centre[0] == pytest.approx(tri[2][0])
        assert inside_triangle(placed.box.centre, tri)
    # Each colour's checkers stand on the points the rules give them.
    for color in (WHITE, BLACK):
        side = view.side(color)
        expected = {
            expected_viewer_point(name, color, viewer, own): n
            for own, n in enumerate(side)
            if 1 <= own <= 24 and n
        }
        got: dict[int, int] = {}
        for placed in drawn:
            if placed.color == color:
                got[placed.where] = got.get(placed.where, 0) + 1
        assert got == {p: min(n, MAX_STACK) for p, n in expected.items()}


@pytest.mark.parametrize("width", WIDTHS)
def test_rows_and_order_of_points(width: int) -> None:
    geo = geometry(width)
    xs = {p: geo.column(p).centre[0] for p in range(1, 25)}
    # Bottom row: 12 at the far left down to 1 at the far right; top row 13 .. 24.
    assert sorted(range(1, 13), key=lambda p: xs[p]) == list(range(12, 0, -1))
    assert sorted(range(13, 25), key=lambda p: xs[p]) == list(range(13, 25))
    for p in range(1, 25):
        top = geo.column(p).y1 <= geo.mid_y + 1e-6
        assert top == (p >= 13)
        assert geo.column(p).centre[0] == pytest.approx(geo.column(25 - p).centre[0])
    # Home boards on the right of the bar, outer boards on the left.
    for p in (*range(1, 7), *range(19, 25)):
        assert geo.column(p).x0 >= geo.bar.x1
    for p in range(7, 19):
        assert geo.column(p).x1 <= geo.bar.x0


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("point", range(1, 25))
def test_tall_stacks_stay_inside(point: int, width: int) -> None:
    tavla = variant_by_name("tavla")
    other_point = 24 if point != 1 else 23
    position = Position.from_points({point: 15}, {other_point: 15})
    tavla.validate(position)
    view = BoardView.from_position(tavla, position, WHITE)
    geo = geometry(width)
    drawn = [p for p in layout(view, width) if p.kind == "checker" and p.where == point]
    assert len(drawn) == MAX_STACK
    col = geo.column(point)
    band = geo.gap / 2
    # No two drawn on top of each other.
    for a, b in itertools.combinations(drawn, 2):
        assert abs(a.box.centre[1] - b.box.centre[1]) >= geo.checker - 1e-6
    for placed in drawn:
        assert col.contains_rect(placed.box)
        # The middle band (dice, bar checkers' start) stays free.
        assert placed.box.y1 <= geo.mid_y - band + 1e-6 or placed.box.y0 >= geo.mid_y + band - 1e-6
    # A place beyond the fifth is the fifth, which carries the count.
    assert geo.checker_centre(point, 14) == geo.checker_centre(point, MAX_STACK - 1)


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_bar_trays_rail_and_dice_are_apart_from_the_points(width: int, home: str) -> None:
    geo = geometry(width, home=home)
    columns = [geo.column(p) for p in range(1, 25)]
    regions = {"bar": geo.bar, "rail": geo.rail, **geo.trays}
    for (name_a, a), (name_b, b) in itertools.combinations(regions.items(), 2):
        assert not a.intersects(b), (name_a, name_b)
    for name, rect in regions.items():
        for p, col in enumerate(columns, start=1):
            assert not rect.intersects(col), (name, p)
    for top in (True, False):
        slots = [geo.tray_slot(top, i) for i in range(15)]
        tray = geo.trays["top" if top else "bottom"]
        for slot in slots:
            assert tray.contains_rect(slot)
        for a, b in itertools.pairwise(slots):
            assert not a.intersects(b)
        assert tray.contains(*geo.tray_label_centre(top))
    for owner in ("top", None, "bottom"):
        x, y = geo.cube_centre(owner)
        r = geo.cube_size / 2
        assert geo.rail.contains(x - r, y - r)
        assert geo.rail.contains(x + r, y + r)
    places = [geo.checker_centre(p, i) for p in range(1, 25) for i in range(MAX_STACK)]
    for count, home_half in itertools.product((1, 2, 4), (True, False)):
        half = geo.home_field if home_half else geo.outer_field
        for x, y in geo.dice_centres(count, home_half):
            r = geo.die_size / 2
            assert half.contains(x - r, y - r)
            assert half.contains(x + r, y + r)
            for cx, cy in places:
                assert abs(cx - x) >= r + geo.checker / 2 or abs(cy - y) >= r + geo.checker / 2


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("viewer", VIEWERS)
def test_bar_checkers_and_borne_off_in_their_places(viewer: str, home: str) -> None:
    tavla = variant_by_name("tavla")
    position = Position.from_points({6: 3, 5: 2}, {20: 2}, mover_bar=5, opponent_bar=2)
    view = BoardView.from_position(tavla, position, WHITE, viewer=viewer, home=home)
    geo = geometry(1000, home=home)
    drawn = layout(view)
    bar = [p for p in drawn if p.kind == "bar"]
    assert len([p for p in bar if p.color == WHITE]) == MAX_BAR  # 5 shown as 3 and a count
    assert len([p for p in bar if p.color == BLACK]) == 2
    for placed in bar:
        assert geo.bar.contains_rect(placed.box)
        upper = placed.box.y1 <= geo.mid_y
        assert upper == (placed.color == viewer)  # the viewer's wait beside where they enter
    trays = [p for p in drawn if p.kind == "tray"]
    assert len([p for p in trays if p.color == WHITE]) == position.mover[0] == 5
    assert len([p for p in trays if p.color == BLACK]) == position.opponent[0] == 11
    for placed in trays:
        tray = geo.trays["bottom" if placed.color == viewer else "top"]
        assert tray.contains_rect(placed.box)


def test_viewer_flip_maps_13_8_to_the_points_labelled_so() -> None:
    tavla = variant_by_name("tavla")
    start = tavla.start_position()
    play = Position.from_points({24: 2, 13: 4, 8: 4, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    geo = geometry(1000)
    fields = {"last_play": (Step(13, 8),), "last_play_color": WHITE}
    expected = {WHITE: (13, 8), BLACK: (12, 17)}
    for viewer, (ghost_at, moved_at) in expected.items():
        view = BoardView.from_position(tavla, play, WHITE, viewer=viewer, **fields)
        drawn = layout(view)
        ghost = next(p for p in drawn if p.kind == "ghost")
        moved = next(p for p in drawn if p.kind == "moved")
        assert (ghost.where, moved.where) == (ghost_at, moved_at)
        assert geo.column(ghost_at).contains_rect(ghost.box)
        assert geo.column(moved_at).contains_rect(moved.box)
    # What White types as 13/8 is what White sees labelled 13 and 8: top left, bottom left.
    assert geo.label_centre(13)[0] < geo.bar.x0
    assert geo.label_centre(13)[1] < geo.mid_y
    assert geo.label_centre(8)[0] < geo.bar.x0
    assert geo.label_centre(8)[1] > geo.mid_y
    view = BoardView.from_position(tavla, start, WHITE, viewer=BLACK)
    assert [view.to_viewer(WHITE, p) for p in (13, 8, 24, 1)] == [12, 17, 1, 24]
    assert [view.to_viewer(BLACK, p) for p in (13, 8, 25, 0)] == [13, 8, 25, 0]


def test_uzun_heads_are_marked_for_both_sides() -> None:
    uzun = variant_by_name("uzun")
    for viewer in VIEWERS:
        view = BoardView.from_position(uzun, uzun.start_position(), WHITE, viewer=viewer)
        heads = {p.color: p.where for p in layout(view) if p.kind == "head"}
        assert heads == {viewer: 24, other(viewer): 12}
        stacks = {p.where for p in layout(view) if p.kind == "checker"}
        assert stacks == {24, 12}


@pytest.mark.parametrize("home", HOMES)
def test_markers_of_a_hit_and_of_highlights(home: str) -> None:
    tavla = variant_by_name("tavla")
    # White has just hit on its 5 (Black's 20): the Black checker waits on the bar.
    after = Position.from_points(
        {13: 5, 8: 3, 6: 5, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 4}, opponent_bar=1
    )
    view = BoardView.from_position(
        tavla,
        after.swapped(),
        BLACK,
        viewer=WHITE,
        dice=(4, 3),
        last_play=(Step(13, 10), Step(10, 5, True)),
        last_play_color=WHITE,
        highlights=(21, 22),
        selected=25,
        home=home,
    )
    geo = geometry(1000, home=home)
    drawn = layout(view)
    kinds = {(p.kind, p.where) for p in drawn}
    assert {("ghost", 13), ("moved", 5), ("hit", 5), ("hit_bar", 25), ("selected", 25)} <= kinds
    assert {("target", 21), ("target", 22)} <= kinds
    for placed in drawn:
        if placed.kind in ("target", "ghost", "moved"):
            assert geo.column(placed.where).contains_rect(placed.box)
        if placed.kind in ("hit_bar", "selected"):
            assert geo.bar.contains_rect(placed.box)
    dice = [p for p in drawn if p.kind == "die"]
    assert len(dice) == 2
    # Black's dice (the opponent's) on the viewer's outer half.
    assert all(geo.outer_field.contains_rect(p.box) for p in dice)


def test_geometry_scales_with_width() -> None:
    small, big = Geometry(500), Geometry(1000)
    assert big.height == pytest.approx(2 * small.height, abs=1)
    for p in (1, 12, 13, 24):
        assert big.column(p).x0 == pytest.approx(2 * small.column(p).x0)
    assert Geometry(1000, caption=True).height > big.height
    with pytest.raises(ValueError, match="outside"):
        big.column(25)
