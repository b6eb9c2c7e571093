"""Cube decisions for Tavla: double, take or pass, for money and for matches.

The network gives cubeless chances (win, gammon, backgammon for both sides). For money
play the value of an outcome is its points; for a match it is the match-winning chance from
the Kazaross-XG2 match equity table after the score changes. Cube ownership is not modelled
beyond two simple allowances:

* the taker gets a bonus of 4% of the stake's swing for owning the cube (so a money take
  needs about 23% without gammons instead of 25%), unless the cube would be dead for them;
* the doubler doubles only inside the window: when the opponent still has a take but is
  close to a pass (margin below :data:`WINDOW`), or when the opponent should pass and
  cashing is worth at least as much as playing on (otherwise it is "too good": play on
  for the gammon).

The Crawford game never has doubles (M-2); after it the trailer doubles at once; with the
Jacoby rule (money, M-3) gammons do not count while the cube is centred at 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.game import Game
from core.match import Match

from .network import LOSE_BG, LOSE_G, WIN, WIN_BG, WIN_G

#: How close to the opponent's pass point (as a fraction of the stake's swing) a double is made.
#: This pair is tuned against GNU Backgammon's cube actions (bench/cube_gnubg.py --tune:
#: 90.4% and 90.2% agreement on its two reference sets; 0.19 and 0.05 before, 89.1%, 89.5%).
WINDOW = 0.06
#: The taker's allowance for owning the cube, as a fraction of the stake's swing.
OWNERSHIP = 0.04

# Kazaross-XG2 match equity table by Neil Kazaross (2011), as distributed with GNU
# Backgammon (met/Kazaross-XG2.xml); copying and distribution are permitted when this notice
# is preserved. PRE[a-1][b-1]: the chance of winning the match for a player a-away against
# b-away (pre-Crawford; with a = 1 or b = 1 it is the Crawford game). POST[b-1]: the
# trailer's chance, b-away, against a 1-away leader after the Crawford game.
# fmt: off
PRE = (
    (0.500000, 0.677360, 0.750760, 0.814360, 0.841790, 0.887310, 0.907240, 0.932500, 0.944020, 0.959275, 0.966442, 0.975534, 0.979845, 0.985273, 0.987893, 0.991140, 0.992730, 0.994670, 0.995630, 0.996790, 0.997370, 0.998070, 0.998420, 0.998840, 0.999050),
    (0.322640, 0.500000, 0.599470, 0.668700, 0.743590, 0.799400, 0.842250, 0.875390, 0.901970, 0.923034, 0.939311, 0.952470, 0.962495, 0.970701, 0.976887, 0.981960, 0.985800, 0.988930, 0.991290, 0.993220, 0.994660, 0.995850, 0.996750, 0.997460, 0.998020),
    (0.249240, 0.400530, 0.500000, 0.571500, 0.647950, 0.711230, 0.762090, 0.804680, 0.840170, 0.870638, 0.894417, 0.914831, 0.930702, 0.944426, 0.954931, 0.963990, 0.970930, 0.976870, 0.981390, 0.985220, 0.988140, 0.990620, 0.992480, 0.994070, 0.995270),
    (0.185640, 0.331300, 0.428500, 0.500000, 0.577320, 0.642850, 0.699240, 0.745770, 0.787990, 0.824059, 0.853955, 0.879141, 0.900233, 0.918040, 0.932657, 0.944950, 0.954990, 0.963410, 0.970210, 0.975890, 0.980440, 0.984220, 0.987260, 0.989750, 0.991740),
    (0.158210, 0.256410, 0.352050, 0.422680, 0.500000, 0.566350, 0.626380, 0.677860, 0.725400, 0.767055, 0.802732, 0.833654, 0.859934, 0.882866, 0.902013, 0.918470, 0.932230, 0.943970, 0.953670, 0.961890, 0.968640, 0.974320, 0.978960, 0.982830, 0.986000),
    (0.112690, 0.200600, 0.288770, 0.357150, 0.433650, 0.500000, 0.562610, 0.616360, 0.667870, 0.713057, 0.753427, 0.788634, 0.819569, 0.846648, 0.869999, 0.890210, 0.907560, 0.922460, 0.935080, 0.945830, 0.954880, 0.962540, 0.968940, 0.974320, 0.978790),
    (0.092760, 0.157750, 0.237910, 0.300760, 0.373620, 0.437390, 0.500000, 0.554800, 0.608540, 0.656283, 0.700209, 0.739054, 0.774121, 0.805203, 0.832566, 0.856590, 0.877610, 0.895910, 0.911710, 0.925350, 0.937020, 0.947030, 0.955530, 0.962760, 0.968870),
    (0.067500, 0.124610, 0.195320, 0.254230, 0.322140, 0.383640, 0.445200, 0.500000, 0.554420, 0.603718, 0.649899, 0.691356, 0.729447, 0.763593, 0.794397, 0.821580, 0.845780, 0.867140, 0.885890, 0.902300, 0.916580, 0.928980, 0.939680, 0.948910, 0.956820),
    (0.055980, 0.098030, 0.159830, 0.212010, 0.274600, 0.332130, 0.391460, 0.445580, 0.500000, 0.550196, 0.597926, 0.641481, 0.682119, 0.718927, 0.752814, 0.783010, 0.810370, 0.834830, 0.856620, 0.875910, 0.892940, 0.907910, 0.920980, 0.932400, 0.942300),
    (0.040725, 0.076966, 0.129362, 0.175941, 0.232945, 0.286943, 0.343717, 0.396282, 0.449804, 0.500000, 0.548547, 0.593459, 0.635880, 0.674830, 0.711113, 0.743710, 0.773750, 0.800930, 0.825430, 0.847410, 0.867030, 0.884480, 0.899910, 0.913530, 0.925500),
    (0.033558, 0.060689, 0.105583, 0.146045, 0.197268, 0.246573, 0.299791, 0.350101, 0.402074, 0.451453, 0.500000, 0.545552, 0.589242, 0.629736, 0.667927, 0.703030, 0.735300, 0.764940, 0.791980, 0.816480, 0.838620, 0.858490, 0.876290, 0.892140, 0.906220),
    (0.024466, 0.047530, 0.085169, 0.120859, 0.166346, 0.211366, 0.260946, 0.308644, 0.358519, 0.406541, 0.454448, 0.500000, 0.544068, 0.585701, 0.625259, 0.661780, 0.696100, 0.727780, 0.757030, 0.783810, 0.808260, 0.830440, 0.850510, 0.868560, 0.884760),
    (0.020155, 0.037505, 0.069298, 0.099767, 0.140066, 0.180431, 0.225879, 0.270553, 0.317881, 0.364120, 0.410758, 0.455932, 0.500000, 0.541943, 0.582545, 0.620360, 0.656190, 0.689660, 0.720810, 0.749630, 0.776190, 0.800540, 0.822760, 0.842950, 0.861230),
    (0.014727, 0.029299, 0.055574, 0.081960, 0.117134, 0.153352, 0.194797, 0.236407, 0.281073, 0.325170, 0.370264, 0.414299, 0.458057, 0.500000, 0.540750, 0.579420, 0.616340, 0.651170, 0.683910, 0.714480, 0.742900, 0.769170, 0.793390, 0.815590, 0.835860),
    (0.012107, 0.023113, 0.045069, 0.067343, 0.097987, 0.130001, 0.167434, 0.205603, 0.247186, 0.288887, 0.332073, 0.374741, 0.417455, 0.459250, 0.500000, 0.539160, 0.576790, 0.612610, 0.646590, 0.678590, 0.708620, 0.736640, 0.762650, 0.786690, 0.808830),
    (0.008860, 0.018040, 0.036010, 0.055050, 0.081530, 0.109790, 0.143410, 0.178420, 0.216990, 0.256290, 0.296970, 0.338220, 0.379640, 0.420580, 0.460840, 0.500000, 0.537960, 0.574410, 0.609290, 0.642410, 0.673760, 0.703230, 0.730840, 0.756570, 0.780460),
    (0.007270, 0.014200, 0.029070, 0.045010, 0.067770, 0.092440, 0.122390, 0.154220, 0.189630, 0.226250, 0.264700, 0.303900, 0.343810, 0.383660, 0.423210, 0.462040, 0.500000, 0.536760, 0.572220, 0.606180, 0.638560, 0.669250, 0.698220, 0.725420, 0.750870),
    (0.005330, 0.011070, 0.023130, 0.036590, 0.056030, 0.077540, 0.104090, 0.132860, 0.165170, 0.199070, 0.235060, 0.272220, 0.310340, 0.348830, 0.387390, 0.425590, 0.463240, 0.500000, 0.535740, 0.570230, 0.603360, 0.635010, 0.665100, 0.693560, 0.720380),
    (0.004370, 0.008710, 0.018610, 0.029790, 0.046330, 0.064920, 0.088290, 0.114110, 0.143380, 0.174570, 0.208020, 0.242970, 0.279190, 0.316090, 0.353410, 0.390710, 0.427780, 0.464260, 0.500000, 0.534750, 0.568380, 0.600730, 0.631710, 0.661220, 0.689210),
    (0.003210, 0.006780, 0.014780, 0.024110, 0.038110, 0.054170, 0.074650, 0.097700, 0.124090, 0.152590, 0.183520, 0.216190, 0.250370, 0.285520, 0.321410, 0.357590, 0.393820, 0.429770, 0.465250, 0.500000, 0.533870, 0.566670, 0.598300, 0.628640, 0.657600),
    (0.002630, 0.005340, 0.011860, 0.019560, 0.031360, 0.045120, 0.062980, 0.083420, 0.107060, 0.132970, 0.161380, 0.191740, 0.223810, 0.257100, 0.291380, 0.326240, 0.361440, 0.396640, 0.431620, 0.466130, 0.500000, 0.533030, 0.565080, 0.596030, 0.625760),
    (0.001930, 0.004150, 0.009380, 0.015780, 0.025680, 0.037460, 0.052970, 0.071020, 0.092090, 0.115520, 0.141510, 0.169560, 0.199460, 0.230830, 0.263360, 0.296770, 0.330750, 0.364990, 0.399270, 0.433330, 0.466970, 0.500000, 0.532260, 0.563600, 0.593910),
    (0.001580, 0.003250, 0.007520, 0.012740, 0.021040, 0.031060, 0.044470, 0.060320, 0.079020, 0.100090, 0.123710, 0.149490, 0.177240, 0.206610, 0.237350, 0.269160, 0.301780, 0.334900, 0.368290, 0.401700, 0.434920, 0.467740, 0.500000, 0.531530, 0.562210),
    (0.001160, 0.002540, 0.005930, 0.010250, 0.017170, 0.025680, 0.037240, 0.051090, 0.067600, 0.086470, 0.107860, 0.131440, 0.157050, 0.184410, 0.213310, 0.243430, 0.274580, 0.306440, 0.338780, 0.371360, 0.403970, 0.436400, 0.468470, 0.500000, 0.530860),
    (0.000950, 0.001980, 0.004730, 0.008260, 0.014000, 0.021210, 0.031130, 0.043180, 0.057700, 0.074500, 0.093780, 0.115240, 0.138770, 0.164140, 0.191170, 0.219540, 0.249130, 0.279620, 0.310790, 0.342400, 0.374240, 0.406090, 0.437790, 0.469140, 0.500000),
)
POST = (
    0.500000, 0.488030, 0.322640, 0.310020, 0.190120, 0.180720, 0.115590, 0.109060, 0.069530,
    0.065161, 0.042069, 0.039060, 0.025371, 0.023428, 0.015304, 0.014050, 0.009240, 0.008420,
    0.005560, 0.005050, 0.003360, 0.003030, 0.002030, 0.001820, 0.001230,
)
# fmt: on
MAX_AWAY = len(PRE)


def match_equity(away_me: int, away_opp: int, post_crawford: bool = False) -> float:
    """My chance to win the match, ``away_me`` against ``away_opp`` points to go."""
    if away_me <= 0:
        return 1.0
    if away_opp <= 0:
        return 0.0
    a, b = min(away_me, MAX_AWAY), min(away_opp, MAX_AWAY)
    if post_crawford and (a == 1) != (b == 1):
        return 1.0 - POST[b - 1] if a == 1 else POST[a - 1]
    return PRE[a - 1][b - 1]


@dataclass(frozen=True)
class CubeState:
    """The cube and the score, seen from the player asked.

    ``owner`` is 0 for a centred cube, 1 if the player asked owns it, -1 if the opponent
    does. ``match_length`` 0 is money play. ``crawford`` marks the Crawford game itself.
    """

    value: int = 1
    owner: int = 0
    match_length: int = 0
    my_score: int = 0
    opp_score: int = 0
    crawford: bool = False
    jacoby: bool = False

    @property
    def money(self) -> bool:
        return self.match_length <= 0

    @property
    def away(self) -> tuple[int, int]:
        return (
            self.match_length - int(self.my_score),
            self.match_length - int(self.opp_score),
        )

    @property
    def post_crawford(self) -> bool:
        a, b = self.away
        return not self.money and not self.crawford and (a == 1 or b == 1) and (a, b) != (1, 1)

    def swapped(self) -> CubeState:
        """The same state seen from the other player."""
        return CubeState(
            self.value,
            -self.owner,
            self.match_length,
            self.opp_score,
            self.my_score,
            self.crawford,
            self.jacoby,
        )

    @classmethod
    def from_game(cls, game: Game, seat: int, match: Match | None = None) -> CubeState:
        """Build the state of ``seat`` from a :class:`core.game.Game` and its match."""
        owner = 0 if game.cube_owner is None else (1 if game.cube_owner == seat else -1)
        # The terms the game is played on: a single game with the cube is money play of one
        # game (its cube and gammons count), not a 1-point match where they would not.
        length, _ = match.terms() if match is not None else (0, False)
        score = match.score if match is not None and length else [0, 0]
        return cls(
            value=game.cube_value,
            owner=owner,
            match_length=length,
            my_score=int(score[seat]),
            opp_score=int(score[1 - seat]),
            crawford=bool(game.crawford),
            jacoby=bool(game.jacoby),
        )


def outcome_probabilities(out: np.ndarray, backgammons: bool = True) -> list[tuple[int, float]]:
    """(points for me, probability) of the six game results, from network outputs."""
    w, wg, wbg = float(out[WIN]), float(out[WIN_G]), float(out[WIN_BG])
    lg, lbg = float(out[LOSE_G]), float(out[LOSE_BG])
    if not backgammons:
        wbg = lbg = 0.0
    return [
        (1, w - wg),
        (2, wg - wbg),
        (3, wbg),
        (-1, (1.0 - w) - lg),
        (-2, lg - lbg),
        (-3, lbg),
    ]


def _utility(state: CubeState, points: int) -> float:
    """The value for me of winning (points > 0) or losing ``points`` at this score."""
    if state.money:
        return float(points)
    a, b = state.away
    # The Crawford game and later games are followed by post-Crawford play.
    post = state.crawford or state.post_crawford
    if points > 0:
        return match_equity(a - points, b, post or False)
    return match_equity(a, b + points, post or False)


def _expected(state: CubeState, out: np.ndarray, stake: int, gammons: bool, bgs: bool) -> float:
    total = 0.0
    for points, prob in outcome_probabilities(out, bgs):
        if not gammons:
            points = 1 if points > 0 else -1
        total += prob * _utility(state, points * stake)
    return total


def _gammons_count(state: CubeState, value: int) -> bool:
    return not (state.money and state.jacoby and value == 1)


def take_decision(out: np.ndarray, state: CubeState, backgammons: bool = True) -> bool:
    """Whether to take a double: ``out`` from the taker's side, ``state`` from the taker's.

    ``state.value`` is the cube value *before* the double.
    """
    v = state.value
    take = _expected(state, out, 2 * v, True, backgammons)
    drop = _utility(state, -v)
    swing = _utility(state, v) - _utility(state, -v)
    bonus = OWNERSHIP * swing
    if not state.money and 2 * v >= state.away[0]:
        bonus = 0.0  # a recube would gain me nothing: the cube is dead for me
    return take + bonus >= drop


def may_double(state: CubeState) -> bool:
    """Whether the side ``state`` belongs to may double (or redouble) usefully now (T-8,
    M-2): it holds or faces a centred cube below 64, not in the Crawford game, and in a
    match winning the cube's value would not already win the match."""
    if state.crawford or state.owner < 0 or state.value >= 64:
        return False
    return state.money or state.away[0] > state.value


