"""Small neural evaluators in NumPy: input encodings, the network, save and load.

A network estimates, for the player *on roll before rolling*, five probabilities:
``win``, ``win_gammon`` (gammon or more), ``win_backgammon``, ``lose_gammon`` (gammon or
more) and ``lose_backgammon``. The gammon outputs are cumulative, so ``win_gammon <= win``
and ``lose_gammon <= 1 - win`` hold for a sensible net; :func:`tidy` enforces them.
Uzun Tavla (mars, no backgammon) and Turkish tavla (no backgammon) simply ignore the
backgammon outputs.

Positions are encoded in batches: an array of shape (N, 2, 26) holding the side on roll and
the other side, each in its own numbering (slot 0 off, 1..24 points, 25 bar).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from core.position import Position

try:
    from .encode_compiled import fill_uzun

    COMPILED = True
except ImportError:  # Numba missing: the NumPy encoding below, the same inputs
    COMPILED = False
#: Whether encode_uzun runs the compiled encoder (core.ai.warm turns it off while compiling).
USE_COMPILED = COMPILED

WEIGHTS_DIR = Path(__file__).with_name("weights")
N_OUT = 5
WIN, WIN_G, WIN_BG, LOSE_G, LOSE_BG = range(N_OUT)
# The flip of the outputs to the other player's point of view: win -> 1 - win, and the
# gammon and backgammon outputs trade places.
FLIP_PERM = np.array([0, 3, 4, 1, 2])
FLIP_SIGN = np.array([-1.0, 1.0, 1.0, 1.0, 1.0])
FLIP_BIAS = np.array([1.0, 0.0, 0.0, 0.0, 0.0])

_PIP_WEIGHTS = np.arange(26, dtype=np.float64)
# The mover's point p -> the opponent's number q for it, and back.
_UZUN_OPP = np.array([(p + 11) % 24 + 1 for p in range(1, 25)], dtype=np.int64)
_UZUN_OPP_INV = np.empty(24, dtype=np.int64)
for _p, _q in enumerate(_UZUN_OPP, start=1):
    _UZUN_OPP_INV[_q - 1] = _p


def flip(out: np.ndarray) -> np.ndarray:
    """Outputs seen from the other player (works on (5,) and (N, 5) arrays)."""
    return FLIP_BIAS + FLIP_SIGN * out[..., FLIP_PERM]


def positions_array(positions: Sequence[Position]) -> np.ndarray:
    """(N, 2, 26) array of the positions (side on roll first)."""
    # fromiter over the flattened slots is about twice as fast as np.array on the tuples.
    flat = chain.from_iterable(chain.from_iterable(positions))
    return np.fromiter(flat, dtype=np.float64, count=52 * len(positions)).reshape(-1, 2, 26)


def _longest_run(occupied: np.ndarray) -> np.ndarray:
    """Length of the longest run of True along axis 1 of an (N, 24) bool array."""
    counts = np.cumsum(occupied, axis=1)
    at_gaps = np.maximum.accumulate(np.where(occupied, 0, counts), axis=1)
    return (counts - at_gaps).max(axis=1).astype(np.float64)


def _rearmost(side: np.ndarray) -> np.ndarray:
    """The point of each board's rearmost checker of ``side`` (25: the bar; 0: none left
    on the board), as floats."""
    return ((side[:, 1:] > 0) * _PIP_WEIGHTS[1:]).max(axis=1)


_TAVLA_COLUMNS = 2 * (4 * 24 + 2) + 6


def encode_tavla(arr: np.ndarray) -> np.ndarray:
    """TD-Gammon-like inputs (4 units a point a side, bar, off) plus race features: 202."""
    # Filled into one preallocated array (a decision encodes every candidate play).
    n = len(arr)
    out = np.empty((n, _TAVLA_COLUMNS))
    for k, side in enumerate((arr[:, 0, :], arr[:, 1, :])):
        base = k * 98
        pts = side[:, 1:25]
        units = out[:, base : base + 96].reshape(n, 4, 24)
        np.greater_equal(pts, 1, out=units[:, 0])
        np.greater_equal(pts, 2, out=units[:, 1])
        np.greater_equal(pts, 3, out=units[:, 2])
        np.maximum(pts - 3.0, 0.0, out=units[:, 3])
        units[:, 3] /= 2.0
        out[:, base + 96] = side[:, 25] / 2.0
        out[:, base + 97] = side[:, 0] / 15.0
    me, opp = arr[:, 0, :], arr[:, 1, :]
    pip_me = me @ _PIP_WEIGHTS
    pip_opp = opp @ _PIP_WEIGHTS
    # Contact: my rearmost checker (bar = 25) against the opponent's rearmost, which
    # stands on my point 25 - q.
    back_me = _rearmost(me)
    back_opp = _rearmost(opp)
    contact = (back_me + back_opp > 25).astype(np.float64)
    out[:, 196] = pip_me / 100.0
    out[:, 197] = pip_opp / 100.0
    out[:, 198] = np.clip((pip_opp - pip_me) / 40.0, -2.0, 2.0)
    out[:, 199] = contact
    out[:, 200] = (1.0 - contact) * np.clip((pip_opp - pip_me) / 20.0, -2.0, 2.0)
    out[:, 201] = (me[:, 1:7] >= 2).sum(axis=1) / 6.0
    return out


# A point's four units by its number of checkers (Uzun: the fourth counts the extra over 4).
_UZUN_UNITS = np.array(
    [[n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 4.0] for n in range(256)], dtype=np.float32
)
_BIT = (1 << np.arange(24)).astype(np.int64)
_PIPS32 = np.arange(26, dtype=np.float32)
UZUN_INPUTS = 210


def _runs_upto6(mask: np.ndarray) -> np.ndarray:
    """Longest run of set bits in each 24-bit ``mask``, capped at 6 (float32, (N,))."""
    out = np.zeros(len(mask), dtype=np.float32)
    for _ in range(6):
        out += mask != 0
        mask = mask & (mask >> 1)
    return out


def _uzun_base(arr: np.ndarray, out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fills ``out[:, :210]`` with the ``uzun`` inputs; returns the positions as uint8
    (N, 2, 26), each side's occupied points (N, 2, 24) and their pip counts (N, 2)."""
    a = arr if arr.dtype == np.uint8 else arr.astype(np.uint8)
    n = len(a)
    pts = a[:, :, 1:25]
    sides = out[:, :200].reshape(n, 2, 100)
    # Table lookups instead of comparisons: most of a look-ahead's encoding time was the
    # float64 temporaries of the comparisons.
    sides[:, :, :96] = _UZUN_UNITS[pts].transpose(0, 1, 3, 2).reshape(n, 2, 96)
    sides[:, :, 96] = a[:, :, 0] * np.float32(1 / 15)  # off
    sides[:, :, 97] = a[:, :, 24] * np.float32(1 / 15)  # head
    passed = pts.cumsum(axis=2, dtype=np.int16)
    sides[:, :, 98] = passed[:, :, 5] * np.float32(1 / 15)  # home
    sides[:, :, 99] = passed[:, :, 11] * np.float32(1 / 15)  # passed the far side
    occupied = pts > 0
    # Barriers: my points in the opponent's numbering (their route 24 -> 1) and theirs in
    # mine, as bit masks.
    my_barrier = _runs_upto6(occupied[:, 0][:, _UZUN_OPP_INV - 1] @ _BIT)
    their_barrier = _runs_upto6(occupied[:, 1][:, _UZUN_OPP - 1] @ _BIT)
    pips = a @ _PIPS32
    pip_me, pip_opp = pips[:, 0], pips[:, 1]
    race = (passed[:, 0, 23] == passed[:, 0, 11]) & (passed[:, 1, 23] == passed[:, 1, 11])
    extra = out[:, 200:210]
    extra[:, 0] = my_barrier / 6.0
    extra[:, 1] = their_barrier / 6.0
    extra[:, 2] = pip_me / 200.0
    extra[:, 3] = pip_opp / 200.0
    extra[:, 4] = np.clip((pip_opp - pip_me) / 40.0, -3.0, 3.0)
    extra[:, 5] = race
    extra[:, 6] = race * np.clip((pip_opp - pip_me) / 20.0, -3.0, 3.0)
    extra[:, 7] = occupied[:, 0].sum(axis=1) / 12.0
    extra[:, 8] = occupied[:, 1].sum(axis=1) / 12.0
    extra[:, 9] = a[:, 0, 0] == 0
    return a, occupied, pips


