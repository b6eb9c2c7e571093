"""``/analyse``: the analysis of a finished contest, answered with the analysis card.

The command takes the chat's last finished contest of the player who asks (or the one given
by number, or the one whose board is replied to). In a group the card goes to the group,
with a line pointing to the private chat; asked in private (``/analyse 42``), the answer
also carries the whole list of decisions as a document and the ``.mat`` export with the
analysis as comments.

Analysing takes seconds of CPU (issue 15), so it runs off the event
loop in a process of its own (see :func:`_run`), and only one at a time per bot process: a
second request meanwhile is told to try again in a minute rather than queued behind it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Text, catalog, t
from bot.storage.base import Chat, GameRecord, GameStatus, User
from core.analysis import MatchAnalysis, analyse_match
from core.export import export_games, split_games
from core.match import Match
from renderers.analysis_card import render_analysis_card
from renderers.analysis_text import analysis_text, mat_comments

from .views import View

if TYPE_CHECKING:
    from .service import GameService, Place

#: The card's and the document's words (renderers.analysis_card.CARD_LABELS and
#: renderers.analysis_text.TEXT_LABELS), marked for translation.
WORDS: dict[str, Text] = {
    "title": t("Game analysis"),
    "match": t("{variant} · match to {n}"),
    "money": t("{variant} · money game"),
    "single": t("{variant} · single game"),
    "evaluator": t("analysed with {name}"),
    "error_rate": t("Error rate (millipoints)"),
    "pr": t("PR"),
    "decisions": t("Decisions"),
    "doubtful": t("Doubtful"),
    "bad": t("Bad"),
    "very_bad": t("Very bad"),
    "luck": t("Luck (points)"),
    "luck_adjusted": t("Luck-adjusted result"),
    "worst": t("Costliest decisions"),
    "where": t("Game {game}, move {move} · {name}"),
    "played": t("Played: {play}"),
    "best": t("Best: {play}"),
    "loss": t("−{loss} equity"),
    "no_errors": t("No decision cost anything: every play was the best one."),
    "double": t("double"),
    "no double": t("no double"),
    "take": t("take"),
    "pass": t("pass"),
    "tavla": t("Tavla"),
    "turkish": t("Turkish tavla"),
    "uzun": t("Uzun Tavla"),
    "Awful!": t("Awful!"),
    "Beginner": t("Beginner"),
    "Casual player": t("Casual player"),
    "Intermediate": t("Intermediate"),
    "Advanced": t("Advanced"),
    "Expert": t("Expert"),
    "World class": t("World class"),
    "Supernatural": t("Supernatural"),
    "line": t("{where}: {played} (best {best}) {loss}"),
    "forced_note": t("Forced moves are not listed: they are not decisions."),
    "mat_summary": t("{name}: {rating}, error rate {rate} millipoints, PR {pr}, luck {luck}"),
    # The small boards' words.
    "pips": t("pips"),
    "to_move": t("to move"),
}

BUSY = t("I am analysing another game: try again in a minute, please.")
NOT_FINISHED = t("That game is not finished yet: it can be analysed when it ends.")
NO_FINISHED = t("You have no finished game here to analyse.")
NOT_FOUND = t("There is no game {id} of yours to analyse.")
DONE_GROUP = t(
    "Analysis of game {id}. For every decision, send me /analyse {id} in a private chat."
)
DONE_PRIVATE = t(
    "Analysis of game {id}: every decision in the document, and the game for GNU Backgammon "
    "with the errors as comments."
)

#: Analyses running in this process (at most one: each takes a core for seconds).
_running = 0
_worker: ProcessPoolExecutor | None = None


async def _run(
    record: GameRecord, core_events: list[dict[str, Any]], words: Mapping[str, str], theme: str
) -> AnalysisFiles:
    """:func:`analyse_record` in the analysis process, started at the first analysis.

    A process rather than a thread: the analysis holds the interpreter for seconds (a
    thread would slow every press meanwhile), and GNU Backgammon's module only works in the
    one thread that first used it.
    """
    global _worker
    if _worker is None:
        _worker = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(
            _worker, analyse_record, record, core_events, words, theme
        )
    except BrokenProcessPool:
        _worker = None  # the process died (killed, out of memory): a new one next time
        raise


def labels(lang: str) -> dict[str, str]:
    """The card's and the document's words in ``lang``, their ``{fields}`` left for the
    renderers to fill (``translate`` would fill them, and fall back to English without)."""
    words = catalog(lang if lang in LANGUAGES else DEFAULT_LANGUAGE)
    return {key: words.gettext(text.msgid) for key, text in WORDS.items()}


@dataclass(frozen=True)
class AnalysisFiles:
    """What one analysis gives the chat: the card, the decision list and the ``.mat``."""

    analysis: MatchAnalysis
    card: bytes
    document: str
    mat: str


def analyse_record(
    record: GameRecord,
    core_events: list[dict[str, Any]],
    words: Mapping[str, str],
    theme: str = "classic",
) -> AnalysisFiles:
    """Analyse a stored contest and draw its card (pure and slow: run it in a thread)."""
    match = Match.from_dict(record.match or {})
    names = record.settings.names or ["White", "Black"]
    games = split_games(core_events)
    analysis = analyse_match(
        match.variant,
        games,
        length=match.length,
        names=(str(names[0]), str(names[1])),
        jacoby=match.jacoby and match.length == 0,
    )
    mat = export_games(
        names,
        match.length,
        games,
        variant=match.variant.name,
        comments=mat_comments(analysis, words),
    )
    return AnalysisFiles(
        analysis,
        render_analysis_card(analysis, words, theme=theme),
        analysis_text(analysis, words),
        mat,
    )


async def analyse_command(
    service: GameService,
    *,
    user: User,
    chat: Chat,
    place: Place,
    args: str,
    reply_to_game: int | None,
    **_: Any,
) -> list[View]:
    """``/analyse [game number]`` (see the module doc)."""
    global _running
    lang = service._lang(user, chat, private=place.private)
    record = await _finished_game(service, user, chat, args, reply_to_game)
    if _running:
        return [View([BUSY], lang=lang, notice=True)]
    _running += 1
    try:
        events = await service.storage.events(record.id)  # type: ignore[arg-type]
        core_events = [e.data for e in events if e.type == "core"]
        files = await _run(record, core_events, labels(lang), service.settings.theme)
    finally:
        _running -= 1
    if not place.private:
        return [View([Text(DONE_GROUP.msgid, {"id": record.id})], lang=lang, image=files.card)]
    return [
        View([Text(DONE_PRIVATE.msgid, {"id": record.id})], lang=lang, image=files.card),
        View([], lang=lang, document=(f"analysis-{record.id}.txt", files.document.encode())),
        View([], lang=lang, document=(f"tavla-{record.id}-analysed.mat", files.mat.encode())),
    ]


async def _finished_game(
    service: GameService, user: User, chat: Chat, args: str, reply_to_game: int | None
) -> GameRecord:
    """The contest to analyse: the one named or replied to, else the chat's last finished
    contest the user played in."""
    from .service import UserFacingError

    wanted = args.strip().lstrip("#")
    game_id = int(wanted) if wanted.isdigit() else reply_to_game
    if game_id is not None:
        record = await service.storage.get_game(game_id)
        if record is None or record.match is None or user.id not in record.seats:
            raise UserFacingError(Text(NOT_FOUND.msgid, {"id": game_id}))
        if record.status is not GameStatus.FINISHED:
            raise UserFacingError(NOT_FINISHED)
        return record
    games = [
        g
        for g in await service.storage.games_in_chat(
            chat.platform, chat.chat_id, (GameStatus.FINISHED,)
        )
        if user.id in g.seats and g.match is not None
    ]
    if not games:
        raise UserFacingError(NO_FINISHED)
    return max(games, key=lambda g: g.updated)
