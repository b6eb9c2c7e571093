"""Information commands: help, rules, language, leaderboards, statistics, export, dice."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from babel.dates import get_month_names

from bot.i18n import LANGUAGE_NAMES, Text, normalize_language, t, tn, translate
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User
from core.dice import SeededDice, verify_game_rolls
from core.events import dice_record
from core.export import contest_terms, record_match_id
from core.gnubg import position_id
from core.match import Match
from core.variants import variant_by_name

from . import words as W
from .commands import help_lines, unknown_argument
from .errors import UserFacingError
from .export import export_match, record_file_name
from .lang import language
from .people import People
from .presenter import VARIANT_NAMES
from .settings import ServiceSettings
from .views import Actor, Place, View
from .words import first_kind, kind_of

log = logging.getLogger(__name__)

#: Each game's rules in brief (rules.md), as ``/rules`` tells them.
_HIT = t(
    "You may land on a point with one opposing checker and hit it to the bar; two or more close the point."
)
_BAR = t("Checkers on the bar enter first. Use both dice if you can, the larger if only one.")
RULES: dict[str, tuple[Text, ...]] = {
    "tavla": (
        t("Tavla: move your 15 checkers home (points 1–6) and bear them off first."),
        _HIT,
        _BAR,
        t(
            "Win with the opponent having borne off none: mars (gammon), 2 points; with a checker still in your home or on the bar: 3."
        ),
        t(
            "The cube doubles the stakes. /rules turkish for Turkish tavla (no cube), /rules uzun for long nardy."
        ),
    ),
    "turkish": (
        t(
            "Turkish tavla: move your 15 checkers home (points 1–6) and bear them off first; there is no doubling cube."
        ),
        _HIT,
        _BAR,
        t(
            "A win is 1 point; with the opponent having borne off none, mars: 2 points. There is no katmerli mars (backgammon)."
        ),
        t(
            "In a match the winner of a game opens the next one, rolling both dice. /rules tavla for the game with the cube, /rules uzun for long nardy."
        ),
    ),
    "uzun": (
        t(
            "Uzun Tavla: all 15 checkers start on your head (point 24); both players move the same way round."
        ),
        t("No hitting: a point with any opposing checker is closed."),
        t(
            "Only one checker may leave the head per turn. On your first turn a second one leaves "
            "when one alone cannot play the whole roll: 6-6, 4-4 or 3-3 from the start, and for "
            "the second player also a roll that the first player's checker blocks."
        ),
        t("You may not build a wall of six points unless an opposing checker is already past it."),
        t(
            "Bear off once all 15 are home. Winning before the opponent bears off any is mars: 2 points."
        ),
    ),
}

#: The rating chart's words (renderers.chart.CHART_LABELS), marked for translation.
CHART_WORDS: dict[str, Text] = {
    "title": t("Rating of {name}"),
    "subtitle": t("{variant} · rated games: {n}"),
    "rating": t("rating"),
}

#: What ``/export`` says of its file (besides "for GNU Backgammon" for Tavla).
NOTATION_FILE = t(
    "Game {id} ({variant}) in Tavla's notation: read it back with python -m core analyse; "
    "the format is described in docs/notation.md."
)
JACOBY_OFF = t(
    "One game is written as money play (the cube and mars count in its points), played "
    "without the Jacoby rule: turn Jacoby off in GNU Backgammon (set jacoby off) before "
    "importing it."
)
JACOBY_ON = t(
    "Money play with the Jacoby rule: turn Jacoby on in GNU Backgammon (set jacoby on) "
    "before importing it."
)


def chart_labels(lang: str) -> dict[str, str]:
    """The rating chart's words in ``lang``, the months' short names from Babel's data."""
    words = {key: translate(text, lang) for key, text in CHART_WORDS.items()}
    names = get_month_names("abbreviated", context="format", locale=lang)
    words["months"] = " ".join(str(names[m]).rstrip(".") for m in range(1, 13))
    return words


