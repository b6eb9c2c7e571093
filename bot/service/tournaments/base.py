"""What every part of the tournaments uses: the buttons' ids, the record's bookkeeping, the
chat's tournament, refusals and messages to the group."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from bot.i18n import Text
from bot.storage.base import Chat, GameRecord, Storage, TournamentRecord, TournamentStatus, User
from core.tournament import Stage, Tournament

from ..errors import UserFacingError
from ..lang import language
from ..views import View

log = logging.getLogger(__name__)

#: Button ids of tournament cards: ``tn:<tournament id>:<code>`` (game buttons are digits).
PREFIX = "tn:"
JOIN, LEAVE, START = "j", "l", "s"
#: A running tournament with matches to start is looked at again after this many seconds,
#: so a match a crash left unstarted is started by the deadline rounds.
RETRY_AFTER = 120.0


def countdown_step(left: float) -> float:
    """How long the card's countdown stands with ``left`` seconds to the start: coarse while
    the start is far, a minute in the last quarter hour. One tournament a chat, so at most
    one edit a minute in a group (Telegram allows about twenty)."""
    if left > 12 * 3600:
        return 3600.0
    if left > 2 * 3600:
        return 900.0
    if left > 15 * 60:
        return 300.0
    return 60.0


class Starts(Protocol):
    """What starts a tournament's matches: :class:`bot.service.contests.Contests`."""

    async def start(
        self, record: GameRecord, names: list[str], chat: Chat, user: User, *, new: bool
    ) -> list[View]: ...


def owns(data: str) -> bool:
    """Whether a button id is a tournament card's."""
    return data.startswith(PREFIX)


def manages(data: str) -> bool:
    """Whether a button is one only the organiser or a chat admin may press (Start): an
    adapter then asks its platform whether the presser administers the chat."""
    return data.startswith(PREFIX) and data.endswith(":" + START)


def address(views: list[View], chat: Chat, stored: TournamentRecord | None) -> list[View]:
    """Views made without an incoming message (the deadline rounds) addressed to the chat,
    and to the channel of the tournament's message where a chat has several."""
    for view in views:
        view.chat = (chat.platform, chat.chat_id)
        if stored is not None and stored.message:
            view.channel = stored.message
    return views


def store_state(
    stored: TournamentRecord, tourney: Tournament, now: float, waiting: bool = False
) -> None:
    """Write ``tourney`` into its record: state, status and when to look at it next."""
    stored.state = tourney.to_dict()
    stored.status = TournamentStatus(tourney.stage.value)
    stored.updated = now
    starts_at = tourney.settings.starts_at
    if tourney.stage is Stage.OPEN and starts_at is not None:
        # Looked at again to start it, and before that to refresh the card's countdown.
        stored.deadline = min(starts_at, now + countdown_step(starts_at - now))
    elif tourney.stage is Stage.OPEN:
        stored.deadline = None
    elif tourney.stage is Stage.RUNNING and (waiting or tourney.ready()):
        # Matches to start (or just started): should a crash stop them halfway, the
        # deadline rounds start the rest.
        stored.deadline = now + RETRY_AFTER
    else:
        stored.deadline = None


async def entrant_ratings(tx: Any, tourney: Tournament, chat: Chat) -> dict[int, float]:
    """Each entrant's rating in this chat and game, for the seeding (TN-2)."""
    kind = tourney.settings.game
    return {
        e.player: (await tx.get_rating(e.player, chat.scope, kind)).rating for e in tourney.entrants
    }


async def live_tournament(storage: Storage, chat: Chat) -> TournamentRecord | None:
    """The chat's tournament that has not ended, if any."""
    found = await storage.tournaments_in_chat(chat.platform, chat.chat_id)
    return found[0] if found else None


async def latest_tournament(storage: Storage, chat: Chat) -> TournamentRecord | None:
    """The chat's last tournament, ended or not."""
    found = await storage.tournaments_in_chat(chat.platform, chat.chat_id, tuple(TournamentStatus))
    return found[0] if found else None


def group_lang(chat: Chat, user: User | None) -> str:
    """The language of what the tournaments post in the group."""
    return language(user, chat, private=False)


def group(chat: Chat, *lines: Text | str) -> View:
    """A message to the group."""
    return View(list(lines), lang=group_lang(chat, None))


def say(user: User, chat: Chat, *lines: Text | str) -> View:
    """An answer to ``user`` in the group."""
    return View(list(lines), lang=group_lang(chat, user))


def refuse(text: Text) -> UserFacingError:
    """A refusal shown to the player."""
    return UserFacingError(text)
