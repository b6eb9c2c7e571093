"""Tests of core.dice: rules.md Common ground: dice (fair dice) and design.md "Dice"."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import dice as dice_module
from core.dice import (
    DiceExhaustedError,
    DiceSource,
    FixedDice,
    FixedDiceError,
    RandomDice,
    SeededDice,
    commitment_of,
    derive_rolls,
    dice_name_tr,
    verify_game_rolls,
)

# A seed whose first dice were checked by hand with OpenSSL, as the module docstring shows:
# printf '%016x' N | xxd -r -p | openssl dgst -sha256 -mac HMAC -macopt hexkey:000102…1f
KNOWN_SEED = bytes(range(32))
KNOWN_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
# HMAC digests start 9f, c4, f9, 96, f8, 1d → 159, 196, 249, 150, 248, 29 → %6 + 1.
KNOWN_FIRST_DICE = [4, 5, 4, 1, 3, 6]

seeds = st.binary(min_size=32, max_size=32)


def reference_die(seed: bytes, nonce: int) -> tuple[int, int]:
    """The derivation written out again from the module docstring, independently of core."""
    while True:
        digest = hmac.new(seed, nonce.to_bytes(8, "big"), hashlib.sha256).digest()
        nonce += 1
        accepted = [byte for byte in digest if byte < 252]
        if accepted:
            return accepted[0] % 6 + 1, nonce


def chi_square(counts: Counter[object], cells: list[object]) -> float:
    total = sum(counts[cell] for cell in cells)
    expected = total / len(cells)
    return sum((counts[cell] - expected) ** 2 / expected for cell in cells)


# --- SeededDice: the documented derivation -----------------------------------------------------


def test_known_answer_vector_common_ground_dice() -> None:
    """rules.md Common ground: dice — the dice of a fixed seed, checked by hand with OpenSSL."""
    source = SeededDice(KNOWN_SEED)
    assert source.commitment == KNOWN_COMMITMENT
    assert [source.roll_one() for _ in KNOWN_FIRST_DICE] == KNOWN_FIRST_DICE
    assert source.nonce == len(KNOWN_FIRST_DICE)


def test_rejected_bytes_are_skipped_within_a_digest() -> None:
    """Bytes >= 252 are rejected: nonce 49's digest starts fe 65 → 0x65 = 101 → 6;
    nonce 158's starts ff fd 81 → 0x81 = 129 → 4. Each still consumes one nonce."""
    assert derive_rolls(KNOWN_SEED.hex(), [1], nonce=49) == [(6,)]
    assert derive_rolls(KNOWN_SEED.hex(), [1], nonce=158) == [(4,)]
    source = SeededDice(KNOWN_SEED, nonce=49)
    assert source.roll_one() == 6
    assert source.nonce == 50


def test_a_wholly_rejected_digest_moves_to_the_next_nonce(monkeypatch: pytest.MonkeyPatch) -> None:
    """If all 32 bytes are >= 252 the die comes from the next nonce (and uses two nonces)."""
    real_digest = hmac.digest

    def digest(key: bytes, msg: bytes, name: str) -> bytes:
        if msg == (0).to_bytes(8, "big"):
            return b"\xff" * 32
        return real_digest(key, msg, name)

    monkeypatch.setattr(dice_module.hmac, "digest", digest)
    source = SeededDice(KNOWN_SEED)
    assert source.roll_one() == KNOWN_FIRST_DICE[1]
    assert source.nonce == 2


@given(seed=seeds, nonce=st.integers(0, 2**40), count=st.integers(1, 20))
def test_matches_reference_derivation(seed: bytes, nonce: int, count: int) -> None:
    """rules.md Common ground: dice — SeededDice follows the documented derivation exactly."""
    source = SeededDice(seed, nonce)
    expected = []
    for _ in range(count):
        die, nonce = reference_die(seed, nonce)
        expected.append(die)
    assert [source.roll_one() for _ in range(count)] == expected
    assert source.nonce == nonce


