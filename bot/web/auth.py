"""Who is asking: Telegram Mini App init data, and personal signed links.

Telegram (platform-facts.md, "Telegram Mini Apps"): the page sends the raw ``initData``
string it received; it is valid when HMAC-SHA256 of its sorted ``key=value`` lines, keyed
with HMAC-SHA256("WebAppData", bot token), equals its ``hash`` and ``auth_date`` is fresh.
The check works on the received pairs as they are (only percent-decoded), never on a
re-encoded copy, which could differ in escaping.

Links (Discord, the console, spectators): ``<game>.<seat>.<user>.<expires>.<mac>`` with an
HMAC of the server's secret over the same fields, so a link opens one seat of one game for
one user until it expires. A watch link ``<game>.<mac>`` opens the spectator view only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from bot.service.numbers import parse_number

#: How old Telegram's ``auth_date`` may be (a Mini App left open for a day must reopen).
INIT_DATA_MAX_AGE = 24 * 3600.0
#: How far ahead of our clock Telegram's ``auth_date`` may be (clocks differ a little).
CLOCK_SKEW = 300.0
#: How long a personal link stays valid.
LINK_TTL = 7 * 24 * 3600.0
#: How long a page may take to open its live updates after reading the state.
STREAM_TTL = 300.0
_MAC_HEX = 32  # 128 bits of the HMAC in a link: plenty against guessing, short in a URL


class AuthError(ValueError):
    """The credentials are missing, forged or expired."""


@dataclass(frozen=True)
class TelegramLaunch:
    """What a valid init data string says: the user, and the ``start_param`` if any."""

    user_id: int
    name: str
    username: str | None
    language: str | None
    start_param: str | None
    auth_date: int


def _mac(key: bytes, message: str) -> str:
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


def webapp_secret(bot_token: str) -> bytes:
    """The key of the init data check: HMAC-SHA256 with key "WebAppData" over the token."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def check_init_data(
    raw: str,
    bot_token: str,
    *,
    now: float | None = None,
    max_age: float = INIT_DATA_MAX_AGE,
) -> TelegramLaunch:
    """The launch a Mini App's raw ``initData`` describes; :class:`AuthError` if not valid."""
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError as exc:
        raise AuthError("init data is not a query string") from exc
    fields: dict[str, str] = {}
    for key, value in pairs:
        if key in fields:
            raise AuthError(f"init data repeats {key!r}")
        fields[key] = value
    received = fields.pop("hash", "")
    if not received:
        raise AuthError("init data has no hash")
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    expected = _mac(webapp_secret(bot_token), check)
    if not hmac.compare_digest(expected, received.lower()):
        raise AuthError("init data hash does not match")
    try:
        auth_date = parse_number(fields["auth_date"])
        user: dict[str, Any] = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError) as exc:
        raise AuthError("init data lacks auth_date or user") from exc
    if auth_date is None:
        raise AuthError("init data's auth_date is not a number")
    # A JSON integer only: true, 5001.0 and "5001" are no user's id.
    if type(user_id) is not int or user_id <= 0:
        raise AuthError("init data's user id is not an integer")
    now = time.time() if now is None else now
    if now - auth_date > max_age:
        raise AuthError("init data is too old")
    if auth_date - now > CLOCK_SKEW:
        raise AuthError("init data is dated in the future")
    name = " ".join(str(user.get(k) or "") for k in ("first_name", "last_name")).strip()
    return TelegramLaunch(
        user_id=user_id,
        name=name or str(user.get("username") or user_id),
        username=user.get("username"),
        language=user.get("language_code"),
        start_param=fields.get("start_param"),
        auth_date=auth_date,
    )


@dataclass(frozen=True)
class SeatLink:
    """What a valid personal link opens."""

    game_id: int
    seat: int
    user_id: int
    expires: int


