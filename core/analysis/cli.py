"""``python -m core analyse [--variant V] FILE [--level L]`` (design.md, a contract).

Reads what ``/export`` writes for any of the three games (docs/notation.md): the game comes
from the file's header or contest line, else from ``--variant`` (Tavla by default); a file
of another game than ``--variant`` is refused. Prints one JSON line per decision ``{"game",
"move", "player", "kind", "dice", "position", "played", "best", "loss"}`` (``move`` is the
number of the file's line the decision is on, ``N)``; the loss in equity normalized to the
cube), then one summary line per player with ``"summary": true`` and ``error_per_decision``
(millipoints), ``pr``, ``doubtful``, ``bad``, ``very_bad``, ``luck``, ``rating`` and more.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from core.variants import VARIANTS, variant_by_name

from .analyse import analyse_actions
from .evaluators import evaluator_for
from .records import RecordError, parse_mat

LEVELS = ("best", "network", "gnubg")


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``analyse`` command on ``python -m core``'s sub-commands."""
    parser = commands.add_parser("analyse", help="score every decision of a .mat match")
    parser.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        default=None,
        help="the game, when the file does not name it (default tavla)",
    )
    parser.add_argument(
        "file", help="the match as /export writes it, or a .mat file (- for standard input)"
    )
    parser.add_argument(
        "--level",
        default="best",
        choices=LEVELS,
        help="best: gnubg 2-ply for Tavla when installed, else the network with look-ahead",
    )


_TITLES = {name: cls.title for name, cls in VARIANTS.items()}


def _options(variant: str, options: dict[str, bool]) -> dict[str, bool]:
    """The variant options a file turns on, refusing those the game does not have."""
    known = variant_by_name(variant).options
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise RecordError(f"{_TITLES[variant]} has no option {', '.join(unknown)}")
    return options


def run(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    """Run the ``analyse`` command; returns the exit status."""
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        record = parse_mat(text)
        named = record.variant or "tavla"
        if args.variant is not None and named != args.variant:
            raise RecordError(f"the file is a {_TITLES[named]} match, not {_TITLES[args.variant]}")
        variant = variant_by_name(named, **_options(named, record.options))
        evaluator = evaluator_for(variant, args.level)
        analysis = analyse_actions(
            variant,
            record.games,
            length=record.length,
            names=record.names,
            evaluator=evaluator,
            jacoby=bool(record.jacoby) and record.length == 0,
        )
    except (RecordError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = stdout or sys.stdout
    for line in analysis.json_lines():
        out.write(line + "\n")
    out.flush()
    return 0