@dataclass(eq=False)
class Info:
    """Commands that tell rather than play (the storage, the people named, the settings)."""

    storage: Storage
    people: People
    settings: ServiceSettings

    async def help(
        self, *, user: User, chat: Chat, reply_to_game: int | None = None, **_: Any
    ) -> list[View]:
        """``/help``: every command, from the catalogue; what a command takes as the game
        played here (or last) has it (no backgammon to resign in Uzun Tavla)."""
        kind = await self._kind_played(user, chat, reply_to_game)
        lines: list[Text | str] = [
            t("Tavla bot: backgammon and long nardy with friends or the computer."),
            t("New to the game? /learn plays a first game that explains everything as it comes."),
            *help_lines(variant_by_name(kind)),
        ]
        return [View(lines, lang=language(user, chat))]

    async def rules(
        self,
        *,
        user: User,
        chat: Chat,
        args: str = "",
        reply_to_game: int | None = None,
        **_: Any,
    ) -> list[View]:
        """``/rules [turkish|uzun]``: the rules of a game in brief (any spelling of its name
        the commands take: ``/rules нарды``); without one, those of the game the player is
        playing here (a Turkish tavla player is not shown the cube game's), else Tavla's."""
        kind = kind_of(args.strip()) or await self._kind_played(user, chat, reply_to_game)
        return [View(list(RULES[kind]), lang=language(user, chat))]

    async def _kind_played(self, user: User, chat: Chat, game_id: int | None) -> str:
        """The kind of the player's game here: the one replied to, else the one going on
        (the latest), else the one finished last; ``tavla`` when there is none."""
        for statuses in ((GameStatus.ACTIVE,), (GameStatus.FINISHED,)):
            games = await self._games_here(user, chat, statuses)
            if games:
                chosen = next(
                    (g for g in games if g.id == game_id), max(games, key=lambda g: g.updated)
                )
                return Match.from_dict(chosen.match or {}).variant.name
        return "tavla"

    async def set_lang(
        self, *, user: User, chat: Chat, place: Place, args: str, **_: Any
    ) -> list[View]:
        """``/lang tr|en|ru``: the person's language in private, the group's in a group."""
        code = normalize_language(args.strip())
        if code is None:
            choices = ", ".join(f"{c} ({n})" for c, n in LANGUAGE_NAMES.items())
            raise UserFacingError(t("Choose a language: {choices}", choices=choices))
        if place.private:
            await self.storage.set_user_lang(user.id, code)
        else:  # the group's language for everyone; each person's own stays theirs
            await self.storage.set_chat_lang(place.platform, place.chat_id, code)
        return [View([t("Language set: {name}", name=LANGUAGE_NAMES[code])], lang=code)]

    async def top(self, *, user: User, chat: Chat, place: Place, args: str, **_: Any) -> list[View]:
        """``/top [pool] [game]``: the leaderboard of the chat (of everyone in private), or of
        the pool's games (``pool``)."""
        kind = first_kind(args) or "tavla"
        pool = any(word.casefold() in W.POOL for word in args.split())
        scope = "pool" if pool else "global" if place.private else chat.scope
        rows = await self.storage.top(scope, kind, 10)
        title = VARIANT_NAMES[kind]
        if pool:
            title = t("{title} (the pool)", title=title)
        if not rows:
            return [
                View(
                    [t("No rated {title} games here yet.", title=title)],
                    lang=language(user, chat, private=place.private),
                )
            ]
        lines: list[Text | str] = [t("🏆 {title} leaderboard", title=title)]
        for i, (player, row) in enumerate(rows, 1):
            lines.append(f"{i}. {player.name} — {round(row.rating)} ({row.games})")
        return [View(lines, lang=language(user, chat, private=place.private))]

    async def reset_top(
        self, *, user: User, chat: Chat, place: Place, args: str, actor: Actor, **_: Any
    ) -> list[View]:
        """Admin only: clear this chat's leaderboard (one game kind, or all)."""
        if place.private:
            raise UserFacingError(t("A leaderboard can be reset only in a group."))
        if not actor.admin:
            raise UserFacingError(t("Only the chat's administrators can reset its leaderboard."))
        kind = first_kind(args)
        count = await self.storage.reset_scope(chat.scope, kind)
        log.info("leaderboard %s (%s) reset by user %s", chat.scope, kind or "all", user.id)
        return [
            View(
                [
                    tn(
                        "{name} reset this chat's leaderboard ({n} rating).",
                        "{name} reset this chat's leaderboard ({n} ratings).",
                        count,
                        name=user.name,
                    )
                ],
                lang=language(user, chat, private=False),
            )
        ]

    async def stats(
        self,
        *,
        user: User,
        chat: Chat,
        place: Place,
        args: str,
        mentions: list[Actor],
        reply_to_game: int | None = None,
        **_: Any,
    ) -> list[View]:
        """``/stats [@name] [game]``: a player's results and rating, with the rating chart;
        without a game's name, in the game the asker plays here (else Tavla)."""
        target = user
        words = [w for w in args.split() if kind_of(w) is None]
        if not mentions and len(words) > 1:  # one player's statistics at a time
            raise UserFacingError(unknown_argument("stats", words[1]))
        if mentions:
            target = await self.people.user(mentions[0])
        elif words:
            found = await self.storage.find_user(place.platform, words[0].lstrip("@"))
            if found is None:
                raise UserFacingError(
                    t("I don't know {name} yet: they need to write to me once.", name=words[0])
                )
            target = found
        kind = first_kind(args) or await self._kind_played(user, chat, reply_to_game)
        # Games against oneself (both sides played on one keyboard) are practice: left out.
        results = [
            r
            for r in await self.storage.results_of_user(target.id, kind)
            if r.winner_id != r.loser_id
        ]
        played = len(results)
        won = sum(1 for r in results if r.winner_id == target.id)
        gammons = sum(r.gammons + r.backgammons for r in results if r.winner_id == target.id)
        rating = await self.rating(target.id, kind)
        lines: list[Text | str] = [
            t("{name} · {title}", name=target.name, title=VARIANT_NAMES[kind]),
            t("Played {n}, won {w}, mars won {g}", n=played, w=won, g=gammons),
            t("Rating {r} (experience {e})", r=round(rating[0]), e=rating[1]),
        ]
        history = await self.storage.rating_history(target.id, "global", kind)
        lang = language(user, chat, private=place.private)
        image = None
        if len(history) >= 2 and self.settings.render_images:
            from renderers.chart import rating_chart

            image = await asyncio.to_thread(
                partial(
                    rating_chart,
                    history,
                    name=target.name,
                    variant=translate(VARIANT_NAMES[kind], lang),
                    labels=chart_labels(lang),
                )
            )
        return [View(lines, lang=lang, image=image, image_stem=f"rating-{target.id}-{kind}")]

    async def rating(self, user_id: int, kind: str) -> tuple[float, int]:
        """A player's global rating and experience in one game."""
        async with self.storage.transaction() as tx:
            row = await tx.get_rating(user_id, "global", kind)
        return row.rating, row.experience

    async def export(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/export``: the player's latest game here as a file (GNU Backgammon's ``.mat`` for
        Tavla, Tavla's notation for Turkish tavla and Uzun Tavla)."""
        record = await self._latest_game(user, chat, reply_to_game)
        events = await self.storage.events(record.stored_id)
        match = Match.from_dict(record.match or {})
        names = list(record.settings.names or ["White", "Black"])
        text = export_match(match, names, [e.data for e in events if e.type == "core"])
        kind = match.variant.name
        lines: list[Text | str] = []
        if kind == "tavla":
            lines.append(t("Game {id} for GNU Backgammon.", id=record.id))
            length, jacoby = contest_terms(match)
            if length == 0:
                lines.append(JACOBY_ON if jacoby else JACOBY_OFF)
        else:
            lines.append(
                Text(NOTATION_FILE.msgid, {"id": record.id, "variant": VARIANT_NAMES[kind]})
            )
        if match.game is not None:
            pid = position_id(match.game.position())
            if kind == "uzun":
                lines.append(t("Position ID (Uzun Tavla numbering): {pid}", pid=pid))
            else:
                lines.append(f"Position ID: {pid}")
            if kind == "tavla":
                lines.append(f"Match ID: {record_match_id(match)}")
        return [
            View(
                lines,
                lang=language(user, chat),
                document=(record_file_name(kind, record.id), text.encode()),
            )
        ]

    async def dice(
        self, *, user: User, chat: Chat, reply_to_game: int | None, **_: Any
    ) -> list[View]:
        """``/dice``: the dice commitment, and once the game is over its seed and every roll
        checked."""
        record = await self._latest_game(user, chat, reply_to_game)
        lines: list[Text | str] = [
            t("Dice commitment (SHA-256 of the secret seed): {c}", c=record.commitment)
        ]
        if record.status in (GameStatus.FINISHED, GameStatus.ABORTED):
            seed = SeededDice.from_dict(record.dice).seed_hex
            events = await self.storage.events(record.stored_id)
            rolls = dice_record(e.data for e in events if e.type == "core")
            result = verify_game_rolls(seed, record.commitment, rolls)
            lines.append(t("Seed: {seed}", seed=seed))
            lines.append(
                # The recipe in full, so that anyone can redo it by hand: each die has its
                # own number (an opening die too), and a byte of 252 or more is skipped so
                # that the six faces are exactly equally likely.
                tn(
                    "Die number k (0, 1, 2… in the order drawn, opening dice included) is "
                    "b mod 6 + 1, where b is the first byte below 252 of HMAC-SHA256(seed, k as 8 "
                    "bytes, big-endian); the {n} roll checks out: {ok}.",
                    "Die number k (0, 1, 2… in the order drawn, opening dice included) is "
                    "b mod 6 + 1, where b is the first byte below 252 of HMAC-SHA256(seed, k as 8 "
                    "bytes, big-endian); all {n} rolls check out: {ok}.",
                    len(rolls),
                    ok="✅" if result.ok else "❌",
                )
            )
        else:
            if Match.from_dict(record.match or {}).length > 1:
                lines.append(t("The seed is revealed when the match ends."))
            else:
                lines.append(t("The seed is revealed when the game ends."))
        return [View(lines, lang=language(user, chat))]

    async def _games_here(
        self, user: User, chat: Chat, statuses: tuple[GameStatus, ...]
    ) -> list[GameRecord]:
        """The player's games in this chat with one of ``statuses`` (a challenge not yet
        accepted has no match and is left out)."""
        return [
            g
            for g in await self.storage.games_in_chat(chat.platform, chat.chat_id, statuses)
            if user.id in g.seats and g.match is not None
        ]

    async def _latest_game(self, user: User, chat: Chat, game_id: int | None) -> GameRecord:
        if game_id is not None:
            record = await self.storage.get_game(game_id)
            if record is not None and record.match is not None:
                return record
        statuses = (GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ABORTED)
        games = await self._games_here(user, chat, statuses)
        if not games:
            raise UserFacingError(t("You have no game here. Start one with /tavla, /uzun or /bot."))
        return max(games, key=lambda g: g.updated)
