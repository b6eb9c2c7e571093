"""Tournaments in a chat: ``/tournament``, its card, its rounds played as ordinary games.

The engine is :mod:`core.tournament` (pure); this package keeps a tournament in storage
(one row, its state as JSON, saved with a version check inside one transaction), and talks
to the game service through a few hooks:

- ``/tournament …`` and the card's Join / Leave / Start buttons (:meth:`Tournaments.command`,
  :meth:`Tournaments.press`);
- a tournament game that finishes records its result in the same transaction
  (:meth:`Tournaments.game_finished`), after which the next matches are started and the
  standings posted (:meth:`Tournaments.after_game`);
- a tournament game whose clock runs out is lost, as a match, by the player to act (TN-7,
  :meth:`Tournaments.timed_out`); the deadline rounds also start tournaments at their start
  time and start any match a crash left unstarted (:meth:`Tournaments.tick`).

Each pairing's match is a normal game of the chat (buttons, typed moves, deadlines, fair
dice, rated per chat); its settings name the tournament and the pairing.

The package, one job a module: ``words`` (the command's words and settings), ``base`` (the
record's bookkeeping), ``cards`` (the entry card and the standings picture), ``rounds``
(matches started, results taken), ``clock`` (deadlines and start times) and ``commands``
(:class:`Tournaments`, the command and the card's buttons).
"""

from .base import PREFIX, RETRY_AFTER
from .commands import Tournaments

__all__ = ["PREFIX", "RETRY_AFTER", "Tournaments"]
