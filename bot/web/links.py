"""Addresses that open the web board: Telegram buttons and links, personal and watch links."""

from __future__ import annotations

from urllib.parse import quote

from bot.service.service import GameService

from .auth import LinkSigner


def webapp_url(base_url: str, game_id: int) -> str:
    """The page for a ``web_app`` button (Telegram adds its launch data in the fragment)."""
    return f"{base_url}/?game={game_id}"


def direct_link(bot_username: str, app_name: str, signer: LinkSigner, game_id: int) -> str:
    """Telegram's direct Mini App link, which also works in groups (BotFather's /newapp);
    its signed ``start_param`` shows the game to those who are not playing it."""
    return f"https://t.me/{bot_username}/{app_name}?startapp={signer.group_start(game_id)}"


def seat_url(base_url: str, signer: LinkSigner, game_id: int, seat: int, user_id: int) -> str:
    """A personal link to one seat (in the fragment: never sent to servers or their logs)."""
    token = signer.seat_token(game_id, seat, user_id)
    return f"{base_url}/#game={game_id}&link={quote(token)}"


def watch_url(base_url: str, signer: LinkSigner, game_id: int) -> str:
    """The spectators' link of a game."""
    return f"{base_url}/#game={game_id}&watch={quote(signer.watch_token(game_id))}"


async def player_links(
    service: GameService, base_url: str, signer: LinkSigner, game_id: int
) -> list[tuple[str, str]]:
    """``(name, personal link)`` for each person seated in the game, then ``("", watch link)``
    (the console prints them: its players have no chat to receive them privately)."""
    record = await service.game_record(game_id)
    if record is None:
        return []
    links = []
    # Named as the side is in the game (one person playing both sides has two names).
    names = record.settings.names or ()
    for seat, user in await service.seated(record):
        if not user.is_bot:
            name = names[seat] if seat < len(names) else user.name
            links.append((name, seat_url(base_url, signer, game_id, seat, user.id)))
    links.append(("", watch_url(base_url, signer, game_id)))
    return links