def test_roll_is_two_single_dice_in_order() -> None:
    first, second = SeededDice(KNOWN_SEED).roll()
    assert (first, second) == tuple(KNOWN_FIRST_DICE[:2])


# --- SeededDice: determinism, restorability, commitment ----------------------------------------


@given(seed=seeds, nonce=st.integers(0, 2**32))
def test_same_seed_and_nonce_give_the_same_rolls(seed: bytes, nonce: int) -> None:
    one, two = SeededDice(seed, nonce), SeededDice(seed, nonce)
    assert [one.roll() for _ in range(10)] == [two.roll() for _ in range(10)]


@given(seed=seeds, before=st.integers(0, 15), after=st.integers(1, 15))
def test_resuming_from_stored_state_continues_the_stream(
    seed: bytes, before: int, after: int
) -> None:
    """design.md: a game stored in the database resumes the same dice stream."""
    uninterrupted = SeededDice(seed)
    stream = [uninterrupted.roll() for _ in range(before + after)]

    playing = SeededDice(seed)
    played = [playing.roll() for _ in range(before)]
    stored = playing.to_dict()
    assert stored == {"seed": seed.hex(), "nonce": playing.nonce}
    resumed = SeededDice.from_dict(stored)
    assert resumed.commitment == playing.commitment
    assert played + [resumed.roll() for _ in range(after)] == stream


@given(seed=seeds)
def test_commitment_is_sha256_of_the_seed(seed: bytes) -> None:
    source = SeededDice(seed)
    assert source.commitment == hashlib.sha256(seed).hexdigest() == commitment_of(seed)
    assert source.seed_hex == seed.hex()


def test_default_seed_is_fresh_and_secret() -> None:
    one, two = SeededDice(), SeededDice()
    assert len(bytes.fromhex(one.seed_hex)) == 32
    assert one.seed_hex != two.seed_hex
    assert one.nonce == 0
    assert one.seed_hex not in repr(one)


@pytest.mark.parametrize("seed", [b"", b"short", bytes(31), bytes(33)])
def test_seed_must_be_32_bytes(seed: bytes) -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        SeededDice(seed)


def test_nonce_must_not_be_negative() -> None:
    with pytest.raises(ValueError, match="nonce"):
        SeededDice(KNOWN_SEED, -1)


def test_sources_satisfy_the_protocol() -> None:
    for source in (SeededDice(), FixedDice([]), RandomDice(1)):
        assert isinstance(source, DiceSource)


# --- Verification ------------------------------------------------------------------------------


def play_a_game(source: SeededDice) -> list[tuple[int, ...]]:
    """Record draws as a game does: an opening roll (with a tie re-rolled), then rolls."""
    record: list[tuple[int, ...]] = []
    while True:
        white, black = source.roll_one(), source.roll_one()
        record += [(white,), (black,)]
        if white != black:
            break
    record += [source.roll() for _ in range(30)]
    return record


@given(seed=seeds)
def test_verification_accepts_an_honest_record(seed: bytes) -> None:
    """design.md "Dice": the revealed seed re-derives every roll of the game."""
    source = SeededDice(seed)
    commitment = source.commitment
    record = play_a_game(source)
    result = verify_game_rolls(source.seed_hex, commitment, record)
    assert result
    assert result.reason == "ok"
    assert derive_rolls(source.seed_hex, [len(draw) for draw in record]) == record


def test_verification_accepts_upper_case_and_spaces() -> None:
    source = SeededDice(KNOWN_SEED)
    record = play_a_game(source)
    assert verify_game_rolls(f" {source.seed_hex.upper()} ", KNOWN_COMMITMENT.upper(), record)


def test_verification_accepts_an_empty_record() -> None:
    assert verify_game_rolls(KNOWN_SEED.hex(), KNOWN_COMMITMENT, [])


