"""The web board's HTTP server (aiohttp): the page, its JSON API and live updates.

- ``GET /`` the page; ``GET /static/…`` its script and style (shipped in the package).
- ``GET /api/layout`` geometry and themes; ``GET /api/texts?lang=`` the page's words.
- ``GET /api/game/<id>`` the game as the asker sees it; ``POST /api/game/<id>/action``
  an action with the version it was made on, passed to the game service as a button press;
  ``GET /api/game/<id>/events`` Server-Sent Events with the new state after every change.

Every API call names who asks (``Authorization: tma <init data>``, ``link <token>`` or
``watch <token>``). The events stream, which EventSource opens without headers, takes the
short-lived ``stream`` token of the state answer instead, so no credential is ever put in a
URL. A player acts only for their own seat; a spectator needs the watch link, or Telegram
launch data opened from the group's link of the game (its signed ``start_param``).

Every response, errors included, carries the security headers; :mod:`bot.web.guard` holds
the limits on open streams and slow requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from functools import partial
from importlib import resources
from typing import Any

from aiohttp import web

from bot.i18n import LANGUAGES, normalize_language, translate
from bot.service import actions as A
from bot.service.limits import RateLimiter
from bot.service.service import GameService
from bot.service.store import acting_seat
from bot.service.views import Actor, GameRecord, GameStatus, Place, PlayerPrefs, User, View
from core.game import Phase
from core.match import Match
from renderers.themes import THEMES

from . import relay
from .admission import RETRY_AFTER, Admission, Busy, LoopLag
from .auth import AuthError, LinkSigner, check_init_data
from .guard import BUSY_RETRY_AFTER, StreamSlots, WebLimits
from .hub import ChangeHub
from .inputs import MAX_BODY, RESIGN_DIGITS, ActionBody, BadInput, action_body, game_id
from .layout import layout_json
from .state import ACTION_CODES, game_state, run_to
from .texts import page_texts

log = logging.getLogger(__name__)

STATIC = resources.files("bot.web") / "static"
STATIC_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".svg": "image/svg+xml",
}
#: No inline script or style; Telegram's script is the only outside one, and Telegram's web
#: client may show the page in a frame.
CSP = (
    "default-src 'none'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'self' https://web.telegram.org https://*.telegram.org"
)
#: The ``Server`` header of every answer: no version to look vulnerabilities up by.
SERVER_NAME = "Tavla"
PING_SECONDS = 15.0
#: A game whose page may still change (a stream of any other ends).
OPEN_STATUSES = (GameStatus.CHALLENGE, GameStatus.ACTIVE)
#: States kept, and their encoded events, for the answer to an action and the pages that wake
#: at the same change (per game, version, seat, language).
STATE_CACHE = 1024


StateKey = tuple[int, int, int | None, str]  # game, version, seat, language


@dataclass(frozen=True)
class Viewer:
    """Who asks: a seat with the actor who holds it and their own settings, or a spectator
    (seat None, the bot's default look)."""

    seat: int | None
    actor: Actor | None
    lang: str
    prefs: PlayerPrefs | None = None
    #: Came by a personal link (not Telegram's launch data).
    link: bool = False


def turn_mark(record: GameRecord, seat: int) -> tuple[int, int] | None:
    """Where ``seat`` stands in its own unfinished turn (game number, history length), or
    None when the game is not in the middle of a turn of ``seat``.

    A step or an Undo within a turn keeps the mark; a finished turn (confirmed by the
    player or by itself, a forced rest played by itself, the opponent's automatic roll), a
    roll or a take-back changes it. See :func:`chat_follows`."""
    # Read from the stored dict: no need to rebuild the game (and its legal plays) for this.
    game = (record.match or {}).get("game")
    if record.status is not GameStatus.ACTIVE or not game or game.get("result"):
        return None
    if game.get("phase") != Phase.MOVE.value or game.get("turn") != seat:
        return None
    return len((record.match or {}).get("results", [])), len(game.get("history", []))


def chat_follows(
    before: tuple[int, int] | None, after: tuple[int, int] | None, *, rolled: bool
) -> bool:
    """Whether the chat's board is edited after an action that took the acting seat's
    :func:`turn_mark` from ``before`` to ``after`` (``rolled``: the action was a roll):
    when the turn ended, or the action was no step of a turn (a double, a take, a move taken
    back); not for a step within the turn, nor for the roll that starts it. A turn played on
    the web costs the group one edit, with its dice and its move."""
    if before is None and after is not None and rolled:
        return False
    return before is None or after != before


class WebBoard:
    """The aiohttp application of the web board, bound to one game service."""

    def __init__(
        self,
        service: GameService,
        hub: ChangeHub,
        signer: LinkSigner,
        *,
        telegram_token: str | None = None,
        clock: Any = time.time,
        api_rate: tuple[int, float] = (60, 10.0),
        limits: WebLimits | None = None,
        admission: Admission | None = None,
    ) -> None:
        self.service = service
        self.hub = hub
        self.signer = signer
        self.telegram_token = telegram_token
        self.clock = clock
        # Reads are cheap but not free: a per-address bucket; actions also meet the service's.
        self.limiter = RateLimiter(api_rate[0], api_rate[1], clock)
        self.limits = limits or WebLimits()
        self.streams = StreamSlots(self.limits)
        #: Actions and page loads wait in line while the event loop lags (see admission.py).
        self.loop_lag = LoopLag()
        if admission is None:
            admission = Admission(lambda: self.loop_lag.lag)
            self.loop_lag.on_tick = admission.admit
        self.admission = admission
        self._closing = asyncio.Event()
        self._relaying: set[asyncio.Task[None]] = set()  # chat edits on their way
        self._acting: set[asyncio.Task[web.Response]] = set()  # actions run to their end
        # The pages following each game's seats here (their live streams open).
        self._pages: Counter[tuple[int, int]] = Counter()
        # Every page of a game wakes at the same change: one read and one state for them all.
        self._loading: dict[int, asyncio.Future[GameRecord | None]] = {}
        # Each state's JSON, and the moves of the states of a player to move: a whole state
        # kept as Python objects (its walk, its lines) is garbage the collector scans again
        # and again in its older generations (pauses of 100-400 ms with 1,000 games).
        self._encoded: OrderedDict[StateKey, bytes] = OrderedDict()
        self._moves: OrderedDict[StateKey, dict[str, list[dict[str, Any]]]] = OrderedDict()
        self.app = web.Application(middlewares=[self._rate_limit], client_max_size=MAX_BODY)
        self.app.router.add_get("/", self.index)
        self.app.router.add_get("/static/{name}", self.static)
        self.app.router.add_get("/api/layout", self.layout)
        self.app.router.add_get("/api/texts", self.texts)
        self.app.router.add_get("/api/game/{game}", self.state)
        self.app.router.add_post("/api/game/{game}/action", self.action)
        self.app.router.add_get("/api/game/{game}/events", self.events)
        self.app.on_startup.append(self._startup)
        self.app.on_shutdown.append(self._shutdown)
        self.app.on_response_prepare.append(_security_headers)

    # -- plumbing ----------------------------------------------------------------------------

    @web.middleware
    async def _rate_limit(self, request: web.Request, handler: Any) -> web.StreamResponse:
        address = client_address(request)
        if request.path.startswith("/api/") and not self.limiter.allow(address):
            wait = max(1, math.ceil(self.limiter.wait(address)))
            raise web.HTTPTooManyRequests(text="slow down", headers={"Retry-After": str(wait)})
        response: web.StreamResponse = await handler(request)
        return response

    async def _startup(self, _app: web.Application) -> None:
        self.loop_lag.start()

    async def _shutdown(self, _app: web.Application) -> None:
        self._closing.set()
        self.loop_lag.stop()

    async def finish(self, within: float) -> None:
        """Wait, at most ``within`` seconds, for the actions still under way (their pages
        may be gone) and the chat edits they sent: a stopping bot closes its database only
        after them, so no action begun is left half-done or lost."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while (pending := self._acting | self._relaying) and loop.time() < deadline:
            await asyncio.wait(pending, timeout=deadline - loop.time())
        if pending:
            log.warning("stopping with %d web actions or chat edits still under way", len(pending))

    async def _in_turn(self, handler: Any, request: web.Request) -> web.Response:
        """``handler(request)`` once its turn has come (see admission.py); the page is told
        to try again when the line is too long: ``503`` with ``{"busy": true}``."""
        try:
            async with self.admission.admitted():
                response: web.Response = await handler(request)
                return response
        except Busy:
            return web.json_response(
                {"busy": True}, status=503, headers={"Retry-After": str(RETRY_AFTER)}
            )

    async def _record(self, request: web.Request) -> GameRecord:
        wanted = game_id(request.match_info["game"])
        record = await self.service.game_record(wanted) if wanted is not None else None
        if record is None:
            raise web.HTTPNotFound(text="no such game")
        return record

    async def viewer(self, request: web.Request, record: GameRecord, credentials: str) -> Viewer:
        """The viewer ``credentials`` name in ``record``; 403 if they name nobody."""
        kind, _, value = credentials.partition(" ")
        asked = normalize_language(request.query.get("lang"))
        try:
            # Any game may have a Telegram seat (a pool game's other seat may be on Discord):
            # the launch data proves the user, the seats say whether they play.
            if kind == "tma" and self.telegram_token:
                launch = check_init_data(value, self.telegram_token, now=self.clock())
                actor = Actor(
                    "telegram", str(launch.user_id), launch.name, launch.username, launch.language
                )
                seat, user = await self._seat_of(record, actor)
                # The language chosen in /settings first, then Telegram's.
                chosen = user.lang if user is not None else None
                lang = chosen or normalize_language(launch.language) or asked or "en"
                if seat is None or user is None:
                    # Launch data proves who the user is, not where they come from: anyone
                    # may make a link with any start_param. Only the group's own link of
                    # this game (signed) makes a spectator, as its watch link would.
                    self.signer.check_group_start(launch.start_param or "", record.id or 0)
                    return Viewer(None, None, lang)
                return Viewer(seat, actor, lang, user.prefs)
            if kind == "link":
                link = self.signer.check_seat(value, record.id or 0, now=self.clock())
                if record.seats[link.seat] != link.user_id:
                    raise AuthError("the seat has another player now")
                user = await self.service.user_record(link.user_id)
                if user is None:
                    raise AuthError("no such user")
                actor = Actor(user.platform, user.platform_id, user.name, None, user.platform_lang)
                lang = user.lang or normalize_language(user.platform_lang) or asked or "en"
                return Viewer(link.seat, actor, lang, user.prefs, link=True)
            if kind == "watch":
                self.signer.check_watch(value, record.id or 0)
                return Viewer(None, None, asked or "en")
        except AuthError as exc:
            log.info("web board: refused credentials for game %s: %s", record.id, exc)
        raise web.HTTPForbidden(text="no access")

    async def _seat_of(self, record: GameRecord, actor: Actor) -> tuple[int | None, User | None]:
        """The seat ``actor`` holds in ``record`` (None: not seated), and their user."""
        seats = []
        found = None
        for seat, user in await self.service.seated(record):
            if (user.platform, user.platform_id) == (actor.platform, actor.user_id):
                seats.append(seat)
                found = user
        if not seats:
            return None, None
        if len(seats) == 2:  # one person on both seats (a game against oneself)
            game = Match.from_dict(record.match).game if record.match else None
            # The seat whose answer the game waits for (a take, a resignation's answer).
            return (acting_seat(game) if game is not None else 0), found
        return seats[0], found

    @staticmethod
    def _place(record: GameRecord) -> Place:
        # Telegram's private chats have positive ids, groups negative ones.
        private = record.platform == "console" or (
            record.platform == "telegram" and not record.chat_id.startswith("-")
        )
        return Place(record.platform, record.chat_id, private=private)

    # -- the page ------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.Response:
        return self._file("index.html", cache=False)

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name == "index.html" or "/" in name or name.startswith("."):
            raise web.HTTPNotFound()
        return self._file(name, cache=True)

    def _file(self, name: str, *, cache: bool) -> web.Response:
        suffix = name[name.rfind(".") :] if "." in name else ""
        path = STATIC / name
        if suffix not in STATIC_TYPES or not path.is_file():
            raise web.HTTPNotFound()
        response = web.Response(
            body=path.read_bytes(), content_type=STATIC_TYPES[suffix], charset="utf-8"
        )
        response.headers["Cache-Control"] = "public, max-age=300" if cache else "no-cache"
        return response

    async def layout(self, request: web.Request) -> web.Response:
        return web.json_response(layout_json())

    async def texts(self, request: web.Request) -> web.Response:
        lang = normalize_language(request.query.get("lang")) or "en"
        return web.json_response(
            {"lang": lang, "languages": list(LANGUAGES), "texts": page_texts(lang)}
        )

    # -- the API -------------------------------------------------------------------------------

    async def state(self, request: web.Request) -> web.Response:
        return await self._in_turn(self._state, request)

    async def _state(self, request: web.Request) -> web.Response:
        record = await self._record(request)
        who = await self.viewer(request, record, request.headers.get("Authorization", ""))
        state = game_state(record, who.seat, who.lang)
        state["style"] = self._style(who)
        state["stream"] = self.signer.stream_token(
            record.id or 0, who.seat, who.lang, now=self.clock()
        )
        return web.json_response(state)

    def _style(self, who: Viewer) -> dict[str, Any]:
        """How the page draws the board for ``who``: a player's own /settings (theme, home
        side), a spectator the bot's default. ``theme`` None: the default, or its dark
        theme when the reader's screen (or Telegram) is dark."""
        prefs = who.prefs or PlayerPrefs()
        return {
            "theme": prefs.theme if prefs.theme in THEMES else None,
            "home": prefs.home,
            "default_theme": self.service.settings.theme,
        }

    async def action(self, request: web.Request) -> web.Response:
        try:
            # A body sent slowly holds a connection like slow headers do; it is read before
            # the action takes its place in line (see admission.py), not while holding one.
            async with asyncio.timeout(self.limits.header_timeout):
                raw = await request.read()
        except TimeoutError as exc:
            raise web.HTTPRequestTimeout(text="the body came too slowly") from exc
        return await self._in_turn(partial(self._shared_action, raw=raw), request)

    async def _shared_action(self, request: web.Request, *, raw: bytes) -> web.Response:
        with self._sharing_reads():
            return await self._action(request, raw)

    def _sharing_reads(self) -> contextlib.AbstractContextManager[None]:
        """Within one action, the game and its players are read once (see NotifyingStorage)."""
        storage = self.hub.watched
        if storage is not None:
            return storage.sharing_reads()
        return contextlib.nullcontext()

    async def _action(self, request: web.Request, raw: bytes) -> web.Response:
        record = await self._record(request)
        who = await self.viewer(request, record, request.headers.get("Authorization", ""))
        if who.actor is None or who.seat is None:
            raise web.HTTPForbidden(text="spectators cannot act")
        try:
            body = action_body(raw)
        except BadInput as exc:
            raise web.HTTPBadRequest(text=str(exc)) from exc
        # Run to its end even if the page goes away meanwhile (the server cancels the
        # handlers of dropped connections, so that streams give their place back), and
        # waited for when the server stops (finish).
        task = asyncio.ensure_future(self._act(record, who, body))
        self._acting.add(task)
        task.add_done_callback(self._acting.discard)
        return await asyncio.shield(task)

    async def _act(self, record: GameRecord, who: Viewer, body: ActionBody) -> web.Response:
        """Carry out ``body`` for ``who`` and answer with the new state."""
        with self._sharing_reads():  # the same reads, in this task of its own
            return await self._carry_out(record, who, body)

    async def _carry_out(self, record: GameRecord, who: Viewer, body: ActionBody) -> web.Response:
        assert who.actor is not None
        assert who.seat is not None
        assert record.id is not None
        name = body.name
        place = self._place(record)
        before = turn_mark(record, who.seat)
        if name == "resign":
            # The page has asked which level and "Resign …?" already: the offer itself.
            code, arg = A.RESIGN, f"{who.seat}{RESIGN_DIGITS[body.kind]}"
        elif body.move is not None:
            # The service makes the steps in order, through core (a checker's run over
            # several dice is one action, as a chat button's).
            steps = list(body.move)
            if len(steps) == 1:
                # The page's state of this version, when worked out here, has its moves.
                known = self._moves.get((record.id, record.version, who.seat, who.lang))
                steps = run_to(record, who.seat, *steps[0], known=known)
            code, arg = A.MOVE, ".".join(f"{a}-{b}" for a, b in steps)
        elif name in ACTION_CODES:
            code, arg = ACTION_CODES[name], ""
        else:
            raise web.HTTPBadRequest(text="unknown action")
        try:
            data = A.encode(record.id, body.version, code, arg)
        except ValueError as exc:
            raise web.HTTPBadRequest(text="action too long") from exc
        # The chat's board is sent only when the turn ends: its picture is drawn then.
        views = await self.service.press(who.actor, place, data, draw=False)
        notices = [v for v in views if v.notice]
        rest = [v for v in views if not v.notice]
        fresh = await self._after(record)
        after = turn_mark(fresh, who.seat)
        if rest and chat_follows(before, after, rolled=name == "roll"):
            # The group's picture follows each finished turn, off the page's answer time.
            task = asyncio.get_running_loop().create_task(
                relay.deliver(
                    record.platform,
                    record.chat_id,
                    rest,
                    self.service.drawn,
                    on_page=self._followed_here(fresh),
                )
            )
            self._relaying.add(task)
            task.add_done_callback(self._relaying.discard)
        answer: dict[str, Any] = {"ok": not notices}
        if name == "rematch" and not notices:
            answer["next"] = await self._next_game(record, who, views)
        if notices:
            answer["message"] = "\n".join(translate(line, who.lang) for line in notices[0].lines)
        # The state as the actor's page gets it on its stream: encoded once for both.
        state = self._encoded_state(fresh, who.seat, who.lang)
        head = json.dumps(answer, ensure_ascii=False).encode()
        return web.Response(
            body=b"".join((head[:-1], b', "state": ', state, b"}")),
            content_type="application/json",
            charset="utf-8",
        )

    def _followed_here(self, record: GameRecord) -> bool:
        """Whether every player of the game (not the computer) has its page open here and
        the game goes on: then nobody waits for its board in the chat (see relay.ON_PAGE)."""
        if record.id is None or record.status not in OPEN_STATUSES:
            return False
        people = [seat for seat in (0, 1) if seat != record.settings.computer]
        return all(self._pages[record.id, seat] for seat in people)

    async def _after(self, record: GameRecord) -> GameRecord:
        """The game after an action on ``record``: as this process committed it when it
        did (the action's own result), else as stored."""
        storage = self.hub.watched
        if storage is not None:
            saved = storage.saved(record.stored_id, record.version)
            if saved is not None:
                return saved
        fresh = await self.service.game_record(record.stored_id)
        assert fresh is not None
        return fresh

    async def _next_game(
        self, record: GameRecord, who: Viewer, views: list[View]
    ) -> dict[str, Any] | None:
        """Where a rematch took the player: the new contest's id and, for a player who came
        by a personal link, their link to it (Telegram's launch data opens it as it is)."""
        new = [v.game_id for v in views if v.game_id not in (None, record.id)]
        fresh = await self.service.game_record(new[0]) if new else None
        if fresh is None or fresh.id is None:
            return None
        user_id = record.seats[who.seat] if who.seat is not None else None
        if user_id is None or user_id not in fresh.seats:
            return None
        answer: dict[str, Any] = {"game": fresh.id}
        if who.link:
            seat = fresh.seats.index(user_id)
            answer["link"] = self.signer.seat_token(fresh.id, seat, user_id, now=self.clock())
        return answer

    async def events(self, request: web.Request) -> web.StreamResponse:
        record = await self._record(request)
        assert record.id is not None
        try:
            seat, lang = self.signer.check_stream(
                request.query.get("token", ""), record.id, now=self.clock()
            )
        except AuthError as exc:
            raise web.HTTPForbidden(text="no access") from exc
        who = Viewer(seat, None, lang if lang in LANGUAGES else "en")
        address = client_address(request)
        if not self.streams.take(address):
            raise web.HTTPServiceUnavailable(
                text="too many live updates open", headers={"Retry-After": str(BUSY_RETRY_AFTER)}
            )
        try:
            response = web.StreamResponse(
                headers={
                    "Content-Type": "text/event-stream",
                    "Cache-Control": "no-cache",
                    "X-Accel-Buffering": "no",  # nginx: pass each event on at once
                }
            )
            await response.prepare(request)
            queue = self.hub.subscribe(record.id)
            page = (record.id, seat) if seat is not None else None
            if page is not None:
                self._pages[page] += 1
            try:
                # A little after the age at which _follow says goodbye itself: this one
                # ends a write stuck on a page that stopped reading.
                async with asyncio.timeout(self.limits.stream_max_age + PING_SECONDS):
                    await self._follow(response, record, who, queue)
            except (TimeoutError, ConnectionResetError, asyncio.CancelledError):
                pass
            finally:
                self.hub.unsubscribe(record.id, queue)
                if page is not None:
                    self._pages[page] -= 1
                    if not self._pages[page]:
                        del self._pages[page]
        finally:
            self.streams.give_back(address)
        return response

    async def _follow(
        self,
        response: web.StreamResponse,
        record: GameRecord,
        who: Viewer,
        queue: asyncio.Queue[int | None],
    ) -> None:
        """Send ``who`` the state of ``record`` and then each new one, until the game ends
        (then an ``end`` event: the page stops listening), the stream's maximum age (then a
        ``renew`` event: the page opens a new stream, with a fresh token) or the server
        closes."""
        loop = asyncio.get_running_loop()
        renew_at = loop.time() + self.limits.stream_max_age
        await self._send_state(response, record, who)
        while not self._closing.is_set() and record.status in OPEN_STATUSES:
            left = renew_at - loop.time()
            if left <= 0:
                await response.write(b"event: renew\ndata: age\n\n")
                return
            try:
                # A timeout of the waiting task itself: wait_for would start a task of its
                # own for every change of every page.
                async with asyncio.timeout(min(PING_SECONDS, left)):
                    versions = [await queue.get()]
            except TimeoutError:
                if renew_at > loop.time():
                    await response.write(b": ping\n\n")
                continue
            while not queue.empty():  # several changes at once: send the newest only
                versions.append(queue.get_nowait())
            newest = None if None in versions else max(v for v in versions if v is not None)
            fresh = await self._shared_load(record, newest)
            if fresh is not None:
                record = fresh
                await self._send_state(response, record, who)
        if record.status not in OPEN_STATUSES:
            await response.write(b"event: end\ndata: over\n\n")

    async def _shared_load(self, shown: GameRecord, newest: int | None) -> GameRecord | None:
        """The game after ``shown``, changed to version ``newest`` (None: not known): as this
        process committed it when that is the newest (no read), else as stored, one read
        shared by the pages woken together."""
        game_id = shown.stored_id
        storage = self.hub.watched
        saved = storage.saved(game_id, shown.version) if storage is not None else None
        if saved is not None and newest is not None and saved.version >= newest:
            return saved
        pending = self._loading.get(game_id)
        if pending is None:
            pending = asyncio.ensure_future(self.service.game_record(game_id))
            self._loading[game_id] = pending
            pending.add_done_callback(lambda _: self._loading.pop(game_id, None))
        return await asyncio.shield(pending)

    async def _send_state(
        self, response: web.StreamResponse, record: GameRecord, who: Viewer
    ) -> None:
        state = self._encoded_state(record, who.seat, who.lang)
        await response.write(b"".join((b"event: state\ndata: ", state, b"\n\n")))

    def _encoded_state(self, record: GameRecord, seat: int | None, lang: str) -> bytes:
        """The game's state for ``seat`` in ``lang`` as JSON (one line), worked out and
        encoded once for the pages and the answer that show it (it is not changed once
        made); the moves of a player to move are kept for a move named by its two points."""
        key = (record.id or 0, record.version, seat, lang)
        encoded = self._encoded.get(key)
        if encoded is None:
            state = game_state(record, seat, lang)
            encoded = json.dumps(state, ensure_ascii=False).encode()
            _keep(self._encoded, key, encoded)
            if state.get("my_turn"):
                _keep(self._moves, key, state["moves"])
        return encoded


def _keep(cache: OrderedDict[StateKey, Any], key: StateKey, value: Any) -> None:
    """Keep ``value``, forgetting the oldest beyond :data:`STATE_CACHE`."""
    cache[key] = value
    if len(cache) > STATE_CACHE:
        cache.popitem(last=False)


def client_address(request: web.Request) -> str:
    """The asker's address: behind a reverse proxy on this machine, the address the proxy
    appended to ``X-Forwarded-For`` (the proxy itself would make everyone one client)."""
    remote = request.remote or ""
    forwarded = request.headers.get("X-Forwarded-For", "")
    if forwarded and remote in ("127.0.0.1", "::1"):
        return forwarded.split(",")[-1].strip()
    return remote


async def _security_headers(_request: web.Request, response: web.StreamResponse) -> None:
    """On every response, errors included; ``Server`` names no version."""
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Server"] = SERVER_NAME


__all__ = ["View", "WebBoard"]
