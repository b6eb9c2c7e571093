"""GNU Backgammon Position IDs and Match IDs (core.gnubg)."""

from __future__ import annotations

import json
from base64 import b64encode
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidPositionError
from core.gnubg import (
    GAME_DROP,
    GAME_PLAYING,
    MatchIdInfo,
    match_id,
    match_id_info,
    position_from_id,
    position_id,
)
from core.position import BAR, CHECKERS, OFF, Position
from core.variants import Tavla, Uzun

GNUBG_CASES = Path("/work/shared/positions/tavla-gnubg.json")
START_ID = "4HPwATDgc/ABMA"


def pack_bits(bits: str, nbits: int) -> str:
    """Base64 (no padding) of ``nbits`` bits, the first of ``bits`` being bit 0 of byte 0."""
    assert len(bits) <= nbits
    bits = bits.ljust(nbits, "0")
    data = bytes(int(bits[i : i + 8][::-1], 2) for i in range(0, len(bits), 8))
    return b64encode(data).decode("ascii").rstrip("=")


def position_bits(bits: str) -> str:
    return pack_bits(bits, 80)


def match_bits(bits: str) -> str:
    return pack_bits(bits, 72)


def lsb_first(value: int, width: int) -> str:
    """``value`` as ``width`` bits, least significant first (gnubg's order)."""
    return format(value, f"0{width}b")[::-1]


# --- Position ID -------------------------------------------------------------------------


def test_start_position_id() -> None:
    assert position_id(Tavla().start_position()) == START_ID
    assert position_from_id(START_ID) == Tavla().start_position()


def test_start_position_bits_by_hand() -> None:
    # Points 1..24 then the bar: five empty, 5 on the 6, empty 7, 3 on the 8, four empty,
    # 5 on the 13, ten empty, 2 on the 24, empty bar. Both sides alike.
    side = "0" * 5 + "111110" + "0" + "1110" + "0" * 4 + "111110" + "0" * 10 + "110" + "0"
    assert len(side) == 40
    assert position_bits(side + side) == START_ID


def test_player_not_on_roll_comes_first() -> None:
    # Only the opponent has a checker on the board (on its 1 point); the mover has none.
    position = Position.from_points({}, {1: 1})
    assert position_id(position) == position_bits("10")
    assert position_from_id(position_id(position)) == position


def test_uzun_start_round_trips() -> None:
    start = Uzun().start_position()
    assert start.mover[24] == start.opponent[24] == CHECKERS
    pid = position_id(start)
    side = "0" * 23 + "1" * 15 + "0" + "0"
    assert pid == position_bits(side + side)
    assert position_from_id(pid) == start


def load_cases() -> list[dict]:
    return json.loads(GNUBG_CASES.read_text(encoding="utf-8"))["cases"]


@pytest.mark.skipif(not GNUBG_CASES.exists(), reason="shared gnubg positions not present")
def test_gnubg_positions_round_trip() -> None:
    cases = load_cases()
    assert cases
    for case in cases:
        pid = case["position"]
        position = position_from_id(pid)
        for side in position:
            assert len(side) == 26
            assert sum(side) == CHECKERS
        Tavla().validate(position)
        assert position_id(position) == pid, case["name"]


@st.composite
def tavla_positions(draw: st.DrawFn) -> Position:
    """Any distribution of 15 checkers a side over points, bar and off, no point shared."""
    # owner[p] for the mover's point p: 0 empty, 1 mover, 2 opponent (its point 25 - p).
    owners = draw(st.lists(st.integers(0, 2), min_size=24, max_size=24))
    mover_slots = [OFF, BAR] + [p for p in range(1, 25) if owners[p - 1] == 1]
    opponent_slots = [OFF, BAR] + [25 - p for p in range(1, 25) if owners[p - 1] == 2]
    sides = []
    for slots in (mover_slots, opponent_slots):
        side = [0] * 26
        for slot in draw(st.lists(st.sampled_from(slots), min_size=15, max_size=15)):
            side[slot] += 1
        sides.append(tuple(side))
    return Position(*sides)


@given(tavla_positions())
def test_position_id_round_trip(position: Position) -> None:
    if not (position.mover[0] == position.opponent[0] == 15):  # that board is not a game's
        Tavla().validate(position)
    pid = position_id(position)
    assert len(pid) == 14
    assert position_from_id(pid) == position
    assert position_from_id(position_id(position.swapped())) == position.swapped()


