"""The words of the web page, from the bot's catalogues (bot/locales), by key."""

from __future__ import annotations

from bot.i18n import LANGUAGES, Text, t, translate

PAGE_TEXTS: dict[str, Text] = {
    "title": t("Tavla board"),
    "roll": t("🎲 Roll"),
    "double": t("Double to {n}"),
    "take": t("Take"),
    "pass": t("Pass"),
    "undo": t("↩ Undo"),
    "take_back": t("↩ Undo my move"),
    "confirm": t("✅ Confirm"),
    "resign": t("Resign"),
    "resign_which": t("Resign how much? Your opponent may accept or play on."),
    "accept_resign": t("Accept resignation"),
    "decline_resign": t("Play on"),
    "pip_count": t("Pips: {n}"),
    "off": t("off"),
    "spectator": t("You are watching this game."),
    "your_turn": t("Your turn."),
    "waiting": t("Waiting for the opponent."),
    "over": t("The game is over."),
    "connection_lost": t("Connection lost; reconnecting…"),
    "not_sent": t("That did not reach the server: check the connection and try again."),
    "not_loaded": t("The board could not be loaded: reload the page in a moment."),
    "not_taken": t("The server did not take that: try again."),
    "slow_down": t("Not so fast, please: wait a few seconds and try again."),
    "busy_retrying": t("The board is busy: trying again in a moment…"),
    "no_access_title": t("This link does not open a board"),
    "no_access": t(
        "It may be mistyped or out of date (a personal link lasts a week). Send /board in the"
        " game's chat for a new one."
    ),
    "not_started": t(
        "The game starts when the challenge is accepted in the chat; this page follows it."
    ),
    "rematch": t("Rematch"),
    "analyse": t("🔍 Analyse"),
    "analysis_sent": t("The analysis is on its way to the chat."),
    "loading": t("Loading the board…"),
    "pick_checker": t("Tap or drag a checker, then tap where it goes."),
    "pick_target": t("Tap a marked point: the checker goes there, over one die or several."),
    "cannot_move": t("That checker can't move now."),
    "choose_way": t("Two ways lead there: which one?"),
    # The finished game's winner, marked in their strip as on the picture ("★ winner").
    "winner": t("winner"),
}


def page_texts(lang: str) -> dict[str, str]:
    """The page's words in ``lang`` (English for an unknown language)."""
    lang = lang if lang in LANGUAGES else "en"
    return {key: translate(text, lang) for key, text in PAGE_TEXTS.items()}