@given(seed=seeds, data=st.data())
def test_verification_names_the_first_changed_roll(seed: bytes, data: st.DataObject) -> None:
    source = SeededDice(seed)
    record = play_a_game(source)
    index = data.draw(st.integers(0, len(record) - 1), label="index")
    original = record[index]
    changed = tuple(data.draw(st.integers(1, 6)) for _ in original)
    if changed == original:
        changed = tuple(die % 6 + 1 for die in original)
    record[index] = changed
    result = verify_game_rolls(source.seed_hex, source.commitment, record)
    assert not result
    assert result.reason == "roll_mismatch"
    assert result.index == index
    assert result.expected == original
    assert result.recorded == changed


def test_verification_fails_on_swapped_dice_order() -> None:
    """The order drawn is part of the record: 6-4 recorded as 4-6 is a mismatch."""
    source = SeededDice(KNOWN_SEED)
    record = play_a_game(source)
    index = next(i for i, draw in enumerate(record) if len(draw) == 2 and draw[0] != draw[1])
    record[index] = record[index][::-1]
    result = verify_game_rolls(source.seed_hex, source.commitment, record)
    assert result.reason == "roll_mismatch"
    assert result.index == index


def test_verification_fails_on_a_wrong_seed() -> None:
    """A different seed fails: its hash is not the commitment published at the start."""
    source = SeededDice(KNOWN_SEED)
    record = play_a_game(source)
    other = SeededDice()
    result = verify_game_rolls(other.seed_hex, source.commitment, record)
    assert not result
    assert result.reason == "commitment_mismatch"


def test_verification_fails_on_a_wrong_seed_even_with_its_own_commitment() -> None:
    """Someone swapping both seed and commitment still cannot reproduce the rolls."""
    source = SeededDice(KNOWN_SEED)
    record = play_a_game(source)
    other = SeededDice(bytes(32))
    result = verify_game_rolls(other.seed_hex, other.commitment, record)
    assert not result
    assert result.reason == "roll_mismatch"


def test_verification_fails_on_a_wrong_commitment() -> None:
    source = SeededDice(KNOWN_SEED)
    record = play_a_game(source)
    wrong = hashlib.sha256(b"something else").hexdigest()
    result = verify_game_rolls(source.seed_hex, wrong, record)
    assert not result
    assert result.reason == "commitment_mismatch"


@pytest.mark.parametrize("seed_hex", ["", "zz" * 32, "00" * 31, "0" * 63])
def test_verification_reports_a_malformed_seed(seed_hex: str) -> None:
    result = verify_game_rolls(seed_hex, KNOWN_COMMITMENT, [(1, 2)])
    assert not result
    assert result.reason == "bad_seed"


@pytest.mark.parametrize("draw", [(), (1, 2, 3)])
def test_verification_reports_a_malformed_record(draw: tuple[int, ...]) -> None:
    result = verify_game_rolls(KNOWN_SEED.hex(), KNOWN_COMMITMENT, [(4,), draw])
    assert result.reason == "bad_record"
    assert result.index == 1


def test_verification_from_a_later_nonce() -> None:
    """A record that starts mid-stream is verified from the nonce where it started."""
    source = SeededDice(KNOWN_SEED, nonce=100)
    record = [source.roll() for _ in range(5)]
    assert verify_game_rolls(KNOWN_SEED.hex(), KNOWN_COMMITMENT, record, nonce=100)
    assert not verify_game_rolls(KNOWN_SEED.hex(), KNOWN_COMMITMENT, record)


def test_derive_rolls_rejects_bad_draw_sizes() -> None:
    with pytest.raises(ValueError, match="1 or 2 dice"):
        derive_rolls(KNOWN_SEED.hex(), [1, 3])


# --- Uniformity --------------------------------------------------------------------------------