def encode_uzun(arr: np.ndarray) -> np.ndarray:
    """Point units, head, home and passed counts, barriers, pips and race flag: 210
    (float32)."""
    out = np.empty((len(arr), UZUN_INPUTS), dtype=np.float32)
    if not USE_COMPILED:
        _uzun_base(arr, out)
    else:
        boards = np.ascontiguousarray(arr, dtype=np.uint8)
        fill_uzun(boards, out, _UZUN_OPP, _UZUN_OPP_INV)
    return out


UZUN2_INPUTS = UZUN_INPUTS + 20


def encode_uzun2(arr: np.ndarray) -> np.ndarray:
    """The ``uzun`` inputs and, for each side in its own numbering, what the other side's
    points do to it: 230 inputs (float32).

    Per side: for each die 1..6 the checkers that could move it (the head counting once,
    U-4: one checker leaves it a turn; the landing point free of the other side, U-3); how
    many of the six points in front of the head are held by the other side; the other
    side's points among the six in front of each checker, on average; the checkers with
    five or six of those held ("trapped"); and the checkers behind the other side's
    longest run of points (a prime: they have it still to pass).
    """
    n = len(arr)
    out = np.empty((n, UZUN2_INPUTS), dtype=np.float32)
    a, occupied, _pips = _uzun_base(arr, out)
    counts = a[:, :, 1:25].astype(np.float32)
    movers = counts.copy()
    movers[:, :, 23] = np.minimum(movers[:, :, 23], 1.0)
    # held[:, s, i]: the other side holds side s's point i + 1 (in side s's numbering).
    held = np.stack(
        [occupied[:, 1][:, _UZUN_OPP - 1], occupied[:, 0][:, _UZUN_OPP_INV - 1]], axis=1
    )
    free = ~held
    extra = out[:, UZUN_INPUTS:].reshape(n, 2, 10)
    for d in range(1, 7):
        extra[:, :, d - 1] = (movers[:, :, d:] * free[:, :, : 24 - d]).sum(axis=2) / 15.0
    extra[:, :, 6] = held[:, :, 17:23].sum(axis=2) / 6.0  # points 18..23, before the head
    # Points held among the six in front of each point (fewer near the end of the route).
    running = np.concatenate(
        [np.zeros((n, 2, 1), dtype=np.int16), held.cumsum(axis=2, dtype=np.int16)], axis=2
    )
    ahead = running[:, :, :24] - running[:, :, np.maximum(np.arange(24) - 6, 0)]
    extra[:, :, 7] = (counts * ahead).sum(axis=2) / 90.0
    extra[:, :, 8] = (counts[:, :, 6:] * (ahead[:, :, 6:] >= 5)).sum(axis=2) / 15.0
    # The other side's longest run in this side's numbering, and the checkers above it.
    run = np.zeros((n, 2), dtype=np.int16)
    runs = np.empty((n, 2, 24), dtype=np.int16)
    for i in range(24):
        run = (run + 1) * held[:, :, i]
        runs[:, :, i] = run
    top = runs.argmax(axis=2)  # the first longest run's highest point (index)
    above = np.cumsum(counts[:, :, ::-1], axis=2)[:, :, ::-1]  # checkers at index >= i
    behind = np.take_along_axis(
        np.concatenate([above, np.zeros((n, 2, 1), dtype=np.float32)], axis=2),
        (top + 1)[:, :, None],
        axis=2,
    )[:, :, 0]
    extra[:, :, 9] = np.where(runs.max(axis=2) >= 2, behind, 0.0) / 15.0
    return out


