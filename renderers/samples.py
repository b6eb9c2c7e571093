"""Boards worth looking at: the review gallery's positions, and what the palette is built from.

Every position here is reached with :func:`core.movegen.legal_plays` (or checked with
:meth:`core.variants.Variant.validate`), so the pictures show boards that can occur.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from core.movegen import Play, legal_plays
from core.notation import format_play
from core.position import Position
from core.turn import Turn
from core.variants import Variant, variant_by_name

from .view import BLACK, WHITE, BoardView, other


def find_play(
    variant: Variant, position: Position, dice: tuple[int, int], text: str, first_turn: bool = False
) -> Play:
    """The legal play of ``dice`` written ``text`` (in canonical notation)."""
    for play in legal_plays(variant, position, dice, first_turn):
        if format_play(play) == text:
            return play
    raise ValueError(f"{text!r} is not a legal play of {dice} here")


class Line:
    """A game followed play by play, to build views of real positions."""

    def __init__(self, variant: Variant, mover: str = WHITE, **fields: Any) -> None:
        self.variant = variant
        self.position = variant.start_position()
        self.mover = mover
        self.fields = fields
        self.last: Play | None = None
        self.last_color: str | None = None
        self.turns: dict[str, int] = {WHITE: 0, BLACK: 0}

    def play(self, dice: tuple[int, int], text: str) -> Line:
        first = self.turns[self.mover] == 0
        self.last = find_play(self.variant, self.position, dice, text, first)
        self.last_color = self.mover
        self.turns[self.mover] += 1
        self.position = self.last.after.swapped()
        self.mover = other(self.mover)
        return self

    def view(self, **fields: Any) -> BoardView:
        """The board now, the player on roll to move; the last play marked."""
        merged: dict[str, Any] = {**self.fields, **fields}
        if self.last is not None:
            merged.setdefault("last_play", self.last.steps)
            merged.setdefault("last_play_color", self.last_color)
        return BoardView.from_position(self.variant, self.position, self.mover, **merged)


NAMES = {WHITE: "Ayşe", BLACK: "Дмитрий"}


def gallery_views(theme: str = "classic") -> dict[str, BoardView]:
    """The review set: openings, a hit on the bar, bear-off, the cube, Uzun Tavla's heads."""
    tavla = variant_by_name("tavla")
    uzun = variant_by_name("uzun")
    # BoardView fields by name, of several types (BoardView checks them).
    common: dict[str, Any] = {"names": NAMES, "theme": theme}
    views: dict[str, BoardView] = {}

    views["tavla-opening"] = BoardView.from_position(
        tavla, tavla.start_position(), WHITE, dice=(3, 1), **common
    )
    line = Line(tavla, **common).play((3, 1), "8/5 6/5")
    views["tavla-opening-reply"] = line.view(viewer=WHITE, dice=(6, 4))

    # A hit: Black's two blots, and White's 6-4 hits the one on White's 7.
    line = Line(tavla, **common).play((3, 1), "8/5 6/5").play((6, 4), "24/18 13/9")
    line.play((6, 4), "13/7* 5/1*")
    hit = line.view(dice=(5, 2), viewer=BLACK)
    turn = Turn(tavla, line.position, (5, 2))
    targets = tuple(sorted({step.dest for step, _ in turn.targets(25)}))
    views["tavla-hit-on-bar"] = replace(hit, selected=25, highlights=targets)

    # Bearing off in a match, Crawford game.
    bear = Position.from_points({6: 2, 5: 2, 4: 1, 2: 1}, {6: 3, 5: 3, 3: 2, 1: 2, 2: 1})
    play = find_play(tavla, bear.swapped(), (6, 2), "6/off 2/off")
    views["tavla-bear-off"] = BoardView.from_position(
        tavla,
        play.after.swapped(),
        WHITE,
        dice=(4, 4),
        dice_used=(True, False),
        last_play=play.steps,
        last_play_color=BLACK,
        score={WHITE: 4, BLACK: 2},
        match_length=5,
        crawford=True,
        caption="Crawford game: no doubling",
        **common,
    )

    # The cube at 8 on Black's side, with tall stacks.
    middle = Position.from_points(
        {24: 2, 13: 3, 8: 2, 6: 7, 5: 1}, {24: 1, 13: 6, 8: 2, 6: 4, 4: 2}
    )
    views["tavla-cube-8-black"] = BoardView.from_position(
        tavla,
        middle,
        WHITE,
        cube_value=8,
        cube_owner=BLACK,
        score={WHITE: 3, BLACK: 1},
        match_length=7,
        **common,
    )

    # Uzun Tavla: the opening, both heads marked, and a six-block.
    views["uzun-opening"] = BoardView.from_position(
        uzun, uzun.start_position(), WHITE, dice=(6, 5), **common
    )
    line = Line(uzun, **common).play((6, 5), "24/13").play((4, 3), "24/17")
    line.play((5, 2), "24/22 13/8").play((6, 3), "24/18 17/14")
    views["uzun-both-heads"] = line.view(dice=(3, 1), viewer=WHITE)
    block = Position.from_points(
        {24: 4, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 1}, {24: 9, 17: 2, 13: 2, 5: 2}
    )
    uzun.validate(block)
    views["uzun-six-block"] = BoardView.from_position(
        uzun, block, BLACK, viewer=WHITE, dice=(2, 1), **common
    )
    return views


