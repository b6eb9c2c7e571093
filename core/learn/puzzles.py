"""Puzzles from real games: a position where a player made a very bad play (at least 0.16)
and one play clearly answers it (it leads the second best by at least 0.10).

Games are analysed (:mod:`core.analysis`); each very bad play is looked at again at the
strongest evaluator (GNU Backgammon 2-ply for Tavla where installed, else the networks'
look-ahead) with at least the three best plays ranked deep. A puzzle keeps the position,
the roll, the cube and score it was played at and its candidate plays: never who played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.ai import player_for
from core.ai.cube import CubeState
from core.ai.lookahead import first_turn
from core.analysis import MatchAnalysis, analyse_match
from core.analysis.evaluators import Evaluator, evaluator_for
from core.analysis.ranking import order_by_value, rank_plays
from core.analysis.scoring import VERY_BAD
from core.analysis.selfplay import play_match
from core.dice import RandomDice
from core.gnubg import position_from_id, position_id
from core.match import Match
from core.movegen import Play, legal_plays
from core.notation import format_play
from core.position import Position
from core.turn import Turn
from core.variants import Variant, variant_by_name

#: A decision becomes a puzzle when it lost at least this (gnubg's "very bad")…
MISTAKE = VERY_BAD
#: … and the best play leads the second best by at least this.
MARGIN = 0.10
#: At most so many candidate plays are offered (the best, the play made, the next best)…
CANDIDATES = 4
#: … and at least so many: a position with fewer plays ranked deep is no puzzle (with two
#: buttons, one of them the blunder, it would be a coin toss).
LEAST = 3
#: The verification ranks plays within this much of the best at 0-ply (gnubg's analysis
#: filter's window), at least the three best, deep.
VERIFY_WINDOW = 0.32


@dataclass(frozen=True)
class Candidate:
    """A play offered: its notation (from the solver's side), the Position ID of the board
    after it (seen from the solver) and its equity (normalized to the cube)."""

    text: str
    after: str
    equity: float


@dataclass(frozen=True)
class Puzzle:
    """One puzzle. ``position`` is the Position ID with the solver on roll; ``candidates``
    are in the order shown (by notation), ``answer`` and ``played`` index them (the best
    play, and the one a player made in the game). ``state`` holds the cube and score
    (``CubeState``'s fields) for Tavla, else None."""

    variant: str
    position: str
    dice: tuple[int, int]
    candidates: tuple[Candidate, ...]
    answer: int
    played: int
    loss: float
    margin: float
    evaluator: str
    source: str = "game"
    state: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        """What makes a puzzle the same puzzle: the game, the position and the roll."""
        a, b = sorted(self.dice, reverse=True)
        return f"{self.variant}:{self.position}:{a}{b}"

    @property
    def cube_state(self) -> CubeState | None:
        return CubeState(**self.state) if self.state is not None else None

    @property
    def best(self) -> Candidate:
        return self.candidates[self.answer]

    def before(self) -> Position:
        """The board with the solver on roll."""
        return position_from_id(self.position)

    def typed(self, text: str) -> int | None:
        """The candidate (its index) the play typed as ``text`` is, in any written form the
        game takes; None for a legal play that is not among the candidates. A move that
        cannot be read, is not legal or leaves dice unplayed raises as in a game
        (:class:`core.errors.NotationError`, :class:`core.errors.IllegalPlayError`)."""
        variant = variant_by_name(self.variant)
        position = self.before()
        turn = Turn(variant, position, self.dice, first_turn(variant, position))
        turn.apply_text(text)
        after = position_id(turn.play().after)  # (raises when dice are left unplayed)
        return next((i for i, c in enumerate(self.candidates) if c.after == after), None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (storage, the shipped files)."""
        data = asdict(self)
        data["dice"] = list(self.dice)
        data["candidates"] = [asdict(c) for c in self.candidates]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Puzzle:
        return cls(
            variant=str(data["variant"]),
            position=str(data["position"]),
            dice=(int(data["dice"][0]), int(data["dice"][1])),
            candidates=tuple(Candidate(**c) for c in data["candidates"]),
            answer=int(data["answer"]),
            played=int(data["played"]),
            loss=float(data["loss"]),
            margin=float(data["margin"]),
            evaluator=str(data["evaluator"]),
            source=str(data.get("source", "game")),
            state=data.get("state"),
        )


def rank_for_puzzle(
    evaluator: Evaluator,
    variant: Variant,
    position: Position,
    dice: tuple[int, int],
    plays: Sequence[Play],
    state: CubeState | None,
    include: int | None = None,
) -> list[tuple[int, float]]:
    """(play index, equity) of the plays ranked deep, best first: with GNU Backgammon every
    play at its full depth, else at least the :data:`LEAST` best at 0-ply and those within
    :data:`VERIFY_WINDOW` of the best, and ``include``. Either way a play's value is the same
    whichever others are ranked, so the builder and a later check agree."""
    every = getattr(evaluator, "every_play", None)
    values = None
    if every is not None and variant.cube:
        values = every(variant, position, dice, plays, state or CubeState())
    if values is None:
        values = rank_plays(
            evaluator,
            variant,
            position,
            dice,
            plays,
            state,
            include=include,
            window=VERIFY_WINDOW,
            least=LEAST,
            own_ranking=False,
        )
    return [(i, float(values[i])) for i in order_by_value(values)]


def make_puzzle(
    variant: Variant,
    position: Position,
    dice: tuple[int, int],
    played: Position,
    *,
    state: CubeState | None = None,
    evaluator: Evaluator | None = None,
    source: str = "game",
) -> Puzzle | None:
    """The puzzle of the side on roll of ``position`` rolling ``dice``, where a player
    played to ``played`` (the board after, from the mover's side); None unless that play
    lost at least :data:`MISTAKE` and the best leads the second by :data:`MARGIN`."""
    evaluator = evaluator or evaluator_for(variant)
    plays = legal_plays(variant, position, dice, first_turn(variant, position))
    made = next((i for i, p in enumerate(plays) if p.after == played), None)
    if made is None or len(plays) < LEAST:
        return None
    ranked = rank_for_puzzle(evaluator, variant, position, dice, plays, state, made)
    if len(ranked) < LEAST:
        return None
    (best, top), (_, second) = ranked[0], ranked[1]
    mine = dict(ranked)[made]
    if best == made or top - mine < MISTAKE or top - second < MARGIN:
        return None
    shown = [best, made] + [i for i, _ in ranked if i not in (best, made)]
    shown = shown[:CANDIDATES]
    values = dict(ranked)
    candidates = sorted(
        (
            Candidate(format_play(plays[i]), position_id(plays[i].after), round(values[i], 4))
            for i in shown
        ),
        key=lambda c: c.text,
    )
    texts = [c.text for c in candidates]
    return Puzzle(
        variant=variant.name,
        position=position_id(position),
        dice=(int(dice[0]), int(dice[1])),
        candidates=tuple(candidates),
        answer=texts.index(format_play(plays[best])),
        played=texts.index(format_play(plays[made])),
        loss=round(top - mine, 4),
        margin=round(top - second, 4),
        evaluator=evaluator.name,
        source=source,
        state=asdict(state) if state is not None else None,
    )


def puzzles_from_analysis(
    variant: Variant,
    analysis: MatchAnalysis,
    *,
    evaluator: Evaluator | None = None,
    source: str = "game",
) -> list[Puzzle]:
    """The puzzles among an analysis's decisions: its plays that lost at least
    :data:`MISTAKE`, each verified by :func:`make_puzzle` (one per position and roll)."""
    evaluator = evaluator or evaluator_for(variant)
    found: dict[str, Puzzle] = {}
    for d in analysis.decisions:
        if d.kind != "play" or d.loss < MISTAKE or d.dice is None or d.played_after is None:
            continue
        puzzle = make_puzzle(
            variant,
            d.before,
            d.dice,
            d.played_after,
            state=d.state,
            evaluator=evaluator,
            source=source,
        )
        if puzzle is not None:
            found.setdefault(puzzle.key, puzzle)
    return list(found.values())


def puzzles_from_games(
    variant: Variant,
    histories: Sequence[list[dict[str, Any]]],
    *,
    length: int = 1,
    jacoby: bool = False,
    names: tuple[str, str] = ("Player 0", "Player 1"),
    evaluator: Evaluator | None = None,
    source: str = "game",
) -> list[Puzzle]:
    """Analyse a contest's games (event histories, as the bot stores them) and return its
    puzzles (which keep nothing of ``names``). Takes seconds: call it off the event loop."""
    evaluator = evaluator or evaluator_for(variant)
    analysis = analyse_match(
        variant, histories, length=length, names=names, evaluator=evaluator, jacoby=jacoby
    )
    return puzzles_from_analysis(variant, analysis, evaluator=evaluator, source=source)


def selfplay_histories(variant_name: str, seed: int) -> list[list[dict[str, Any]]]:
    """One seeded single game of the computer against itself (beginner against club: the
    beginner's noisy plays are the mistakes puzzles are made of)."""
    variant = variant_by_name(variant_name)
    players = [
        player_for(variant_name, "beginner", seed=seed),
        player_for(variant_name, "club", seed=seed + 1),
    ]
    _, histories = play_match(variant, players, RandomDice(seed), length=1)
    return histories


def selfplay_puzzles(
    variant_name: str, seed: int, *, evaluator: Evaluator | None = None
) -> list[Puzzle]:
    """The puzzles of one seeded self-play game (see :func:`selfplay_histories`), judged on
    a single game's terms as the bot plays it (money play for Tavla, T-7)."""
    variant = variant_by_name(variant_name)
    histories = selfplay_histories(variant_name, seed)
    length, jacoby = Match(variant, length=1).terms()
    return puzzles_from_games(
        variant, histories, length=length, jacoby=jacoby, evaluator=evaluator, source="selfplay"
    )
