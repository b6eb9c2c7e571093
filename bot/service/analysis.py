"""``/analyse``: the analysis of a finished contest, answered with the analysis card.

The command takes the chat's last finished contest of the player who asks (or the one given
by number, or the one whose board is replied to); the *Analyse* button under a finished
board takes that contest. In a group the card goes to the group, with a line pointing to the
private chat; asked in private (``/analyse 42``), the answer also carries the whole list of
decisions as a document and the ``.mat`` export with the analysis as comments. A chat whose
admins switched on automatic analysis (``/settings`` in the group) gets the card of every
finished rated match.

Analysing takes seconds of CPU, so it never holds up play: the request is
answered at once with a "working…" message, the analysis runs in a process of its own (see
:func:`_run`), one at a time per bot process, and the "working…" message is edited with the
progress of a long match (coarse steps, far apart: Telegram allows about 20 edits a minute
in a group) and when the card is ready; the card and documents follow as new messages,
delivered through the adapters' outlets (:meth:`Background.deliver_later`). A request while
another analysis runs is told to try again in a minute; an automatic analysis waits its turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bot import metrics
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, Text, catalog, t, translate
from bot.storage.base import Chat, GameRecord, GameStatus, Storage, User
from core.analysis import MatchAnalysis, analyse_match
from core.export import contest_terms, split_games
from core.match import Match
from renderers.analysis_card import render_analysis_card
from renderers.analysis_text import analysis_text, mat_comments

from .background import Background
from .compiling import start_compiling, wait_for_compiling
from .errors import UserFacingError
from .export import export_match, record_file_name
from .lang import language
from .numbers import parse_id
from .settings import ServiceSettings
from .store import GameStore, seat_names
from .views import MessageRef, Place, View
from .workers import exit_with_parent

if TYPE_CHECKING:
    from multiprocessing.queues import SimpleQueue

log = logging.getLogger(__name__)

#: The card's and the document's words (renderers.analysis_card.CARD_LABELS and
#: renderers.analysis_text.TEXT_LABELS), marked for translation.
WORDS: dict[str, Text] = {
    "title": t("Game analysis"),
    "match": t("{variant} · match to {n}"),
    "money": t("{variant} · money game"),
    "single": t("{variant} · single game"),
    "evaluator": t("analysed with {name}"),
    # The project's own evaluator by the name core.analysis gives it (gnubg keeps its name).
    "network 1-ply": t("the bot's own network (1-ply)"),
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
    "no_decisions": t("Nothing to judge: the game ended before anyone had a choice to make."),
    "No decisions": t("No decisions"),
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
USAGE = t("Write /analyse for your last finished game here, or /analyse 42 for game 42.")
DONE_GROUP = t(
    "Analysis of game {id}. For every decision, send me /analyse {id} in a private chat."
)
DONE_PRIVATE = t(
    "Analysis of game {id}: every decision in the document, and the game for GNU Backgammon "
    "with the errors as comments."
)
DONE_PRIVATE_NOTATION = t(
    "Analysis of game {id}: every decision in the document, and the game in Tavla's "
    "notation with the errors as comments (docs/notation.md)."
)
WORKING = t("⏳ Analysing game {id}…")
PROGRESS = t("⏳ Analysing game {id}… {percent}%")
READY = t("✅ The analysis of game {id} is ready.")
FAILED = t("Sorry, the analysis of game {id} failed. The game itself is safe.")

#: The "working…" message is edited at most this often (seconds) and only at these shares
#: of the work done: a 3-point match takes seconds, a long one a minute or more, and a group
#: may have a few analyses and games going at once within Telegram's ~20 edits a minute.
PROGRESS_EVERY = 15.0
PROGRESS_STEPS = (25, 50, 75)
#: How long to wait (seconds) for the adapter to say where it posted "working…".
POSTED_WITHIN = 10.0
#: How often (seconds) the event loop looks for progress from the analysis process.
PROGRESS_POLL = 1.0

_worker: ProcessPoolExecutor | None = None
#: Progress from the analysis process: (job, done, total). A simple queue writes each report
#: before the analysis returns (a Queue's feeder thread could send it after the result).
_progress: SimpleQueue[tuple[int, int, int]] | None = None
#: In the analysis process: where to put progress.
_worker_progress: SimpleQueue[tuple[int, int, int]] | None = None
_jobs = itertools.count(1)

Report = Callable[[int, int], None]


def _worker_init(progress: SimpleQueue[tuple[int, int, int]]) -> None:
    """In the analysis process: remember where progress goes; end with the bot; load the
    compiled search once the bot's child has made it."""
    global _worker_progress
    _worker_progress = progress
    exit_with_parent()
    start_compiling(wait_for_compiling)


def _in_worker(
    job: int,
    record: GameRecord,
    core_events: list[dict[str, Any]],
    words: Mapping[str, str],
    theme: str,
) -> AnalysisFiles:
    """:func:`analyse_record` in the analysis process, its progress sent to the bot process
    in steps of a tenth (a put per roll would cost more than it tells)."""
    sent = -1

    def report(done: int, total: int) -> None:
        nonlocal sent
        tenth = 10 * done // max(total, 1)
        if tenth != sent and _worker_progress is not None:
            sent = tenth
            _worker_progress.put((job, done, total))

    return analyse_record(record, core_events, words, theme, progress=report)


