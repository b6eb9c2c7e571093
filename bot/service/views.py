"""What the service answers: platform-neutral replies that adapters turn into messages.

Adapters import from here what they exchange with the service: :class:`Actor` and
:class:`Place` (who and where), :class:`View` and :class:`Button` (the replies),
:class:`MessageRef` (a chat message), and the stored records the service's read methods
return to the web board (``GameRecord``, ``GameStatus``, ``User``, ``PlayerPrefs``). Those
are defined with the storage that keeps them; adapters never import storage themselves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.i18n import Text, t
from bot.storage.base import Chat, GamePeople, GameRecord, GameStatus, PlayerPrefs, User
from bot.storage.refs import MessageRef
from renderers.picture import image_extension
from renderers.text import render_text
from renderers.view import BoardView

#: Said next to a board posted anew where a press on an old board points the player.
BOARD_HERE = t("⬆️ Your game's current board is here.")


@dataclass(frozen=True)
class Actor:
    """Who acts: a platform user as the adapter sees them."""

    platform: str
    user_id: str
    name: str
    username: str | None = None
    lang: str | None = None
    #: Whether the platform says this user administers the chat (for admin-only commands).
    admin: bool = False


@dataclass(frozen=True)
class Place:
    """Where: a chat (Telegram) or channel (Discord)."""

    platform: str
    chat_id: str
    private: bool = False
    title: str | None = None


@dataclass(frozen=True)
class Button:
    """A button: its label and the compact action id sent back when it is pressed."""

    label: Text | str
    action: str


@dataclass
class View:
    """One reply.

    ``lines`` are shown as the message text (or the picture's caption). A *board* view
    (``game_id`` set, ``image`` given) replaces the game's board message where the
    platform can edit it (``edit``). A *notice* is a short answer shown only to the person
    who acted (a callback answer on Telegram, an ephemeral message on Discord).
    ``lang`` is the language to render in. ``chat`` addresses views made without an
    incoming message (reminders, timeouts): (platform, chat id).
    """

    lines: list[Text | str]
    lang: str = "en"
    image: bytes | None = None
    #: On a board view whose picture is not drawn yet: the format to draw ``board`` in. The
    #: service leaves it to the adapter when asked to (``GameService.press(draw=False)``),
    #: which draws it with ``GameService.drawn`` when it sends the view: a press is then
    #: answered before its picture is drawn, and a board a newer one replaces is never drawn.
    picture_due: str | None = None
    #: What the picture is, as the start of its file name (``analysis-42``): each kind of
    #: picture gets a file of its own where an adapter saves them (the console).
    image_stem: str = "board"
    buttons: list[list[Button]] = field(default_factory=list)
    game_id: int | None = None
    edit: bool = False
    #: Answering a press: this view's text may replace the message pressed on, buttons and
    #: all (an accepted or declined challenge), where the platform answers a press that way.
    replace_pressed: bool = False
    notice: bool = False
    #: A notice said already (the flood guard's, again within its window): shown only where
    #: an answer is due anyway (a press's, a Discord interaction's), never as a chat message.
    quiet: bool = False
    alert: bool = False
    document: tuple[str, bytes] | None = None
    chat: tuple[str, str] | None = None
    #: The game's board message as the adapter bound it (see GameService.bind_message), or
    #: the message this view edits or points to.
    message: MessageRef | None = None
    #: The text board, for adapters without pictures (the console) and as a fallback. Given
    #: as text, or worked out from ``board`` when first read (see :attr:`board`).
    text_board: str | None = None
    #: On a board view: the game version it shows. Once the board is on screen the adapter
    #: confirms it with ``GameService.board_shown`` (boards never confirmed get redrawn).
    version: int | None = None
    #: A board redrawn because it was behind its game (the press changed nothing).
    repair: bool = False
    #: Instead of editing or posting the board, point the player to ``message`` (Telegram: a
    #: reply to it; Discord: a link to it); if that message is gone, post this board anew.
    point: bool = False
    #: An edit of an earlier message that is no longer live (an old tournament card turned
    #: into a pointer to the current one): if it cannot be edited, nothing is posted.
    edit_only: bool = False
    #: Only the buttons changed (a checker was picked): the adapter edits the keyboard of
    #: the board message alone, without a new picture or text (``image`` is None).
    keyboard_only: bool = False
    #: The text and buttons changed but not the picture (a move confirmed before the
    #: opponent rolls, a resignation offered): the adapter keeps the board's picture and
    #: edits its caption and buttons (``image`` is None).
    caption_only: bool = False
    #: Called by the adapter, where it can, with where it posted this view as a new message
    #: for a view the service later edits in place through ``message`` (a tournament's
    #: standings picture).
    posted: Callable[[MessageRef], Awaitable[None]] | None = None
    #: For a view made without an incoming message (``chat`` set) where a chat has several
    #: channels (a Discord server): a stored message of the channel to post it in, used when
    #: neither ``message`` nor the game's board says where (a tournament's own messages).
    channel: MessageRef | None = None
    #: On a board view: the board as the service drew it. Its text board (``text_board``)
    #: is written only when an adapter reads it: most presses are answered on Telegram,
    #: which never shows it, and writing it costs about as much as a database query.
    board: BoardView | None = field(default=None, repr=False)
    #: Post this view as a reply to that message where the platform has replies (the
    #: puzzle of the day's answer to the morning's puzzle); alone if the message is gone.
    reply_to: MessageRef | None = None
    #: A copy made for one seat of a game played in two chats (bot/service/seats.py),
    #: addressed to that seat's chat: never split again.
    seat_copy: bool = False
    #: A message about one seat of the game (a reminder to the slow player, the claim
    #: offered to the other): in a game played in two chats, only that seat's chat gets it.
    for_seat: int | None = None

    @property
    def shows_board(self) -> bool:
        """Whether this view carries a game's board (drawn, or given as a text board), told
        without writing the text board."""
        return self.board is not None or self.__dict__.get("_text_board") is not None

    @property
    def image_name(self) -> str:
        """A file name for ``image`` whose extension says its format (``board.jpg``)."""
        return self.image_stem + image_extension(self.image or b"")


def _text_board(view: View) -> str | None:
    text: str | None = view.__dict__.get("_text_board")
    if text is None and view.board is not None:
        text = view.__dict__["_text_board"] = render_text(view.board)
    return text


def _set_text_board(view: View, text: str | None) -> None:
    view.__dict__["_text_board"] = text


# ``text_board`` stays a dataclass field (``View(..., text_board=...)``, ``replace``,
# equality) whose value is read through this property: given, or written from ``board``.
View.text_board = property(_text_board, _set_text_board)  # type: ignore[assignment]


def _buttons(view: View) -> list[list[Button]]:
    due = view.__dict__.pop("_buttons_due", None)
    if due is not None:
        view.__dict__["_buttons"] = due()
    rows: list[list[Button]] = view.__dict__.get("_buttons", [])
    return rows


def _set_buttons(view: View, rows: list[list[Button]]) -> None:
    view.__dict__.pop("_buttons_due", None)
    view.__dict__["_buttons"] = rows


# ``buttons`` likewise: given, or laid out by :func:`buttons_later`'s maker when first read.
View.buttons = property(_buttons, _set_buttons)  # type: ignore[assignment]


def buttons_later(view: View, make: Callable[[], list[list[Button]]]) -> View:
    """``view`` whose buttons ``make`` lays out when they are first read. A board's keypad
    (every move of a turn, labelled) costs more than the rest of the view: a board that is
    never sent (a step played on the web page, whose chat is edited when the turn ends)
    never lays it out. ``make`` must not depend on anything changed after this call."""
    view.__dict__["_buttons_due"] = make
    return view


__all__ = [
    "BOARD_HERE",
    "Actor",
    "Button",
    "Chat",
    "GamePeople",
    "GameRecord",
    "GameStatus",
    "MessageRef",
    "Place",
    "PlayerPrefs",
    "User",
    "View",
    "buttons_later",
]