def palette_views(theme: str) -> list[BoardView]:
    """Views that between them show every element in every colour (for the palette)."""
    tavla = variant_by_name("tavla")
    sink = Position.from_points(
        {24: 1, 13: 7, 8: 1, 3: 1}, {19: 1, 13: 1, 6: 7, 4: 1}, mover_bar=2, opponent_bar=4
    )
    extra = [
        BoardView.from_position(
            tavla,
            sink,
            WHITE,
            dice=(2, 2),
            dice_used=(True, True, False, False),
            cube_value=64,
            cube_owner=WHITE,
            names=NAMES,
            score={WHITE: 2, BLACK: 1},
            match_length=3,
            crawford=True,
            caption="Everything",
            highlights=(0, 22, 23),
            selected=13,
            theme=theme,
        ),
        BoardView.from_position(
            tavla,
            sink.swapped(),
            BLACK,
            dice=(6, 5),
            dice_used=(True, False),
            highlights=(20,),
            selected=25,
            theme=theme,
            names=NAMES,
        ),
    ]
    return [*gallery_views(theme).values(), *extra]


def used_flags(dice: tuple[int, ...], used: tuple[int, ...]) -> tuple[bool, ...]:
    """Which of the dice shown for ``dice`` (four for a double) the ``used`` values took."""
    shown = dice * 2 if len(dice) == 2 and dice[0] == dice[1] else dice
    left = list(used)
    flags = []
    for die in shown:
        flags.append(die in left)
        if die in left:
            left.remove(die)
    return tuple(flags)


def random_game(
    variant: Variant, seed: int = 1, theme: str = "classic", max_plays: int = 400
) -> list[BoardView]:
    """Every board of a game played at random with ``random.Random(seed)`` dice.

    One view per roll (before the play, dice shown) and per play (after it, last play
    marked), from White's side, until someone has borne off all their checkers.
    """
    rng = random.Random(seed)
    position = variant.start_position()
    mover = WHITE
    first = {WHITE: True, BLACK: True}
    views: list[BoardView] = []
    common: dict[str, Any] = {"names": NAMES, "theme": theme, "viewer": WHITE}
    for _ in range(max_plays):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(variant, position, dice, first[mover])
        first[mover] = False
        views.append(BoardView.from_position(variant, position, mover, dice=dice, **common))
        if plays:
            play = rng.choice(plays)
            used = used_flags(dice, play.dice)
            views.append(
                BoardView.from_position(
                    variant,
                    play.after,
                    mover,
                    dice=dice,
                    dice_used=used,
                    dice_color=mover,
                    to_move=other(mover),
                    last_play=play.steps,
                    last_play_color=mover,
                    **common,
                )
            )
            position = play.after
        if position.finished:
            break
        position = position.swapped()
        mover = other(mover)
    return views


__all__ = [
    "NAMES",
    "Line",
    "find_play",
    "gallery_views",
    "palette_views",
    "random_game",
    "used_flags",
]