async def _run(
    record: GameRecord,
    core_events: list[dict[str, Any]],
    words: Mapping[str, str],
    theme: str,
    progress: Report,
) -> AnalysisFiles:
    """:func:`analyse_record` in the analysis process, started at the first analysis;
    ``progress(done, total)`` is called on the event loop as the work goes on.

    A process rather than a thread: the analysis holds the interpreter for seconds (a
    thread would slow every press meanwhile), and GNU Backgammon's module only works in the
    one thread that first used it.
    """
    global _worker, _progress
    if _worker is None:
        context = multiprocessing.get_context("spawn")
        _progress = context.SimpleQueue()
        _worker = ProcessPoolExecutor(
            1, mp_context=context, initializer=_worker_init, initargs=(_progress,)
        )
    job = next(_jobs)
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_worker, _in_worker, job, record, core_events, words, theme)
    try:
        while True:
            done, _ = await asyncio.wait({future}, timeout=PROGRESS_POLL)
            _drain(job, progress)
            if done:
                return future.result()
    except BrokenProcessPool:
        _worker = None  # the process died (killed, out of memory): a new one next time
        raise


def _drain(job: int, progress: Report) -> None:
    """Hand the progress the analysis process reported to ``progress``."""
    while _progress is not None and not _progress.empty():
        who, done, total = _progress.get()
        if who == job:
            progress(done, total)


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
    progress: Report | None = None,
) -> AnalysisFiles:
    """Analyse a stored contest and draw its card (pure and slow: run it in a process)."""
    match = Match.from_dict(record.match or {})
    names = record.settings.names or ["White", "Black"]
    # The contest on the terms its record gives it (a one-game Tavla contest is money play
    # of one game), so that the analysis is the one `python -m core analyse` makes of it.
    length, jacoby = contest_terms(match)
    analysis = analyse_match(
        match.variant,
        split_games(core_events),
        length=length,
        names=(str(names[0]), str(names[1])),
        jacoby=jacoby,
        progress=progress,
    )
    mat = export_match(match, list(names), core_events, mat_comments(analysis, words))
    return AnalysisFiles(
        analysis,
        render_analysis_card(analysis, words, theme=theme),
        analysis_text(analysis, words),
        mat,
    )


def shown_names(record: GameRecord, lang: str) -> GameRecord:
    """``record`` with its players' names as ``lang`` shows them (the computer's level in the
    reader's words), for the card and the document drawn away from the service."""
    names = tuple(translate(name, lang) for name in seat_names(record, ("White", "Black")))
    return replace(record, settings=replace(record.settings, names=names))