def _too_many_bits() -> str:
    # 14 checkers on the opponent's 24 and 15 on the mover's 24: 79 bits; then bit 79 set.
    return position_bits("0" * 23 + "1" * 14 + "00" + "0" * 23 + "1" * 15 + "00" + "1")


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("", "14 characters"),
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("4HPwATDgc/ABM=", "A-Z"),
        ("4HPwATDgc-ABMA", "A-Z"),
        ("4HPwATDgc/ABMB", "last character"),
        ("/////////////w", "more than 15"),
        (position_bits("1" * 15 + "0" * 25 + "1" * 16), "more than 15"),
        ("AAAAAAAAAAAA/w", "bits set after"),
        (_too_many_bits(), "bits set after"),
    ],
)
def test_malformed_position_ids(pid: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        position_from_id(pid)


def test_position_id_rejects_bad_positions() -> None:
    start = Tavla().start_position()
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        position_id(Position((*start.mover[:6], 6, *start.mover[7:]), start.opponent))
    with pytest.raises(InvalidPositionError, match="26 slots"):
        position_id(Position(start.mover[:25], start.opponent))


def test_all_borne_off_decodes() -> None:
    position = position_from_id("AAAAAAAAAAAAAA")
    assert position.mover[OFF] == position.opponent[OFF] == CHECKERS


# --- Match ID ----------------------------------------------------------------------------


def test_manual_example_match_id() -> None:
    # The gnubg manual's example: 9-point match, score 2-4, player 0 owns a 2-cube,
    # player 1 has rolled 52. Its bits, field by field, least significant bit first:
    bits = "1000 00 1 0 100 1 0 00 101 010 100100000000000 010000000000000 001000000000000"
    assert match_bits(bits.replace(" ", "")) == "QYkqASAAIAAA"
    info = MatchIdInfo(
        cube_value=2,
        cube_owner=0,
        on_roll=1,
        crawford=False,
        game_state=GAME_PLAYING,
        turn=1,
        doubled=False,
        resigned=0,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )
    assert match_id_info("QYkqASAAIAAA") == info
    assert match_id(info) == "QYkqASAAIAAA"


def test_hand_built_match_id() -> None:
    info = MatchIdInfo(
        cube_value=16,
        cube_owner=1,
        on_roll=0,
        crawford=True,
        game_state=GAME_DROP,
        turn=1,
        doubled=True,
        resigned=2,
        dice=(6, 3),
        match_length=25,
        score=(24, 17),
        jacoby=False,
    )
    bits = "".join(
        (
            lsb_first(4, 4),  # log2 of the cube
            lsb_first(1, 2),  # owner
            "0",  # on roll
            "1",  # Crawford
            lsb_first(4, 3),  # game state: dropped
            "1",  # turn
            "1",  # doubled
            lsb_first(2, 2),  # resignation: gammon
            lsb_first(6, 3),
            lsb_first(3, 3),
            lsb_first(25, 15),
            lsb_first(24, 15),
            lsb_first(17, 15),
            "1",  # Jacoby off
        )
    )
    assert len(bits) == 67
    assert match_id(info) == match_bits(bits)
    assert match_id_info(match_bits(bits)) == info


def test_new_money_game_match_id() -> None:
    info = match_id_info("cAkAAAAAAAAA")
    assert info == MatchIdInfo(on_roll=1, turn=1, game_state=GAME_PLAYING)
    assert info.cube_owner is None
    assert info.match_length == 0


def test_match_id_writes_higher_die_first() -> None:
    low_first = MatchIdInfo(dice=(2, 5), match_length=9, score=(2, 4))
    assert match_id(low_first) == match_id(MatchIdInfo(dice=(5, 2), match_length=9, score=(2, 4)))


@st.composite
def match_infos(draw: st.DrawFn) -> MatchIdInfo:
    match_length = draw(st.one_of(st.just(0), st.integers(1, 64), st.integers(1, 2**15 - 1)))
    score_max = match_length or 2**15 - 1
    dice = draw(st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    return MatchIdInfo(
        cube_value=2 ** draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([0, 1, None])),
        on_roll=draw(st.integers(0, 1)),
        crawford=bool(match_length) and draw(st.booleans()),
        game_state=draw(st.integers(0, 4)),
        turn=draw(st.integers(0, 1)),
        doubled=draw(st.booleans()),
        resigned=draw(st.integers(0, 3)),
        dice=(max(dice), min(dice)),
        match_length=match_length,
        score=(draw(st.integers(0, score_max)), draw(st.integers(0, score_max))),
        jacoby=draw(st.booleans()),
    )


@given(match_infos())
def test_match_id_round_trip(info: MatchIdInfo) -> None:
    mid = match_id(info)
    assert len(mid) == 12
    assert match_id_info(mid) == info


@pytest.mark.parametrize(
    ("mid", "message"),
    [
        ("QYkqASAAIAA", "12 characters"),
        ("QYkqASAAIAAAA", "12 characters"),
        ("QYkqASAAIAA=", "A-Z"),
        ("QYkqASAAIAA_", "A-Z"),
        ("QYkqASAAIAAI", "does not use"),  # bit 67
        (match_bits("0000" + "01"), "cube owner 2"),
        (match_bits("0000" + "11" + "00" + "101"), "game state"),
        (match_bits("0000" + "11" + "00" + "100" + "0000" + "111" + "100"), "dice"),
        (match_bits("0000" + "11" + "00" + "100" + "0000" + "100" + "000"), "both rolled"),
        (match_bits("0" * 21 + lsb_first(3, 15) + lsb_first(4, 15)), "exceeds"),
        (match_bits("0000" + "11" + "01"), "Crawford"),
    ],
)
def test_malformed_match_ids(mid: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        match_id_info(mid)


@pytest.mark.parametrize(
    "changes",
    [
        {"cube_value": 3},
        {"cube_value": 2**16},
        {"cube_owner": 2},
        {"on_roll": 2},
        {"game_state": 5},
        {"resigned": 4},
        {"dice": (7, 1)},
        {"match_length": 5, "score": (6, 0)},
    ],
)
def test_match_id_info_rejects_bad_fields(changes: dict) -> None:
    with pytest.raises(InvalidPositionError):
        MatchIdInfo(**changes)