def _hit_rolls() -> np.ndarray:
    """(25, 36): which of the 36 rolls move a checker exactly d pips (d = 0..24), blocks
    ignored: one die, both dice, or three or four steps of a double."""
    table = np.zeros((25, 36))
    for i in range(36):
        a, b = i // 6 + 1, i % 6 + 1
        reach = {a, b, a + b} if a != b else {a * k for k in range(1, 5)}
        for d in reach:
            if d <= 24:
                table[d, i] = 1.0
    return table


_HIT_ROLLS = _hit_rolls()
_HIT_ROLLS32 = _HIT_ROLLS.astype(np.float32)


def _shots(hitter: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Share of the 36 rolls with which ``hitter`` (in its own numbering, moving down to 1)
    could hit a blot of ``target`` (in the other numbering), blocks ignored; (N,)."""
    # The target's point q is the hitter's point 25 - q.
    blots = target[:, 24:0:-1] == 1  # on the hitter's points 1..24
    have = hitter[:, 1:26] > 0  # the hitter's points 1..24 and the bar
    # Which distances d = 1..24 separate a hitter's checker from a blot in front of it.
    distances = np.stack(
        [(blots[:, : 25 - d] & have[:, d:]).any(axis=1) for d in range(1, 25)], axis=1
    )
    return ((distances.astype(np.float32) @ _HIT_ROLLS32[1:]) > 0).mean(axis=1)


def _prime(side: np.ndarray) -> np.ndarray:
    """Longest run of made points (two or more) of a side on its points 1..24, over 6."""
    return np.minimum(_longest_run(side[:, 1:25] >= 2), 6.0) / 6.0


def encode_tavla2(arr: np.ndarray) -> np.ndarray:
    """:func:`encode_tavla` plus shots both ways (rolls that hit a blot, blocks ignored)
    and each side's longest prime: 206 inputs."""
    me, opp = arr[:, 0, :], arr[:, 1, :]
    n = len(arr)
    # Both directions in one product: the side on roll's shots, then the other side's.
    shots = _shots(np.concatenate([me, opp]), np.concatenate([opp, me]))
    primes = _prime(np.concatenate([me, opp]))
    extra = np.stack([shots[:n], shots[n:], primes[:n], primes[n:]], axis=1)
    return np.concatenate([encode_tavla(arr), extra], axis=1)


def _escape_table() -> np.ndarray:
    """(4096,): for the made points of the other side on the 12 points in front of a
    checker (bit i: the point i + 1 pips ahead), the share of the 36 rolls that carry it
    the whole roll onto an open point (a double: two steps), as gnubg's escapes count."""
    masks = np.arange(4096)

    def blocked(d: int) -> np.ndarray:
        return (masks >> (d - 1) & 1).astype(bool)

    free = np.zeros(4096)
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                free += ~blocked(a) & ~blocked(2 * a)
            else:
                free += ~blocked(a + b) & ~(blocked(a) & blocked(b))
    return (free / 36.0).astype(np.float32)


_ESCAPES = _escape_table()
_WINDOW_BITS = (1 << np.arange(12)).astype(np.int64)
_AHEAD = np.arange(12)
#: The points of the other side's home and outer board a contained checker stands on.
_CONTAIN_POINTS = np.arange(15, 25)


def _escapes(side: np.ndarray, other: np.ndarray) -> np.ndarray:
    """(N, 2): the escapes of ``side``'s rearmost checker (1 with none left) and how well
    ``other`` contains a checker of ``side`` (1 less the fewest escapes from ``side``'s
    points 15..24)."""
    n = len(side)
    # Column p + 11 holds whether ``side``'s point p (-11..25) is made by ``other``: the
    # points past 1 and the bar never are.
    made = np.zeros((n, 37), dtype=np.int64)
    made[:, 12:36] = other[:, 24:0:-1] >= 2  # other's point 25 - p is side's point p
    back = _rearmost(side).astype(np.int64)
    cols = back[:, None] + 10 - _AHEAD
    back_free = _ESCAPES[np.take_along_axis(made, cols, axis=1) @ _WINDOW_BITS]
    back_free = np.where(back > 0, back_free, 1.0)
    masks = made[:, _CONTAIN_POINTS[:, None] + 10 - _AHEAD] @ _WINDOW_BITS
    contained = 1.0 - _ESCAPES[masks].min(axis=1)
    return np.stack([back_free, contained], axis=1)


def encode_tavla3(arr: np.ndarray) -> np.ndarray:
    """:func:`encode_tavla2` plus gnubg-like escapes each way: the share of rolls with which
    each side's rearmost checker escapes, and how well each side is contained: 210."""
    me, opp = arr[:, 0, :], arr[:, 1, :]
    return np.concatenate([encode_tavla2(arr), _escapes(me, opp), _escapes(opp, me)], axis=1)


ENCODERS = {
    "tavla": encode_tavla,
    "tavla2": encode_tavla2,
    "tavla3": encode_tavla3,
    "uzun": encode_uzun,
    "uzun2": encode_uzun2,
}


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


def _sigmoid32(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0, out=z), out=z))