class _Job:
    """One analysis on its way: the "working…" message, its progress, then the results."""

    def __init__(
        self, service: Analysis, record: GameRecord, chat: Chat, lang: str, private: bool
    ) -> None:
        assert record.id is not None
        self.service = service
        self.record = record
        self.game_id = record.id
        self.chat = chat
        self.lang = lang
        self.private = private
        # Where the adapter posted "working…" (None: it could not tell, e.g. the console).
        self.posted: asyncio.Future[MessageRef | None] = asyncio.get_running_loop().create_future()
        self.started = service.clock()
        self.last_edit = self.started
        self.step = 0

    @property
    def address(self) -> tuple[str, str]:
        return (self.chat.platform, self.chat.chat_id)

    def working_view(self) -> View:
        """The "working…" message, answered at once."""
        return View(
            [Text(WORKING.msgid, {"id": self.game_id})],
            lang=self.lang,
            chat=self.address,
            # Where the game is (Discord needs the board's channel for later messages).
            message=self.record.message,
            posted=self._was_posted,
        )

    async def _was_posted(self, where: MessageRef) -> None:
        if not self.posted.done():
            self.posted.set_result(where)

    def progress(self, done: int, total: int) -> None:
        """Edit "working…" with the share done: only past a new coarse step, and only once
        :data:`PROGRESS_EVERY` seconds have passed since the start or the last edit (a short
        match is done before its first edit)."""
        percent = 100 * done // max(total, 1)
        step = max((s for s in PROGRESS_STEPS if s <= percent), default=0)
        now = self.service.clock()
        if step <= self.step or now - self.last_edit < PROGRESS_EVERY or not self.posted.done():
            return
        where = self.posted.result()
        if where is None:
            return
        self.step, self.last_edit = step, now
        edit = Text(PROGRESS.msgid, {"id": self.game_id, "percent": step})
        self.service.background.spawn(
            self.service.background.deliver_later(self._edit(edit, where))
        )

    def _edit(self, line: Text, where: MessageRef) -> View:
        return View([line], lang=self.lang, chat=self.address, message=where, edit=True)

    async def run(self, lock: asyncio.Lock) -> None:
        """Analyse (waiting for the analysis before, if any), then deliver the results."""
        service = self.service
        try:
            async with lock:
                events = await service.storage.events(self.game_id)
                core_events = [e.data for e in events if e.type == "core"]
                files = await _run(
                    shown_names(self.record, self.lang),
                    core_events,
                    labels(self.lang),
                    service.settings.theme,
                    self.progress,
                )
        except Exception:
            log.exception("the analysis of game %s failed", self.game_id)
            await self._finish([], Text(FAILED.msgid, {"id": self.game_id}))
            return
        await self._finish(self.results(files), Text(READY.msgid, {"id": self.game_id}))

    def results(self, files: AnalysisFiles) -> list[View]:
        """The card (and in private the documents), as new messages where "working…" is."""
        where = self.record.message
        if self.posted.done() and self.posted.result() is not None:
            where = self.posted.result()
        common: dict[str, Any] = {"lang": self.lang, "chat": self.address, "message": where}
        done = DONE_PRIVATE if self.record.variant == "tavla" else DONE_PRIVATE_NOTATION
        if not self.private:
            return [
                View(
                    [Text(DONE_GROUP.msgid, {"id": self.game_id})],
                    image=files.card,
                    image_stem=f"analysis-{self.game_id}",
                    **common,
                )
            ]
        return [
            View(
                [Text(done.msgid, {"id": self.game_id})],
                image=files.card,
                image_stem=f"analysis-{self.game_id}",
                **common,
            ),
            View([], document=(f"analysis-{self.game_id}.txt", files.document.encode()), **common),
            View(
                [],
                document=(
                    record_file_name(self.record.variant, self.game_id, analysed=True),
                    files.mat.encode(),
                ),
                **common,
            ),
        ]

    async def _finish(self, results: list[View], line: Text) -> None:
        """Say the analysis is over on "working…" (or anew when its place is not known),
        then deliver ``results``."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.posted), POSTED_WITHIN)
        where = self.posted.result() if self.posted.done() else None
        if where is not None:
            await self.service.background.deliver_later(self._edit(line, where))
        elif not results:
            await self.service.background.deliver_later(
                View([line], lang=self.lang, chat=self.address, message=self.record.message)
            )
        for view in results:
            await self.service.background.deliver_later(view)


@dataclass(eq=False)
class Analysis:
    """``/analyse``, the *Analyse* button, and automatic analysis of rated matches (the
    storage, the store for the game's language, the clock, the settings for the card's
    theme, the background work the analyses run as)."""

    storage: Storage
    store: GameStore
    clock: Callable[[], float]
    settings: ServiceSettings
    background: Background
    #: One analysis at a time in this process (see :func:`_run`); made on the first.
    _analysis_lock: asyncio.Lock | None = field(default=None, init=False)

    def _analysis_queue(self) -> asyncio.Lock:
        if self._analysis_lock is None:
            self._analysis_lock = asyncio.Lock()
        return self._analysis_lock

    async def command(
        self,
        *,
        user: User,
        chat: Chat,
        place: Place,
        args: str,
        reply_to_game: int | None,
        **_: Any,
    ) -> list[View]:
        """``/analyse [game number]`` (see the module doc)."""
        record = await _finished_game(self, user, chat, args, reply_to_game)
        return self._analyse(record, chat, language(user, chat, private=place.private), place)

    async def press(self, user: User, chat: Chat, place: Place, record: GameRecord) -> list[View]:
        """The *Analyse* button under a finished board (pressed in the game's own chat)."""
        if record.status is not GameStatus.FINISHED or record.match is None:
            raise UserFacingError(NOT_FINISHED)
        return self._analyse(record, chat, language(user, chat, private=place.private), place)

    def _analyse(self, record: GameRecord, chat: Chat, lang: str, place: Place) -> list[View]:
        lock = self._analysis_queue()
        if lock.locked():
            return [View([BUSY], lang=lang, notice=True)]
        return [self._start_job(record, chat, lang, private=place.private)]

    def _start_job(self, record: GameRecord, chat: Chat, lang: str, *, private: bool) -> View:
        job = _Job(self, record, chat, lang, private)
        self.background.spawn(_counted(job.run(self._analysis_queue())))
        return job.working_view()

    async def auto(self, record: GameRecord, chat: Chat) -> list[View]:
        """After a finished contest: its analysis, when it was a rated match in a chat that
        analyses every one (the analysis waits its turn behind any other)."""
        if not (record.rated and chat.prefs.auto_analysis and record.match is not None):
            return []
        lang = await self.store.game_lang(record, chat)
        return [self._start_job(record, chat, lang, private=False)]


async def _counted(work: Awaitable[None]) -> None:
    """``work`` (an analysis), counted in ``tavla_analyses_queued`` until it ends."""
    metrics.ANALYSES_QUEUED.inc()
    try:
        await work
    finally:
        metrics.ANALYSES_QUEUED.dec()


async def _finished_game(
    service: Analysis, user: User, chat: Chat, args: str, reply_to_game: int | None
) -> GameRecord:
    """The contest to analyse: the one named or replied to, else the chat's last finished
    contest the user played in."""
    wanted = args.strip().removeprefix("#")
    game_id = parse_id(wanted) if wanted else reply_to_game
    if wanted and game_id is None:
        raise UserFacingError(USAGE)
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
