"""The words of ``/tournament``: its subcommands, the settings it is opened with, the usage
line and core's refusals as messages."""

from __future__ import annotations

import re

from bot.i18n import Text, t, tn
from core.tournament import Format, Pace, Settings, TournamentError

from .. import words as W
from ..errors import UserFacingError
from ..numbers import parse_number

DEFAULT_SWISS_ROUNDS = 3

FORMAT_WORDS = {
    Format.KNOCKOUT: {"knockout", "ko", "cup", "eleme", "kupa", "олимпийка", "навылет"},
    Format.ROUND_ROBIN: {"roundrobin", "round-robin", "rr", "league", "lig", "круговой"},
    Format.SWISS: {"swiss", "isviçre", "isvicre", "швейцарка", "швейцарская"},
}
ROUND_WORDS = {"round", "rounds", "tur", "raunt", "тур", "тура", "туров", "раунд", "раунда"}
POINT_WORDS = {"point", "points", "puan", "очко", "очка", "очков"}
#: ``2 timeouts``: how many matches lost on time withdraw a player (0: never).
TIMEOUT_WORDS = {"timeout", "timeouts", "süre", "таймаут", "таймаута", "таймаутов"}
MAX_WORDS = {"max", "çok", "макс", "максимум"}
#: ``min 4``: the fewest players it starts with at its start time (2 by default).
MIN_WORDS = {"min", "az", "мин", "минимум"}
#: Words that only join others (Turkish ``en çok 8``, ``en az 4``, ``2sa içinde``: the
#: Turkish "in" follows the time it goes with).
FILLER_WORDS = {"en", "içinde"}
SUBCOMMANDS = {
    "join": {"join", "katıl", "katil", "участвую", "войти"},
    "leave": {"leave", "ayrıl", "ayril", "выйти"},
    "start": {"start", "başlat", "baslat", "старт", "начать"},
    "cancel": {"cancel", "iptal", "отмена"},
    "show": {"standings", "table", "show", "tablo", "таблица"},
    "award": {"award", "hükmen", "hukmen", "присудить"},
}
# ASCII digits only ("\d" would take other scripts' digits too).
_RELATIVE_START = re.compile(r"^([0-9]{1,4})(m|min|h|dk|sa|м|ч)$")

FORMAT_NAMES: dict[Format, Text] = {
    Format.KNOCKOUT: t("knockout"),
    Format.ROUND_ROBIN: t("round robin"),
    Format.SWISS: t("Swiss"),
}
GAME_NAMES: dict[str, Text] = {
    "tavla": t("Tavla"),
    "turkish": t("Turkish tavla"),
    "uzun": t("Uzun Tavla"),
}

#: Core's refusals (TournamentError codes) as messages.
ERRORS: dict[str, Text] = {
    "tournament_not_joined": t("You are not in this tournament."),
    "tournament_already_joined": t("You are in the tournament already."),
    "tournament_full": tn(
        "The tournament is full ({n} player).", "The tournament is full ({n} players).", 0
    ),
    "tournament_not_organiser": t("Only the organiser or a chat admin can do that."),
    "tournament_too_few": tn(
        "At least {n} player is needed to start.", "At least {n} players are needed to start.", 0
    ),
    "tournament_over": t("This tournament is over."),
    "tournament_started": t("The tournament has started: entries are closed."),
    "tournament_not_running": t("The tournament is not running."),
    "tournament_bad_game": t("A tournament is played in tavla, turkish or uzun."),
    "tournament_bad_length": tn(
        "A match can be 1 to {n} point long.", "A match can be 1 to {n} points long.", 0
    ),
    "tournament_bad_limits": t("The player limit can be 2 to {max}."),
    "tournament_bad_rounds": t("A Swiss has 1 to 30 rounds; the other formats set their own."),
}
#: The argument of core's refusal that counts something in a message with plural forms.
COUNTED = {"tournament_full": "max", "tournament_too_few": "min", "tournament_bad_length": "max"}
#: How far ahead a tournament may start: a start a year off would hold the chat's tournaments
#: up (a chat admin may replace one that has not started, see PENDING).
MAX_START_AHEAD = 7 * 24 * 3600
TOO_FAR = t("A tournament can start at most a week from now (in 168h).")
PENDING = t(
    "This chat has a tournament already, not started yet: /tournament shows it. Its organiser "
    "or a chat admin can /tournament cancel it, and a chat admin's new /tournament replaces it."
)
REPLACED = t("A chat admin has replaced the tournament that had not started.")
USAGE = t(
    "Open a tournament with /tournament knockout, /tournament roundrobin or "
    "/tournament swiss 4 (rounds), optionally with the game (tavla, turkish, uzun), the match "
    "length (3 points), fast or daily, max 8 and a start such as in 30m. Then: /tournament "
    "join, leave, start, cancel, award @name; /tournament alone shows it."
)