class Network:
    """One hidden layer of sigmoids, five sigmoid outputs."""

    def __init__(
        self,
        kind: str,
        n_in: int,
        n_hidden: int,
        seed: int = 0,
        meta: dict[str, Any] | None = None,
    ) -> None:
        rng = np.random.default_rng(seed)
        self.kind = kind
        self.encode = ENCODERS[kind]
        self.w1 = rng.uniform(-0.1, 0.1, (n_hidden, n_in))
        self.b1 = np.zeros(n_hidden)
        self.w2 = rng.uniform(-0.1, 0.1, (N_OUT, n_hidden))
        self.b2 = np.zeros(N_OUT)
        self.meta: dict[str, Any] = dict(meta or {})
        self._fast: tuple[np.ndarray, ...] | None = None

    @classmethod
    def fresh(cls, kind: str, n_hidden: int, seed: int = 0) -> Network:
        n_in = ENCODERS[kind](positions_array([_dummy(kind)])).shape[1]
        return cls(kind, n_in, n_hidden, seed, {"games": 0})

    # -- evaluation --------------------------------------------------------------------

    def forward_x(self, x: np.ndarray) -> np.ndarray:
        """Outputs for encoded inputs, in float64 from the live weights (for training)."""
        h = _sigmoid(x @ self.w1.T + self.b1)
        return _sigmoid(h @ self.w2.T + self.b2)

    def weights_changed(self) -> None:
        """Drop the float32 copy :meth:`evaluate_array` plays with (after training steps)."""
        self._fast = None

    def evaluate_array(self, arr: np.ndarray) -> np.ndarray:
        """(N, 5) outputs for an (N, 2, 26) array of positions (side on roll first).

        Plays in float32 (about twice as fast as float64; outputs within 1e-6) from a copy
        of the weights made at the first call: trainers that change the weights call
        :meth:`weights_changed`."""
        if self._fast is None:
            self._fast = (
                np.ascontiguousarray(self.w1.T, dtype=np.float32),
                self.b1.astype(np.float32),
                np.ascontiguousarray(self.w2.T, dtype=np.float32),
                self.b2.astype(np.float32),
            )
        w1t, b1, w2t, b2 = self._fast
        h = _sigmoid32(self.encode(arr).astype(np.float32, copy=False) @ w1t + b1)
        return tidy(_sigmoid32(h @ w2t + b2).astype(np.float64))

    def evaluate(self, positions: Sequence[Position]) -> np.ndarray:
        """(N, 5) outputs, each from the side on roll of that position."""
        return self.evaluate_array(positions_array(positions))

    # -- storage -----------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the weights atomically (a temporary file renamed over the old one)."""
        path = Path(path)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez_compressed(
            tmp,
            w1=self.w1.astype(np.float32),
            b1=self.b1.astype(np.float32),
            w2=self.w2.astype(np.float32),
            b2=self.b2.astype(np.float32),
            meta=np.array(json.dumps({**self.meta, "kind": self.kind})),
        )
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Network:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            w1 = data["w1"].astype(np.float64)
            net = cls(meta["kind"], w1.shape[1], w1.shape[0], meta=meta)
            net.w1 = w1
            net.b1 = data["b1"].astype(np.float64)
            net.w2 = data["w2"].astype(np.float64)
            net.b2 = data["b2"].astype(np.float64)
        return net


