"""The fake Bot API as one class: its state, the users' actions and the Bot API methods."""

from __future__ import annotations

from tests.fakes.telegram.actors import UserActions
from tests.fakes.telegram.content import ContentHelpers
from tests.fakes.telegram.methods import MessageMethods
from tests.fakes.telegram.reading import Observations
from tests.fakes.telegram.state import TelegramState
from tests.fakes.telegram.updates import UpdateMethods


class FakeTelegram(
    UserActions, UpdateMethods, MessageMethods, ContentHelpers, Observations, TelegramState
):
    """State and logic of the fake Bot API, shared by both transports.

    Test-facing attributes: ``calls`` (every :class:`Call`, in arrival order),
    ``callback_answers`` / ``inline_answers`` (answer params by query id), ``files``
    (file_id → :class:`StoredFile`), ``inline_messages`` (inline_message_id → content),
    ``deleted`` ((chat_id, message_id) pairs), ``webhook`` (the settings or None),
    ``webhook_deliveries`` (updates a webhook accepted), ``blocked`` (user ids).
    """
