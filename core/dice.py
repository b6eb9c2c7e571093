"""Dice sources: every piece of core that needs chance takes one of these.

Three sources share the :class:`DiceSource` protocol:

- :class:`SeededDice` -- the dice of real games: cryptographically secure and verifiable
  (design.md "Dice"; rules.md Common ground: dice must be fair).
- :class:`FixedDice` -- a scripted sequence, for tests.
- :class:`RandomDice` -- :mod:`random` with an integer seed, for reproducible simulations and
  benchmarks. It is predictable and must never be used for a real game.

Verifiable dice (the exact derivation)
--------------------------------------

A game draws a secret 32-byte *seed* when it starts and publishes its *commitment*,
``SHA-256(seed)`` in lowercase hex. Every die is then derived from the seed and a *nonce*,
a counter that starts at 0 and is never reused::

    digest = HMAC-SHA256(key=seed, message=nonce as 8-byte big-endian unsigned integer)
    nonce  = nonce + 1
    take the first byte b of digest (in order, byte 0 first) with b < 252
    die    = b % 6 + 1
    if all 32 bytes are >= 252, the die is not decided yet: repeat with the next nonce

So each die consumes one nonce (in the astronomically rare case of a fully rejected digest,
probability (4/256)**32, more than one). Bytes 252..255 are rejected because 252 = 6 * 42 is
the largest multiple of 6 that fits in a byte: every face then comes from exactly 42 byte
values, so the faces are exactly uniform, not just nearly.

A two-dice roll is two dice drawn one after the other, first die first. An opening roll
(each player rolls one die) is single-die draws. A game's record of rolls is therefore a list
of tuples, each holding the 1 or 2 dice of one draw in the order drawn, e.g.
``[(3,), (5,), (6, 4), (2, 2)]``; the length of each tuple says how many dice it consumed, so
the record is unambiguous. When the game ends the seed is revealed and
:func:`verify_game_rolls` (or anyone with an HMAC tool) re-derives every die. By hand, for
nonce 5 with OpenSSL (``%016x`` writes the nonce as 8 big-endian bytes in hex)::

    printf '%016x' 5 | xxd -r -p | openssl dgst -sha256 -mac HMAC -macopt hexkey:<seed hex>

and for the commitment ``printf '<seed hex>' | xxd -r -p | sha256sum``.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "SEED_BYTES",
    "DiceExhaustedError",
    "DiceSource",
    "FixedDice",
    "FixedDiceError",
    "RandomDice",
    "SeededDice",
    "VerificationResult",
    "commitment_of",
    "derive_rolls",
    "dice_name_tr",
    "verify_game_rolls",
]

#: Length of a game's secret seed in bytes.
SEED_BYTES = 32
#: Bytes at or above this are rejected: 252 = 6 * 42, so every face gets exactly 42 values.
_REJECT_FROM = 252
_NONCE_BYTES = 8


@runtime_checkable
class DiceSource(Protocol):
    """Where dice come from. Core never calls :mod:`random` itself; it is given one of these."""

    def roll(self) -> tuple[int, int]:
        """Roll two dice, each 1..6, in the order drawn."""
        ...

    def roll_one(self) -> int:
        """Roll one die, 1..6 (each player's die of an opening roll)."""
        ...


# --- Verifiable dice -------------------------------------------------------------------------


def commitment_of(seed: bytes) -> str:
    """Return the commitment published for ``seed``: its SHA-256 in lowercase hex."""
    return hashlib.sha256(seed).hexdigest()


def _draw_die(seed: bytes, nonce: int) -> tuple[int, int]:
    """Derive one die starting at ``nonce``; return ``(die, next_nonce)``.

    This is the module docstring's derivation; both the live source and the verifier use it,
    so what is checked is exactly what was played.
    """
    while True:
        digest = hmac.digest(seed, nonce.to_bytes(_NONCE_BYTES, "big"), "sha256")
        nonce += 1
        for byte in digest:
            if byte < _REJECT_FROM:
                return byte % 6 + 1, nonce
        # Every byte rejected (probability (4/256)**32): the next nonce decides the die.


def _check_seed(seed: bytes) -> bytes:
    if len(seed) != SEED_BYTES:
        raise ValueError(f"a dice seed must be {SEED_BYTES} bytes, not {len(seed)}")
    return bytes(seed)


def _check_nonce(nonce: int) -> int:
    if nonce < 0 or nonce >= 1 << (8 * _NONCE_BYTES):
        raise ValueError(f"a dice nonce must be in 0..2**64-1, not {nonce}")
    return nonce


class SeededDice:
    """The dice of real games: HMAC-SHA256 of a secret seed and a counter (see module doc).

    ``SeededDice()`` draws a fresh seed from :func:`secrets.token_bytes`. To resume a stored
    game, pass the stored seed and nonce (or use :meth:`from_dict`): the stream continues
    exactly where it stopped.
    """

    __slots__ = ("_nonce", "_seed")

    def __init__(self, seed: bytes | None = None, nonce: int = 0) -> None:
        self._seed = _check_seed(secrets.token_bytes(SEED_BYTES) if seed is None else seed)
        self._nonce = _check_nonce(nonce)

    @property
    def commitment(self) -> str:
        """SHA-256 of the seed in lowercase hex, published when the game starts."""
        return commitment_of(self._seed)

    @property
    def seed_hex(self) -> str:
        """The secret seed in lowercase hex: keep it hidden until the game ends."""
        return self._seed.hex()

    @property
    def nonce(self) -> int:
        """The nonce the next die will start from (the number of nonces consumed so far)."""
        return self._nonce

    def roll_one(self) -> int:
        """Draw one die, 1..6, consuming the next nonce."""
        die, self._nonce = _draw_die(self._seed, self._nonce)
        return die

    def roll(self) -> tuple[int, int]:
        """Draw two dice, first die first."""
        first = self.roll_one()
        return first, self.roll_one()

    def to_dict(self) -> dict[str, Any]:
        """Return the state to store with the game: ``{"seed": hex, "nonce": int}``."""
        return {"seed": self.seed_hex, "nonce": self._nonce}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeededDice:
        """Rebuild a source stored with :meth:`to_dict`; it continues the same stream."""
        return cls(bytes.fromhex(data["seed"]), int(data["nonce"]))

    def __repr__(self) -> str:
        # Never show the seed: a repr may end up in a log while the game is still running.
        return f"SeededDice(commitment={self.commitment[:16]}…, nonce={self._nonce})"


def derive_rolls(seed_hex: str, draws: Iterable[int], nonce: int = 0) -> list[tuple[int, ...]]:
    """Re-derive a game's rolls from its revealed seed.

    ``draws`` gives the number of dice of each draw in order (1 for an opening die, 2 for a
    roll); the result has one tuple of that many dice per draw. ``nonce`` is where the game's
    stream started (0 for a new game). Raises :class:`ValueError` for a malformed seed.
    """
    seed = _check_seed(bytes.fromhex(seed_hex))
    nonce = _check_nonce(nonce)
    rolls: list[tuple[int, ...]] = []
    for count in draws:
        if count not in (1, 2):
            raise ValueError(f"a draw has 1 or 2 dice, not {count}")
        dice: list[int] = []
        for _ in range(count):
            die, nonce = _draw_die(seed, nonce)
            dice.append(die)
        rolls.append(tuple(dice))
    return rolls


@dataclass(frozen=True)
class VerificationResult:
    """The outcome of :func:`verify_game_rolls`; true when everything matched.

    ``reason`` is ``"ok"``, ``"bad_seed"`` (not 32 bytes of hex), ``"bad_record"`` (a draw
    that is not 1 or 2 dice; ``index`` names it), ``"commitment_mismatch"`` or
    ``"roll_mismatch"``. For a roll mismatch, ``index`` is the position of the first wrong
    draw in the record and ``expected`` / ``recorded`` are the derived and the recorded dice.
    """

    ok: bool
    reason: str
    index: int | None = None
    expected: tuple[int, ...] | None = None
    recorded: tuple[int, ...] | None = None

    def __bool__(self) -> bool:
        return self.ok


def verify_game_rolls(
    seed_hex: str,
    commitment: str,
    recorded: Sequence[Sequence[int]],
    nonce: int = 0,
) -> VerificationResult:
    """Check a finished game's dice: the seed matches the commitment and derives every roll.

    ``recorded`` is the game's record of draws in order, each the 1 or 2 dice of one draw as
    drawn (see the module doc). It never raises for bad input, since seeds come from players
    typing or pasting them; the result says what went wrong and where.
    """
    try:
        seed = _check_seed(bytes.fromhex(seed_hex.strip()))
    except ValueError:
        return VerificationResult(False, "bad_seed")
    # compare_digest: constant time is not needed for public values, but it is harmless.
    if not hmac.compare_digest(commitment_of(seed), commitment.strip().lower()):
        return VerificationResult(False, "commitment_mismatch")
    draws = [tuple(draw) for draw in recorded]
    for index, draw in enumerate(draws):
        if len(draw) not in (1, 2):
            return VerificationResult(False, "bad_record", index=index, recorded=draw)
    derived = derive_rolls(seed.hex(), (len(draw) for draw in draws), nonce)
    for index, (want, got) in enumerate(zip(derived, draws, strict=True)):
        if want != got:
            return VerificationResult(
                False, "roll_mismatch", index=index, expected=want, recorded=got
            )
    return VerificationResult(True, "ok")


# --- Test and simulation sources -------------------------------------------------------------


class FixedDiceError(RuntimeError):
    """A :class:`FixedDice` script that does not fit the calls made on it."""


class DiceExhaustedError(FixedDiceError):
    """A :class:`FixedDice` was asked for more dice than its script holds."""


def _check_die(value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise ValueError(f"a die is an integer 1..6, not {value!r}")
    return value


class FixedDice:
    """A scripted dice source for tests.

    Built from a sequence whose items are 2-tuples (answers to :meth:`roll`) or ints
    (answers to :meth:`roll_one`), used in order: ``FixedDice([3, 5, (6, 4), (2, 2)])``.
    Asking for more than the script holds raises :class:`DiceExhaustedError`; asking for a
    roll where the script has a single die (or the reverse) raises :class:`FixedDiceError`,
    so a test that drifts out of step fails at once instead of playing wrong dice.
    """

    __slots__ = ("_items", "_position")

    def __init__(self, rolls: Iterable[tuple[int, int] | int]) -> None:
        items: list[tuple[int, int] | int] = []
        for item in rolls:
            if isinstance(item, tuple):
                if len(item) != 2:
                    raise ValueError(f"a roll is a pair of dice, not {item!r}")
                items.append((_check_die(item[0]), _check_die(item[1])))
            else:
                items.append(_check_die(item))
        self._items = items
        self._position = 0

    @property
    def remaining(self) -> int:
        """How many scripted items are still unused."""
        return len(self._items) - self._position

    def _next(self, wanted: str) -> tuple[int, int] | int:
        if self._position >= len(self._items):
            raise DiceExhaustedError(
                f"FixedDice exhausted: {wanted} asked after all {len(self._items)} "
                "scripted items were used"
            )
        item = self._items[self._position]
        self._position += 1
        return item

    def roll(self) -> tuple[int, int]:
        """Return the next scripted pair."""
        item = self._next("roll()")
        if not isinstance(item, tuple):
            raise FixedDiceError(
                f"FixedDice item {self._position - 1} is a single die {item}, but roll() was called"
            )
        return item

    def roll_one(self) -> int:
        """Return the next scripted single die."""
        item = self._next("roll_one()")
        if isinstance(item, tuple):
            raise FixedDiceError(
                f"FixedDice item {self._position - 1} is a pair {item}, but roll_one() was called"
            )
        return item


class RandomDice:
    """Reproducible pseudo-random dice from :class:`random.Random` with an integer seed.

    For simulations, self-play and benchmarks only: the Mersenne Twister is predictable
    from its output, so it must never roll the dice of a real game (use :class:`SeededDice`).
    """

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll_one(self) -> int:
        """Draw one die, 1..6."""
        return self._random.randint(1, 6)

    def roll(self) -> tuple[int, int]:
        """Draw two dice."""
        return self._random.randint(1, 6), self._random.randint(1, 6)


# --- Names -----------------------------------------------------------------------------------

# rules.md "Names of the dice (Turkish)".
_DIE_NAMES_TR = {1: "yek", 2: "dü", 3: "se", 4: "cihar", 5: "penç", 6: "şeş"}
_DOUBLE_NAMES_TR = {
    1: "hep yek",
    2: "dubara",
    3: "dü se",
    4: "dört cihar",
    5: "dü beş",
    6: "düşeş",
}
# Customary exceptions to "larger name + smaller name": 6-5 is said "şeş beş".
_MIXED_EXCEPTIONS_TR = {(6, 5): "şeş beş"}


def larger_first(dice: Iterable[int]) -> tuple[int, ...]:
    """A roll in the order it is named and shown to players: the larger die first ("5-3",
    whichever die came first), so the caption, the board and the text board agree."""
    return tuple(sorted(dice, reverse=True))


def dice_name_tr(a: int, b: int) -> str:
    """Return the Turkish name of a roll (rules.md Names of the dice), e.g. 6-5 "şeş beş".

    The order of ``a`` and ``b`` does not matter: mixed rolls name the larger die first.
    """
    high, low = sorted((_check_die(a), _check_die(b)), reverse=True)
    if high == low:
        return _DOUBLE_NAMES_TR[high]
    return _MIXED_EXCEPTIONS_TR.get((high, low), f"{_DIE_NAMES_TR[high]} {_DIE_NAMES_TR[low]}")
