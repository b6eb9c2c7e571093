"""GNU Backgammon's Position ID and Match ID, both ways.

Both identifiers are bit strings packed little-endian (bit ``i`` is bit ``i % 8`` of byte
``i // 8``) and written in standard base64 without padding, as described in the gnubg manual
("A technical description of the Position ID" / "... of the Match ID").

**Position ID** (14 characters, 80 bits): first the player *not* on roll, then the player on
roll, each from its own side: for points 1..24 and then the bar, as many 1-bits as checkers
followed by one 0-bit. Our :class:`~core.position.Position` keeps the player on roll as
``mover``, so ``position_id`` writes ``opponent`` first. The encoding only counts checkers,
so Uzun Tavla uses it unchanged with each side's own numbering (head = 24). Decoding checks
the format only; whether both colours share a point depends on the game: call
:meth:`core.variants.Variant.validate` for that.

**Match ID** (12 characters, 72 bits of which gnubg uses 67): cube, cube owner, player on
roll, Crawford, game state, turn, doubled, resignation, dice, match length, scores, and
(since gnubg 1.x) a last bit that is set when the Jacoby rule is *off*.
"""

from __future__ import annotations

import binascii
import string
from base64 import b64decode, b64encode
from dataclasses import dataclass

from .errors import InvalidPositionError
from .position import BAR, CHECKERS, OFF, SLOTS, Position, Side

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12

_ALPHABET = frozenset(string.ascii_letters + string.digits + "+/")
_POSITION_BITS = 80
_MATCH_BITS = 72

# The 25 slots gnubg writes per side, in its order: points 1..24, then the bar.
_GNUBG_SLOTS = (*range(1, 25), BAR)

GAME_NONE = 0
GAME_PLAYING = 1
GAME_OVER = 2
GAME_RESIGNED = 3
GAME_DROP = 4

# Match key fields: (bit offset, width).
_CUBE = (0, 4)
_CUBE_OWNER = (4, 2)
_ON_ROLL = (6, 1)
_CRAWFORD = (7, 1)
_GAME_STATE = (8, 3)
_TURN = (11, 1)
_DOUBLED = (12, 1)
_RESIGNED = (13, 2)
_DIE_1 = (15, 3)
_DIE_2 = (18, 3)
_MATCH_LENGTH = (21, 15)
_SCORE_0 = (36, 15)
_SCORE_1 = (51, 15)
_NO_JACOBY = (66, 1)
_USED_MATCH_BITS = 67

_MAX_15 = (1 << 15) - 1
_CUBE_CENTRED = 3


def _decode_base64(identifier: object, length: int, what: str) -> int:
    """The bits of a base64 identifier of ``length`` characters, as a little-endian int."""
    if not isinstance(identifier, str):
        raise InvalidPositionError(f"a {what} must be a string, not {type(identifier).__name__}")
    if len(identifier) != length:
        raise InvalidPositionError(
            f"a {what} has {length} characters, not {len(identifier)}: {identifier!r}",
            identifier=identifier,
        )
    bad = sorted({c for c in identifier if c not in _ALPHABET})
    if bad:
        raise InvalidPositionError(
            f"a {what} uses only A-Z a-z 0-9 + /, not {''.join(bad)!r}: {identifier!r}",
            identifier=identifier,
        )
    padding = "=" * (-length % 4)
    try:
        data = b64decode(identifier + padding, validate=True)
    except binascii.Error as exc:  # pragma: no cover - excluded by the checks above
        raise InvalidPositionError(f"{identifier!r} is not base64: {exc}") from None
    if b64encode(data).decode("ascii").rstrip("=") != identifier:
        # Only the last character can carry bits beyond the key's length.
        raise InvalidPositionError(
            f"the last character of the {what} {identifier!r} sets bits beyond its key",
            identifier=identifier,
        )
    return int.from_bytes(data, "little")


def _encode_base64(key: int, nbytes: int) -> str:
    return b64encode(key.to_bytes(nbytes, "little")).decode("ascii").rstrip("=")


# --- Position ID -------------------------------------------------------------------------