class LinkSigner:
    """Makes and checks personal and watch links with the server's secret."""

    def __init__(self, secret: str | bytes) -> None:
        if not secret:
            raise ValueError("a link signer needs a secret")
        self._key = secret.encode() if isinstance(secret, str) else secret

    def seat_token(
        self,
        game_id: int,
        seat: int,
        user_id: int,
        *,
        now: float | None = None,
        ttl: float = LINK_TTL,
    ) -> str:
        """The token of a link to ``seat`` of ``game_id`` for storage user ``user_id``."""
        expires = int((time.time() if now is None else now) + ttl)
        body = f"{game_id}.{seat}.{user_id}.{expires}"
        return f"{body}.{_mac(self._key, 'seat:' + body)[:_MAC_HEX]}"

    def check_seat(self, token: str, game_id: int, *, now: float | None = None) -> SeatLink:
        """The seat ``token`` opens in ``game_id``; :class:`AuthError` if it opens none."""
        parts = token.split(".")
        if len(parts) != 5 or any(parse_number(p) is None for p in parts[:4]):
            raise AuthError("not a seat link")
        body = ".".join(parts[:4])
        if not hmac.compare_digest(_mac(self._key, "seat:" + body)[:_MAC_HEX], parts[4]):
            raise AuthError("seat link signature does not match")
        game, seat, user, expires = (int(p) for p in parts[:4])
        if game != game_id:
            raise AuthError("seat link is for another game")
        if (time.time() if now is None else now) > expires or seat not in (0, 1):
            raise AuthError("seat link has expired")
        return SeatLink(game, seat, user, expires)

    def stream_token(
        self, game_id: int, seat: int | None, lang: str, *, now: float | None = None
    ) -> str:
        """A short-lived token for a page's live updates: it names the view (seat, language)
        only and cannot act, so no init data or personal link ever appears in a URL."""
        expires = int((time.time() if now is None else now) + STREAM_TTL)
        body = f"{game_id}.{'' if seat is None else seat}.{lang}.{expires}"
        return f"{body}.{_mac(self._key, 'stream:' + body)[:_MAC_HEX]}"

    def check_stream(
        self, token: str, game_id: int, *, now: float | None = None
    ) -> tuple[int | None, str]:
        """``(seat, language)`` of a stream token of ``game_id``; :class:`AuthError` if not."""
        parts = token.split(".")
        if len(parts) != 5:
            raise AuthError("not a stream token")
        body = ".".join(parts[:4])
        if not hmac.compare_digest(_mac(self._key, "stream:" + body)[:_MAC_HEX], parts[4]):
            raise AuthError("stream token signature does not match")
        game, seat, lang, expires = parts[:4]
        if game != str(game_id):
            raise AuthError("stream token is for another game")
        if (time.time() if now is None else now) > int(expires):
            raise AuthError("stream token has expired")
        return (int(seat) if seat else None), lang

    def watch_token(self, game_id: int) -> str:
        """The token of the spectator link of ``game_id`` (game ids are not secrets, so
        watching needs a token that cannot be made up for another game)."""
        return f"{game_id}.{_mac(self._key, f'watch:{game_id}')[:_MAC_HEX]}"

    def check_watch(self, token: str, game_id: int) -> None:
        """Raise :class:`AuthError` unless ``token`` is the watch token of ``game_id``."""
        if not hmac.compare_digest(self.watch_token(game_id), token):
            raise AuthError("not the watch link of this game")

    def group_start(self, game_id: int) -> str:
        """The ``start_param`` of the group's direct Mini App link to ``game_id``:
        ``g<game>_<mac>`` (Telegram allows letters, digits, ``_`` and ``-``). Launch data
        that carries it shows the game to a spectator, as its watch link does: anyone can
        put any ``start_param`` in a link of their own, but not this one's signature."""
        return f"g{game_id}_{_mac(self._key, f'group:{game_id}')[:_MAC_HEX]}"

    def check_group_start(self, start_param: str, game_id: int) -> None:
        """Raise :class:`AuthError` unless ``start_param`` is :meth:`group_start` of
        ``game_id``."""
        if not hmac.compare_digest(self.group_start(game_id), start_param):
            raise AuthError("not the group's link of this game")


def derive_secret(configured: str | None, tokens: list[str | None], fallback: str = "") -> str:
    """The link secret: ``WEB_SECRET`` if set, else one derived from the bot tokens (secret,
    and the same in every worker of one bot), else ``fallback`` (a random secret of this
    process: its links die with it)."""
    if configured:
        return configured
    known = [t for t in tokens if t]
    if known:
        return _mac(b"tavla-web-links", "\n".join(known))
    if not fallback:
        raise ValueError("no secret to sign links with")
    return fallback