def tidy(out: np.ndarray) -> np.ndarray:
    """Make the outputs consistent: bg <= gammon <= win, lose gammon <= 1 - win."""
    out = np.clip(out, 0.0, 1.0)
    out[..., WIN_G] = np.minimum(out[..., WIN_G], out[..., WIN])
    out[..., WIN_BG] = np.minimum(out[..., WIN_BG], out[..., WIN_G])
    out[..., LOSE_G] = np.minimum(out[..., LOSE_G], 1.0 - out[..., WIN])
    out[..., LOSE_BG] = np.minimum(out[..., LOSE_BG], out[..., LOSE_G])
    return out


def equity(out: np.ndarray, gammons: bool = True, backgammons: bool = True) -> np.ndarray:
    """Cubeless money equity of outputs (N, 5) or (5,), from the side they belong to."""
    eq = 2.0 * out[..., WIN] - 1.0
    if gammons:
        eq = eq + out[..., WIN_G] - out[..., LOSE_G]
        if backgammons:
            eq = eq + out[..., WIN_BG] - out[..., LOSE_BG]
    return eq


def _dummy(kind: str) -> Position:
    from core.variants import variant_by_name

    return variant_by_name("uzun" if kind.startswith("uzun") else "tavla").start_position()


_CACHE: dict[str, Network | None] = {}


def shipped_network(kind: str) -> Network | None:
    """The trained network shipped in ``core/ai/weights/<kind>.npz`` (None if missing)."""
    if kind not in _CACHE:
        path = WEIGHTS_DIR / f"{kind}.npz"
        try:
            _CACHE[kind] = Network.load(path) if path.exists() else None
        except (OSError, ValueError, KeyError):
            _CACHE[kind] = None
    return _CACHE[kind]


def network_kind(variant_name: str) -> str:
    """Which network a variant uses: ``uzun`` or ``tavla`` (Turkish shares Tavla's)."""
    return "uzun" if variant_name == "uzun" else "tavla"