def double_decision(out: np.ndarray, state: CubeState, backgammons: bool = True) -> bool:
    """Whether to double: ``out`` from the doubler's side (on roll), ``state`` likewise."""
    v = state.value
    if not may_double(state):
        return False
    if not state.money:
        a, b = state.away
        if state.post_crawford and b == 1 and a > 1 and v == 1:
            return True  # the trailer doubles at once after the Crawford game
        if a == 1:
            return False
    no_double = _expected(state, out, v, _gammons_count(state, v), backgammons)
    double_take = _expected(state, out, 2 * v, True, backgammons)
    double_pass = _utility(state, v)
    swing = _utility(state, v) - _utility(state, -v)
    opp_state = state.swapped()
    opp_bonus = OWNERSHIP * swing
    if not state.money and 2 * v >= opp_state.away[0]:
        opp_bonus = 0.0
    # The opponent takes when their share of the take beats the pass (in my terms:
    # my double-take value minus their bonus is at most my double-pass value).
    opponent_takes = double_take - opp_bonus <= double_pass
    if not opponent_takes:
        return double_pass >= no_double  # cash unless too good (play on for the gammon)
    margin = (double_pass + opp_bonus - double_take) / swing if swing > 0 else 1.0
    return margin <= WINDOW and double_take >= no_double