def refusal(error: TournamentError) -> UserFacingError:
    """Core's refusal as the message shown to the player."""
    template = ERRORS.get(error.code)
    if template is None:
        return UserFacingError(t("That can't be done in the tournament now."))
    params = dict(error.params)
    if template.plural is not None:
        # Core names the count by what it is (max, min); the message's form goes by {n}.
        params["n"] = params.pop(COUNTED[error.code])
    return UserFacingError(template.with_args(params))


def parse_settings(words: list[str], now: float) -> Settings:
    """The settings of ``/tournament swiss 4 uzun 3 points fast min 4 max 8 in 30m 2
    timeouts``."""
    fmt: Format | None = None
    game = "tavla"
    length: int | None = None
    rounds: int | None = None
    pace = Pace.DAILY
    max_players = 16
    starts_at: float | None = None
    timeouts = 1
    min_players = 2
    i = 0
    lowered = [w.casefold() for w in words]
    while i < len(lowered):
        word = lowered[i]
        following = lowered[i + 1] if i + 1 < len(lowered) else ""
        next_number = parse_number(following)
        relative = _RELATIVE_START.match(word)
        if any(word in forms for forms in FORMAT_WORDS.values()):
            fmt = next(f for f, forms in FORMAT_WORDS.items() if word in forms)
        elif (kind := W.kind_of(word)) is not None:
            game = kind
        elif word in W.FAST:
            pace = Pace.FAST
        elif word in W.DAILY:
            pace = Pace.DAILY
        elif word in MAX_WORDS and next_number is not None:
            max_players = next_number
            i += 1
        elif word in MIN_WORDS and next_number is not None:
            min_players = next_number
            i += 1
        elif word in FILLER_WORDS:
            pass
        elif word in ("in", "через") and following:
            i += 1
            starts_at = _starts(now, _RELATIVE_START.match(following), words[i])
        elif relative is not None:
            starts_at = _starts(now, relative, words[i])
        elif (number := parse_number(word)) is not None:
            if following in ROUND_WORDS:
                rounds = number
                i += 1
            elif following in POINT_WORDS:
                length = number
                i += 1
            elif following in TIMEOUT_WORDS:
                timeouts = number
                i += 1
            elif fmt is Format.SWISS and rounds is None:
                rounds = number
            else:
                length = number
        elif word not in ROUND_WORDS and word not in POINT_WORDS:
            raise UserFacingError(
                t("I didn't understand “{word}”. {usage}", word=words[i], usage=USAGE)
            )
        i += 1
    if fmt is None:
        raise UserFacingError(USAGE)
    if fmt is Format.SWISS and rounds is None:
        rounds = DEFAULT_SWISS_ROUNDS
    try:
        return Settings(
            fmt,
            game=game,
            match_length=length if length is not None else 1,
            pace=pace,
            max_players=max_players,
            min_players=min_players,
            rounds=rounds if fmt is Format.SWISS else None,
            starts_at=starts_at,
            timeouts_to_withdraw=timeouts,
        )
    except TournamentError as exc:
        raise refusal(exc) from None


def _starts(now: float, match: re.Match[str] | None, word: str) -> float:
    """The start time of ``in 30m`` (``word``, matched as ``match``)."""
    if match is None:
        raise UserFacingError(t("I didn't understand “{word}”. {usage}", word=word, usage=USAGE))
    amount, unit = int(match[1]), match[2]
    ahead = amount * (3600 if unit in ("h", "sa", "ч") else 60)
    if ahead > MAX_START_AHEAD:
        raise UserFacingError(TOO_FAR)
    return now + ahead
