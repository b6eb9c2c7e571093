"""Receiving Telegram's updates by webhook, from Telegram only.

The webhook is an HTTP endpoint: anyone who reaches it could post a hand-made update "from"
any user. Telegram signs nothing, but ``setWebhook`` takes a ``secret_token`` that Telegram
then sends with every update in the ``X-Telegram-Bot-Api-Secret-Token`` header;
python-telegram-bot's webhook server answers 403 to a request without it or with another
one. The secret is ``TELEGRAM_WEBHOOK_SECRET`` when configured, or else derived from the bot
token (an HMAC), so that restarts and several workers behind one load balancer agree without
storing anything, and nobody without the token can work it out.
"""

from __future__ import annotations

import hashlib
import hmac

from telegram.ext import Application

from bot.config import Config

#: The path the webhook server listens on (``TELEGRAM_WEBHOOK_URL`` forwards to it).
WEBHOOK_PATH = "telegram"
#: What the derived secret is derived for (a new label gives a new secret).
_LABEL = b"tavla telegram webhook secret"


def webhook_secret(config: Config) -> str:
    """The secret Telegram sends with every update: the configured one, or one derived from
    the bot token (64 hexadecimal digits, within Telegram's 1-256 of ``A-Za-z0-9_-``)."""
    if config.telegram_webhook_secret:
        return config.telegram_webhook_secret
    if not config.telegram_token:
        raise ValueError("a Telegram webhook needs TELEGRAM_TOKEN")
    return hmac.new(config.telegram_token.encode(), _LABEL, hashlib.sha256).hexdigest()


async def start_webhook(app: Application, config: Config) -> None:
    """Serve the webhook on ``TELEGRAM_WEBHOOK_LISTEN:PORT/telegram`` and register it with
    Telegram together with its secret; requests without the secret are refused (403)."""
    assert app.updater is not None
    assert config.telegram_webhook_url
    await app.updater.start_webhook(
        listen=config.telegram_webhook_listen,
        port=config.telegram_webhook_port,
        url_path=WEBHOOK_PATH,
        webhook_url=config.telegram_webhook_url,
        secret_token=webhook_secret(config),
    )
