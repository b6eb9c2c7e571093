"""Pictures of the board: pure functions from a :class:`BoardView` to PNG bytes or text.

Renderers draw what the caller says (the view); they never decide a rule.

- :func:`render_png` / :func:`render_image`: the board picture (:mod:`renderers.board`).
- :func:`render_text`: the text board (:mod:`renderers.text`).
- :func:`render_replay`: an animated GIF (or WebP) of a game (:mod:`renderers.replay`).
- ``python -m renderers``: one board from a gnubg Position ID; ``python -m
  renderers.gallery OUT_DIR``: the review set.
"""

from .board import layout, render_image, render_png
from .replay import render_replay
from .text import render_text
from .themes import THEMES, theme_by_name
from .view import BLACK, WHITE, BoardView

__all__ = [
    "BLACK",
    "THEMES",
    "WHITE",
    "BoardView",
    "layout",
    "render_image",
    "render_png",
    "render_replay",
    "render_text",
    "theme_by_name",
]
