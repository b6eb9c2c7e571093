"""An opponent found for a player who is playing the computer meanwhile: they are asked.

A player waiting in the pool may play the computer meanwhile (the pool offers it after a
minute). When a pairing finds them busy so, their game does not start beside the other one
unasked: both entries are *held* for each other (kept in the pool, out of any other pairing)
and the busy player is asked, in a new message: **Start now** (the computer's game waits for
them, a day a move), **After this game** (the pool game starts as soon as that one ends) or
**Decline** (they leave the pool, the other waits on). The other player is told meanwhile.

No answer within :data:`ANSWER_WITHIN` counts as declining; a game against the computer
still going after :data:`AFTER_WITHIN` lets the other go. The deadline rounds see to both
(any worker), and to a hold whose partner left; a player's own press that ends their game
against the computer starts the held game at once (:meth:`Asks.after_game`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.i18n import Text, t
from bot.storage.base import GameStatus, PoolEntry, Storage, Transaction, User

from .lang import language
from .pool_counts import CountEdits
from .pool_games import Opened, PoolGames
from .pool_views import (
    AFTER,
    DECLINE,
    NOW,
    addressed,
    after_view,
    asked_view,
    left_view,
    question_view,
    seen,
    waiting_view,
)
from .seats import Seats
from .views import MessageRef, View

log = logging.getLogger(__name__)

#: Seconds a busy player has to answer before it counts as declining.
ANSWER_WITHIN = 120.0
#: How long the other waits for a game against the computer to end, by pace (seconds).
AFTER_WITHIN = {"fast": 15 * 60.0, "daily": 12 * 3600.0}
#: What a hold keeps in an entry's data: the partner, the question's state ("asked",
#: "after", "now"; "" for the one not asked), since when, and the entry's own eligibility.
_HOLD_KEYS = ("held", "ask", "since", "eligible")


def held(entry: PoolEntry, other: PoolEntry, now: float, *, ask: bool) -> PoolEntry:
    """``entry`` held for ``other``: out of every other pairing (never eligible) until the
    hold ends, its own eligibility kept to come back to."""
    data = {
        **entry.data,
        "held": other.user_id,
        "ask": "asked" if ask else "",
        "since": now,
        "eligible": entry.seeker.eligible,
    }
    return replace(entry, seeker=replace(entry.seeker, eligible=entry.seeker.expires), data=data)


def released(entry: PoolEntry) -> PoolEntry:
    """``entry`` waiting again as it did before its hold."""
    data = {k: v for k, v in entry.data.items() if k not in _HOLD_KEYS}
    eligible = float(entry.data.get("eligible", entry.seeker.joined))
    return replace(entry, seeker=replace(entry.seeker, eligible=eligible), data=data)


@dataclass
class _Shown:
    """What the settling of a hold shows one player afterwards."""

    kind: str  # "wait", "left", "after", "asked"
    entry: PoolEntry
    other: PoolEntry | None = None
    note: Text | None = None


@dataclass(eq=False)
class Asks:
    """Held pairings of players busy with the computer (the storage, the pool's games, the
    seats that deliver, the waiting messages' counts, the clock)."""

    storage: Storage
    games: PoolGames
    seats: Seats
    counts: CountEdits
    clock: Callable[[], float]
    #: Players on this worker who answered "after this game" (their own presses are
    #: watched for the end of that game; other workers' rounds catch the rest).
    after_pending: set[int] = field(default_factory=set)

    async def busy(self, user_id: int) -> bool:
        """Whether the player is in a game against the computer."""
        return any(
            g.settings.computer is not None
            for g in await self.storage.games_of_user(user_id, (GameStatus.ACTIVE,))
        )

    async def hold(
        self, tx: Transaction, first: PoolEntry, second: PoolEntry, busy: set[int], now: float
    ) -> tuple[PoolEntry, PoolEntry]:
        """Keep a pairing whose players in ``busy`` are asked first (in ``tx``, the
        pairing's own transaction); the two entries as held."""
        pair = (
            held(first, second, now, ask=first.user_id in busy),
            held(second, first, now, ask=second.user_id in busy),
        )
        for entry in pair:
            await tx.pool.put(entry)
        return pair

    async def show_hold(
        self, pair: tuple[PoolEntry, PoolEntry], asker: int | None = None
    ) -> list[View]:
        """The question to each busy player, and a word to the other: the views of
        ``asker`` returned, the rest delivered."""
        users = await self.storage.get_users(e.user_id for e in pair)
        shown = []
        for entry, other in (pair, pair[::-1]):
            kind = "question" if entry.data.get("ask") == "asked" else "asked"
            shown.append(_Shown(kind, entry, other))
        return await self._views(shown, users, asker)

    # -- answers, rounds, the end of a game against the computer ---------------------------

    async def answer(self, user: User, answer: str) -> list[View] | None:
        """The busy player's answer (:data:`NOW`, :data:`AFTER`, :data:`DECLINE`); None when
        there is no open question."""
        return await self._settle(user.id, answer, asker=user.id)

    async def after_game(self, user_id: int) -> None:
        """The player who answered "after this game" acted: if that game is over, start the
        held one (views delivered)."""
        if user_id in self.after_pending and not await self.busy(user_id):
            await self._settle(user_id, None, asker=None)

    async def tick(self, entries: list[PoolEntry]) -> list[View]:
        """The rounds: holds whose time is up, whose partner left, or whose game against the
        computer ended, settled; the views of the started games delivered, the rest returned."""
        views: list[View] = []
        for entry in entries:
            if "held" in entry.data:
                try:
                    views.extend(await self._settle(entry.user_id, None, asker=None) or [])
                except Exception:  # undone: the hold stands, the next round tries again
                    log.exception("a held pool pairing could not be settled")
        return views

    async def _settle(
        self, user_id: int, answer: str | None, *, asker: int | None
    ) -> list[View] | None:
        """Settle the hold of ``user_id``'s entry in one transaction under its bucket's lock:
        apply ``answer``, or (None) what time and the computer's game decide."""
        now = self.clock()
        found = await self.storage.pool.entry(user_id)
        if found is None or "held" not in found.data:
            return None
        shown: list[_Shown] = []
        opened: Opened | None = None
        async with self.storage.transaction() as tx:
            await tx.pool.lock(found.bucket)
            me = await tx.pool.entry(user_id)
            if me is None or "held" not in me.data:
                return None
            ask = me.data.get("ask", "")
            if answer is not None and ask not in ("asked", "after"):
                return None
            other = await tx.pool.entry(int(me.data["held"]))
            if other is None or other.data.get("held") != me.user_id:
                me = released(me)
                await tx.pool.put(me)
                shown.append(_Shown("wait", me, note=t("The player found left meanwhile.")))
            else:
                why = self._drop_why(me, answer, now) or (
                    await self._gave_up(me, now) if answer is None else None
                )
                if why is not None:
                    await tx.pool.leave(me.user_id)
                    other = released(other)
                    await tx.pool.put(other)
                    note = t("The player found could not play now: you wait on.")
                    shown += [_Shown("left", me, note=why), _Shown("wait", other, note=note)]
                else:
                    if answer is not None:
                        state = "now" if answer == NOW else "after"
                        me = replace(me, data={**me.data, "ask": state, "since": now})
                    if await self._ready(me) and await self._ready(other):
                        await tx.pool.leave(me.user_id)
                        await tx.pool.leave(other.user_id)
                        first, second = sorted((me, other), key=lambda e: e.seeker.joined)
                        opened = await self.games.open(tx, first, second)
                    elif answer is not None:
                        await tx.pool.put(me)
                        if answer == AFTER:
                            shown += [_Shown("after", me, other), _Shown("asked", other, me)]
        if answer == AFTER and opened is None and shown:
            self.after_pending.add(user_id)
        else:
            self.after_pending.discard(user_id)
        if opened is not None or any(s.kind == "left" for s in shown):
            self.counts.changed()  # two players or one left the pool
        if opened is not None:
            return await self.games.announce(opened, asker=asker)
        users = await self.storage.get_users(
            u for s in shown for u in (s.entry.user_id, s.other.user_id if s.other else None) if u
        )
        return await self._views(shown, users, asker)

    @staticmethod
    def _drop_why(entry: PoolEntry, answer: str | None, now: float) -> Text | None:
        """Why the player leaves the pool now: declined, or no answer in time."""
        if answer == DECLINE:
            return t("You declined.")
        waited = now - float(entry.data.get("since", now))
        if answer is None and entry.data.get("ask") == "asked" and waited > ANSWER_WITHIN:
            return t("No answer in time.")
        return None

    async def _gave_up(self, entry: PoolEntry, now: float) -> Text | None:
        """Whether the other waited long enough for the game against the computer."""
        if entry.data.get("ask") != "after":
            return None
        if now - float(entry.data.get("since", now)) <= AFTER_WITHIN[entry.seeker.pace]:
            return None
        if not await self.busy(entry.user_id):
            return None
        return t("Your opponent could not wait any longer.")

    async def _ready(self, entry: PoolEntry) -> bool:
        """Whether the player may start: not asked, said "now", or "after" with that game
        over."""
        ask = entry.data.get("ask", "")
        if ask == "asked":
            return False
        if ask == "after":
            return not await self.busy(entry.user_id)
        return True

    async def _views(
        self, shown: list[_Shown], users: dict[int, User], asker: int | None
    ) -> list[View]:
        """Each player's view of a hold's change: ``asker``'s returned, the rest delivered."""
        counts = await self.storage.pool.counts(self.clock()) if shown else {}
        out: list[View] = []
        for item in shown:
            entry = item.entry
            user = users.get(entry.user_id)
            chat = await self.storage.get_chat(entry.platform, entry.chat_id)
            lang = language(user, chat)
            other = users.get(item.other.user_id) if item.other is not None else None
            name = other.name if other is not None else "?"
            rating = item.other.seeker.rating if item.other is not None else 0.0
            if item.kind == "question":
                view = question_view(entry, name, rating, lang)
            elif item.kind == "asked":
                after = item.other is not None and item.other.data.get("ask") == "after"
                view = asked_view(entry, name, rating, lang, after=after)
            elif item.kind == "after":
                view = after_view(entry, name, lang)
            elif item.kind == "left":
                view = left_view(entry, lang, item.note)
            else:
                view = addressed(waiting_view(entry, counts, lang, item.note), entry)
                # What it says is recorded, so that the counts' edits keep the note.
                await self.storage.pool.update(
                    entry.user_id,
                    entry.seeker.joined,
                    entry.message,
                    {**entry.data, "seen": seen(entry, counts)},
                )
            if not view.edit:
                view.posted = self._keeper(entry)
            if entry.user_id == asker:
                out.append(view)
            else:
                self.seats.deliver([view])
        return out

    def _keeper(self, entry: PoolEntry) -> Callable[[MessageRef], Any]:
        """Where a message of the entry was posted, kept as its message (edited later)."""

        async def posted(ref: MessageRef) -> None:
            fresh = await self.storage.pool.entry(entry.user_id)
            if fresh is not None and fresh.seeker.joined == entry.seeker.joined:
                await self.storage.pool.update(entry.user_id, fresh.seeker.joined, ref, fresh.data)

        return posted


__all__ = ["AFTER_WITHIN", "ANSWER_WITHIN", "Asks", "held", "released"]
