"""The Mini App init-data check and the signed links of the web board."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import quote, urlencode

import pytest

from bot.web.auth import AuthError, LinkSigner, check_init_data, derive_secret

TOKEN = "123456:AAH-test-token"
NOW = 1_800_000_000.0


def signed(fields: dict[str, str], token: str = TOKEN) -> str:
    """Init data as Telegram sends it: url-encoded pairs plus the documented hash."""
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest}, quote_via=quote)


def launch_fields(**extra: str) -> dict[str, str]:
    user = {"id": 42, "first_name": "Ayşe", "last_name": "K&Y=1", "language_code": "tr"}
    return {
        "query_id": "AAE",
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(int(NOW) - 60),
        **extra,
    }


def test_valid_init_data_names_the_user_and_start_param() -> None:
    launch = check_init_data(signed(launch_fields(start_param="g17")), TOKEN, now=NOW)
    assert launch.user_id == 42
    assert launch.name == "Ayşe K&Y=1"
    assert launch.language == "tr"
    assert launch.start_param == "g17"


def test_tampered_init_data_is_refused() -> None:
    raw = signed(launch_fields())
    forged = raw.replace("%22id%22%3A42", "%22id%22%3A43")
    assert forged != raw
    with pytest.raises(AuthError):
        check_init_data(forged, TOKEN, now=NOW)


def test_added_field_or_missing_hash_is_refused() -> None:
    raw = signed(launch_fields())
    with pytest.raises(AuthError):
        check_init_data(raw + "&start_param=g1", TOKEN, now=NOW)
    without_hash = "&".join(p for p in raw.split("&") if not p.startswith("hash="))
    with pytest.raises(AuthError):
        check_init_data(without_hash, TOKEN, now=NOW)


def test_expired_init_data_is_refused() -> None:
    raw = signed(launch_fields())
    assert check_init_data(raw, TOKEN, now=NOW + 3600).user_id == 42
    with pytest.raises(AuthError, match="too old"):
        check_init_data(raw, TOKEN, now=NOW + 2 * 24 * 3600)


def test_init_data_dated_ahead_of_our_clock_is_refused_beyond_a_small_skew() -> None:
    for ahead in (60, 299):  # clocks differ a little
        raw = signed(launch_fields(auth_date=str(int(NOW) + ahead)))
        assert check_init_data(raw, TOKEN, now=NOW).user_id == 42
    for ahead in (301, 10 * 365 * 24 * 3600):
        raw = signed(launch_fields(auth_date=str(int(NOW) + ahead)))
        with pytest.raises(AuthError, match="future"):
            check_init_data(raw, TOKEN, now=NOW)
    for odd in ("١٧٠٠٠٠٠٠٠٠", "-5", "1e9", ""):
        with pytest.raises(AuthError):
            check_init_data(signed(launch_fields(auth_date=odd)), TOKEN, now=NOW)


@pytest.mark.parametrize("user_id", [True, 5001.0, "5001", None, [5001], 0, -5])
def test_a_user_id_that_is_not_a_json_integer_is_refused(user_id) -> None:
    user = {"id": user_id, "first_name": "Zed"}
    fields = {**launch_fields(), "user": json.dumps(user)}
    with pytest.raises(AuthError):
        check_init_data(signed(fields), TOKEN, now=NOW)


def test_init_data_of_another_bot_is_refused() -> None:
    raw = signed(launch_fields(), token="999:another-bot")
    with pytest.raises(AuthError):
        check_init_data(raw, TOKEN, now=NOW)


def test_seat_link_opens_its_seat_until_it_expires() -> None:
    signer = LinkSigner("server-secret")
    token = signer.seat_token(7, 1, 301, now=NOW, ttl=3600)
    link = signer.check_seat(token, 7, now=NOW + 3599)
    assert (link.game_id, link.seat, link.user_id) == (7, 1, 301)
    with pytest.raises(AuthError, match="expired"):
        signer.check_seat(token, 7, now=NOW + 3601)


def test_seat_link_is_for_one_game_and_cannot_be_altered() -> None:
    signer = LinkSigner("server-secret")
    token = signer.seat_token(7, 1, 301, now=NOW)
    with pytest.raises(AuthError, match="another game"):
        signer.check_seat(token, 8, now=NOW)
    game, seat, user, expires, mac = token.split(".")
    for forged in (
        f"{game}.0.{user}.{expires}.{mac}",  # the other seat
        f"{game}.{seat}.302.{expires}.{mac}",  # another user
        f"{game}.{seat}.{user}.{int(expires) + 10**6}.{mac}",  # a longer life
        "7.1.301",
    ):
        with pytest.raises(AuthError):
            signer.check_seat(forged, 7, now=NOW)
    with pytest.raises(AuthError):
        LinkSigner("another-secret").check_seat(token, 7, now=NOW)


def test_watch_link_is_bound_to_its_game() -> None:
    signer = LinkSigner("server-secret")
    signer.check_watch(signer.watch_token(5), 5)
    with pytest.raises(AuthError):
        signer.check_watch(signer.watch_token(5), 6)
    with pytest.raises(AuthError):
        signer.check_watch(LinkSigner("x").watch_token(5), 5)


def test_link_secret_is_stable_across_workers_of_one_bot() -> None:
    assert derive_secret("set", [TOKEN]) == "set"
    assert derive_secret(None, [TOKEN, None]) == derive_secret(None, [TOKEN, None])
    assert derive_secret(None, [TOKEN]) != derive_secret(None, ["other"])
    assert derive_secret(None, [None, None], "process") == "process"
    with pytest.raises(ValueError, match="no secret"):
        derive_secret(None, [None])


def test_stream_token_names_a_view_of_one_game_for_a_while() -> None:
    signer = LinkSigner("server-secret")
    token = signer.stream_token(7, 1, "tr", now=NOW)
    assert signer.check_stream(token, 7, now=NOW + 60) == (1, "tr")
    assert signer.check_stream(signer.stream_token(7, None, "en", now=NOW), 7, now=NOW) == (
        None,
        "en",
    )
    with pytest.raises(AuthError, match="expired"):
        signer.check_stream(token, 7, now=NOW + 3600)
    with pytest.raises(AuthError, match="another game"):
        signer.check_stream(token, 8, now=NOW)
    with pytest.raises(AuthError):
        signer.check_stream(token.replace("7.1.tr", "7.0.tr"), 7, now=NOW)
