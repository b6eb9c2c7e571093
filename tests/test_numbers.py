"""Outside numbers are read one way: ASCII digits only, within range (bot.service.numbers)."""

from __future__ import annotations

import pytest

from bot.service.numbers import MAX_ID, parse_id, parse_number


@pytest.mark.parametrize(
    "text",
    ["", "²", "١٢", "𝟙", "٣", "1²", "-1", "+1", " 1", "1 ", "1_000", "0x10", "1.0", "9" * 5000],
)
def test_anything_but_ascii_digits_is_refused(text):
    assert parse_number(text) is None


def test_numbers_past_a_64_bit_signed_integer_are_refused():
    assert parse_number(str(MAX_ID)) == MAX_ID
    assert parse_number(str(MAX_ID + 1)) is None
    assert parse_number(str(2**64)) is None


def test_the_fields_own_range_holds():
    assert parse_number("7", 1, 25) == 7
    assert parse_number("0", 1, 25) is None
    assert parse_number("26", 1, 25) is None
    assert parse_number("007") == 7


def test_an_id_is_positive():
    assert parse_id("0") is None
    assert parse_id("42") == 42