def _check_side(side: Side, name: str) -> None:
    if len(side) != SLOTS:
        raise InvalidPositionError(f"the {name} side must have {SLOTS} slots, not {len(side)}")
    if any(not isinstance(n, int) or n < 0 for n in side):
        raise InvalidPositionError(f"the {name} side has a negative or non-integer count")
    if sum(side) != CHECKERS:
        raise InvalidPositionError(
            f"the {name} side has {sum(side)} checkers (with those borne off), not {CHECKERS}"
        )


def position_id(position: Position) -> str:
    """GNU Backgammon's 14-character Position ID of ``position`` (the mover is on roll)."""
    _check_side(position.mover, "mover's")
    _check_side(position.opponent, "opponent's")
    key = 0
    bit = 0
    for side in (position.opponent, position.mover):
        for slot in _GNUBG_SLOTS:
            count = side[slot]
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return _encode_base64(key, _POSITION_BITS // 8)


def position_from_id(pid: str) -> Position:
    """The position a Position ID describes; the player on roll becomes the mover.

    Checkers not on the board or the bar are counted as borne off (index 0). Raises
    :class:`InvalidPositionError` for a malformed ID; it does not check that no point holds
    both colours, which depends on the game (see :meth:`core.variants.Variant.validate`).
    """
    key = _decode_base64(pid, POSITION_ID_LENGTH, "Position ID")
    sides: list[Side] = []
    bit = 0
    for name in ("player not on roll", "player on roll"):
        slots = [0] * SLOTS
        on_board = 0
        for slot in _GNUBG_SLOTS:
            while key >> bit & 1:
                slots[slot] += 1
                on_board += 1
                bit += 1
                if on_board > CHECKERS:
                    raise InvalidPositionError(
                        f"the Position ID {pid!r} gives the {name} more than {CHECKERS} checkers",
                        identifier=pid,
                    )
            # The 0-bit that closes the slot. With at most 15 ones and 25 zeros a side, both
            # sides always fit in the 80 bits.
            bit += 1
        slots[OFF] = CHECKERS - on_board
        sides.append(tuple(slots))
    if key >> bit:
        raise InvalidPositionError(
            f"the Position ID {pid!r} has bits set after both sides' 25 slots",
            identifier=pid,
        )
    not_on_roll, on_roll = sides
    return Position(on_roll, not_on_roll)


# --- Match ID ----------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchIdInfo:
    """What a gnubg Match ID says. Players are gnubg's 0 and 1 (0 = bottom player).

    ``dice`` is ``(0, 0)`` before the roll; gnubg writes the higher die first, and
    :func:`match_id` does the same. ``match_length`` 0 means a money game.
    """

    #: The cube's value, a power of two from 1 to 2**15.
    cube_value: int = 1
    #: Who owns the cube: 0, 1, or ``None`` when it is centred.
    cube_owner: int | None = None
    #: The player on roll (or who has just rolled).
    on_roll: int = 0
    crawford: bool = False
    #: GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED or GAME_DROP (0..4).
    game_state: int = GAME_PLAYING
    #: The player who has to decide now (e.g. the one offered a double).
    turn: int = 0
    #: Whether a double is being offered.
    doubled: bool = False
    #: A resignation being offered: 0 none, 1 single, 2 gammon, 3 backgammon.
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    #: Points of player 0 and player 1.
    score: tuple[int, int] = (0, 0)
    #: Whether the Jacoby rule is in force (gnubg stores it inverted; older IDs leave it on).
    jacoby: bool = True

    def __post_init__(self) -> None:
        cube = self.cube_value
        if not isinstance(cube, int) or cube < 1 or cube > 1 << 15 or cube & (cube - 1):
            raise InvalidPositionError(f"cube value {cube!r} is not a power of two up to 32768")
        if self.cube_owner not in (0, 1, None):
            raise InvalidPositionError(f"cube owner {self.cube_owner!r} is not 0, 1 or None")
        for name in ("on_roll", "turn"):
            if getattr(self, name) not in (0, 1):
                raise InvalidPositionError(f"{name} {getattr(self, name)!r} is not 0 or 1")
        if self.game_state not in range(GAME_DROP + 1):
            raise InvalidPositionError(f"game state {self.game_state!r} is not 0..4")
        if self.resigned not in range(4):
            raise InvalidPositionError(f"resignation {self.resigned!r} is not 0..3")
        if len(self.dice) != 2 or not all(d in range(7) for d in self.dice):
            raise InvalidPositionError(f"dice {self.dice!r} are not two numbers 0..6")
        if (self.dice[0] == 0) != (self.dice[1] == 0):
            raise InvalidPositionError(f"dice {self.dice!r}: both rolled or neither")
        if self.match_length not in range(_MAX_15 + 1):
            raise InvalidPositionError(f"match length {self.match_length!r} is not 0..32767")
        if len(self.score) != 2 or not all(s in range(_MAX_15 + 1) for s in self.score):
            raise InvalidPositionError(f"score {self.score!r} is not two numbers 0..32767")
        if self.match_length:
            if max(self.score) > self.match_length:
                raise InvalidPositionError(
                    f"score {self.score!r} exceeds the match length {self.match_length}"
                )
        elif self.crawford:
            raise InvalidPositionError("a money game has no Crawford game")


def _put(key: int, field: tuple[int, int], value: int) -> int:
    offset, width = field
    return key | (value & ((1 << width) - 1)) << offset


def _get(key: int, field: tuple[int, int]) -> int:
    offset, width = field
    return key >> offset & ((1 << width) - 1)


def match_id(info: MatchIdInfo) -> str:
    """GNU Backgammon's 12-character Match ID for ``info`` (higher die first, as gnubg)."""
    owner = _CUBE_CENTRED if info.cube_owner is None else info.cube_owner
    high, low = sorted(info.dice, reverse=True)
    key = 0
    for field, value in (
        (_CUBE, info.cube_value.bit_length() - 1),
        (_CUBE_OWNER, owner),
        (_ON_ROLL, info.on_roll),
        (_CRAWFORD, int(info.crawford)),
        (_GAME_STATE, info.game_state),
        (_TURN, info.turn),
        (_DOUBLED, int(info.doubled)),
        (_RESIGNED, info.resigned),
        (_DIE_1, high),
        (_DIE_2, low),
        (_MATCH_LENGTH, info.match_length),
        (_SCORE_0, info.score[0]),
        (_SCORE_1, info.score[1]),
        (_NO_JACOBY, int(not info.jacoby)),
    ):
        key = _put(key, field, value)
    return _encode_base64(key, _MATCH_BITS // 8)


def match_id_info(mid: str) -> MatchIdInfo:
    """What the Match ID ``mid`` says; raises :class:`InvalidPositionError` if malformed."""
    key = _decode_base64(mid, MATCH_ID_LENGTH, "Match ID")
    if key >> _USED_MATCH_BITS:
        raise InvalidPositionError(
            f"the Match ID {mid!r} sets bits that gnubg does not use", identifier=mid
        )
    owner = _get(key, _CUBE_OWNER)
    if owner == 2:
        raise InvalidPositionError(f"the Match ID {mid!r} has cube owner 2", identifier=mid)
    try:
        return MatchIdInfo(
            cube_value=1 << _get(key, _CUBE),
            cube_owner=None if owner == _CUBE_CENTRED else owner,
            on_roll=_get(key, _ON_ROLL),
            crawford=bool(_get(key, _CRAWFORD)),
            game_state=_get(key, _GAME_STATE),
            turn=_get(key, _TURN),
            doubled=bool(_get(key, _DOUBLED)),
            resigned=_get(key, _RESIGNED),
            dice=(_get(key, _DIE_1), _get(key, _DIE_2)),
            match_length=_get(key, _MATCH_LENGTH),
            score=(_get(key, _SCORE_0), _get(key, _SCORE_1)),
            jacoby=not _get(key, _NO_JACOBY),
        )
    except InvalidPositionError as exc:
        raise InvalidPositionError(f"the Match ID {mid!r}: {exc}", identifier=mid) from None


__all__ = [
    "GAME_DROP",
    "GAME_NONE",
    "GAME_OVER",
    "GAME_PLAYING",
    "GAME_RESIGNED",
    "MATCH_ID_LENGTH",
    "POSITION_ID_LENGTH",
    "MatchIdInfo",
    "match_id",
    "match_id_info",
    "position_from_id",
    "position_id",
]