def test_one_million_dice_are_uniform_common_ground_dice() -> None:
    """rules.md Common ground: dice must be fair. One million dice (500,000 two-dice rolls)
    from a fixed seed: chi-square over the 6 faces below 20.52 (5 dof, 0.999 quantile) and
    over the 36 ordered pairs below 66.62 (35 dof, 0.999 quantile)."""
    source = SeededDice(hashlib.sha256(b"tavla uniformity test").digest())
    roll = source.roll
    pairs = Counter(roll() for _ in range(500_000))
    faces: Counter[int] = Counter()
    for (first, second), count in pairs.items():
        faces[first] += count
        faces[second] += count
    assert sum(faces.values()) == 1_000_000
    assert source.nonce >= 1_000_000

    assert chi_square(faces, list(range(1, 7))) < 20.52
    all_pairs = list(itertools.product(range(1, 7), repeat=2))
    assert chi_square(pairs, all_pairs) < 66.62


# --- FixedDice and RandomDice ------------------------------------------------------------------


def test_fixed_dice_plays_its_script_in_order() -> None:
    source = FixedDice([3, 5, (6, 4), (2, 2)])
    assert source.remaining == 4
    assert source.roll_one() == 3
    assert source.roll_one() == 5
    assert source.roll() == (6, 4)
    assert source.roll() == (2, 2)
    assert source.remaining == 0


def test_fixed_dice_exhausted_raises() -> None:
    source = FixedDice([(1, 2)])
    source.roll()
    with pytest.raises(DiceExhaustedError, match="exhausted"):
        source.roll()
    with pytest.raises(DiceExhaustedError):
        FixedDice([]).roll_one()


def test_fixed_dice_out_of_step_raises() -> None:
    with pytest.raises(FixedDiceError, match="single die"):
        FixedDice([3]).roll()
    with pytest.raises(FixedDiceError, match="pair"):
        FixedDice([(3, 4)]).roll_one()


@pytest.mark.parametrize("script", [[0], [7], [(1, 7)], [(1, 2, 3)], [True]])
def test_fixed_dice_rejects_impossible_dice(script: list[object]) -> None:
    with pytest.raises(ValueError, match=r"die|roll"):
        FixedDice(script)  # type: ignore[arg-type]


def test_random_dice_is_reproducible_and_in_range() -> None:
    one, two = RandomDice(42), RandomDice(42)
    rolls = [one.roll() for _ in range(1000)]
    assert rolls == [two.roll() for _ in range(1000)]
    assert {die for pair in rolls for die in pair} == set(range(1, 7))
    assert all(1 <= one.roll_one() <= 6 for _ in range(100))
    assert rolls != [RandomDice(43).roll() for _ in range(1000)]


# --- Turkish names -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "name"),
    [
        (1, 1, "hep yek"),
        (2, 2, "dubara"),
        (3, 3, "dü se"),
        (4, 4, "dört cihar"),
        (5, 5, "dü beş"),
        (6, 6, "düşeş"),
        (6, 5, "şeş beş"),
        (6, 4, "şeş cihar"),
        (5, 3, "penç se"),
        (2, 1, "dü yek"),
        (1, 2, "dü yek"),
        (4, 6, "şeş cihar"),
    ],
)
def test_turkish_names_match_rules_md(a: int, b: int, name: str) -> None:
    """rules.md Names of the dice (Turkish): the examples it gives, larger die first."""
    assert dice_name_tr(a, b) == name


def test_turkish_names_of_all_21_rolls_are_distinct() -> None:
    names = {dice_name_tr(a, b) for a in range(1, 7) for b in range(1, a + 1)}
    assert len(names) == 21


@given(a=st.integers(1, 6), b=st.integers(1, 6))
def test_turkish_name_ignores_order(a: int, b: int) -> None:
    assert dice_name_tr(a, b) == dice_name_tr(b, a)


@pytest.mark.parametrize(("a", "b"), [(0, 1), (1, 7)])
def test_turkish_name_rejects_impossible_dice(a: int, b: int) -> None:
    with pytest.raises(ValueError, match=r"1..6"):
        dice_name_tr(a, b)
