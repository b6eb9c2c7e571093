"""``python -m renderers``: draw one board from a GNU Backgammon Position ID.

    python -m renderers --variant tavla --position 4HPwATDgc/ABMA --dice 3 1 --out board.png

The player on roll of the Position ID plays White unless ``--mover black``; the board is
seen from the player on roll unless ``--viewer`` says otherwise. A gnubg Match ID
(``--match-id``) adds the cube, the score, the match length, the Crawford mark and the dice.
Without ``--out`` the PNG goes to standard output (or to ``board.png`` on a terminal);
``--text`` prints the text board instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.errors import TavlaError
from core.gnubg import match_id_info, position_from_id
from core.variants import variant_by_name

from .board import render_png
from .text import render_text
from .themes import THEMES
from .view import BLACK, HOME_RIGHT, HOMES, WHITE, BoardView, other


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m renderers",
        description="Draw a Tavla or Uzun Tavla board as a PNG picture (or as text).",
    )
    parser.add_argument("--variant", required=True, help="tavla, turkish or uzun")
    parser.add_argument("--position", required=True, help="gnubg Position ID (14 characters)")
    parser.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"), help="the roll")
    parser.add_argument("--out", help="PNG file to write ('-' for standard output)")
    parser.add_argument("--theme", default="classic", choices=sorted(THEMES))
    parser.add_argument(
        "--viewer",
        default="mover",
        choices=("mover", "opponent", WHITE, BLACK),
        help="whose side the board is seen from (default: the player on roll)",
    )
    parser.add_argument(
        "--mover",
        default=WHITE,
        choices=(WHITE, BLACK),
        help="the colour of the player on roll (default white)",
    )
    parser.add_argument(
        "--home",
        default=HOME_RIGHT,
        choices=HOMES,
        help="the side the viewer's home board is drawn on (default right)",
    )
    parser.add_argument("--width", type=int, default=1000, help="picture width in pixels")
    parser.add_argument("--match-id", help="gnubg Match ID: cube, score, match length, dice")
    parser.add_argument("--names", nargs=2, metavar=("WHITE", "BLACK"), help="player names")
    parser.add_argument("--caption", help="a line of text under the board")
    parser.add_argument("--text", action="store_true", help="print the text board instead")
    return parser


def view_from_args(args: argparse.Namespace) -> BoardView:
    """The :class:`BoardView` the command line describes (raises ``ValueError``)."""
    variant = variant_by_name(args.variant)
    position = position_from_id(args.position)
    variant.validate(position)
    mover = args.mover
    viewer = {"mover": mover, "opponent": other(mover)}.get(args.viewer, args.viewer)
    fields: dict[str, object] = {"theme": args.theme, "caption": args.caption, "home": args.home}
    if args.names:
        fields["names"] = {WHITE: args.names[0], BLACK: args.names[1]}
    if args.match_id:
        info = match_id_info(args.match_id)
        # gnubg's players 0 and 1: the one on roll is our mover.
        color = {info.on_roll: mover, 1 - info.on_roll: other(mover)}
        if variant.cube:
            fields["cube_value"] = info.cube_value
            fields["cube_owner"] = None if info.cube_owner is None else color[info.cube_owner]
        fields["match_length"] = info.match_length
        fields["score"] = {color[0]: info.score[0], color[1]: info.score[1]}
        fields["crawford"] = info.crawford
        if info.dice != (0, 0):
            fields["dice"] = info.dice
    if args.dice:
        fields["dice"] = tuple(args.dice)
    return BoardView.from_position(variant, position, mover, viewer=viewer, **fields)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        view = view_from_args(args)
    except (TavlaError, ValueError) as exc:
        parser.error(str(exc))
    if args.text:
        print(render_text(view))
        return 0
    data = render_png(view, args.width)
    out = args.out
    if out is None and sys.stdout.isatty():
        out = "board.png"
    if out in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        Path(out).write_bytes(data)
        print(f"wrote {out} ({len(data) // 1024} KB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
