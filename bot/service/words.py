"""The words commands take, once: the command catalogue checks arguments against them and
the handlers read them (``/bot uzun expert``, ``/top turkish``, ``/resign gammon``).

Words are compared case-folded; the Turkish and Russian spellings players type are here too.
"""

from __future__ import annotations

from core.game import ResultKind

TAVLA = frozenset({"tavla", "backgammon", "короткие"})
TURKISH = frozenset({"turkish", "türk", "turk", "turkce", "türkçe", "geleneksel", "турецкие"})
UZUN = frozenset({"uzun", "nardy", "нарды", "длинные"})
#: Every word that names a game kind (a leaderboard, the rules, the computer's game).
KINDS = TAVLA | TURKISH | UZUN
#: The pool's leaderboard (``/top pool``).
POOL = frozenset({"pool", "havuz", "пул"})
#: The pace of a pool game: a day per move.
DAILY = frozenset({"daily", "günlük", "gunluk", "ежедневно"})
FAST = frozenset({"fast", "hızlı", "hizli", "быстро", "blitz"})
#: A challenge to a game that counts in no rating (hints then by both players' consent).
UNRATED = frozenset(
    {"unrated", "friendly", "puansız", "puansiz", "dostça", "dostca", "товарищеская", "дружеская"}
)
#: The computer's strengths (core.ai.player_for) by every word that names one: English, and
#: the words the Turkish and Russian /bot usage shows (bot.service.presenter.LEVEL_NAMES).
LEVELS: dict[str, str] = {
    **{level: level for level in ("beginner", "club", "expert", "master", "random")},
    "acemi": "beginner",
    "kahvehane": "club",
    "usta": "expert",
    "üstat": "master",
    "ustat": "master",
    "rastgele": "random",
    "новичок": "beginner",
    "клуб": "club",
    "мастер": "expert",
    "гроссмейстер": "master",
    "случайный": "random",
}
#: ``/resign``'s levels (T-9): numbers and the words of each language.
RESIGN_LEVELS: dict[str, ResultKind] = {
    "1": ResultKind.SINGLE,
    "single": ResultKind.SINGLE,
    "oyun": ResultKind.SINGLE,
    "2": ResultKind.GAMMON,
    "gammon": ResultKind.GAMMON,
    "mars": ResultKind.GAMMON,
    "марс": ResultKind.GAMMON,
    "3": ResultKind.BACKGAMMON,
    "backgammon": ResultKind.BACKGAMMON,
    "katmerli": ResultKind.BACKGAMMON,
    "кокс": ResultKind.BACKGAMMON,
}
#: Two words that name one choice: a Turkish backgammon is "katmerli mars" (rules.md T-7),
#: not a backgammon and a gammon at once.
PHRASES: dict[tuple[str, str], str] = {("katmerli", "mars"): "katmerli"}


def joined(text: str) -> list[str]:
    """The words of ``text``, each of :data:`PHRASES` as its one word."""
    words = text.split()
    out: list[str] = []
    for word in words:
        if out and (out[-1].casefold(), word.casefold()) in PHRASES:
            out[-1] = PHRASES[out[-1].casefold(), word.casefold()]
        else:
            out.append(word)
    return out


#: What Telegram's start links carry after ``/start`` (``t.me/<bot>?start=tavla``).
START_LINKS = frozenset({"tavla", "uzun"})


def kind_of(word: str) -> str | None:
    """The game kind (``tavla``, ``turkish``, ``uzun``) a word names, or None."""
    low = word.casefold()
    if low in TAVLA:
        return "tavla"
    if low in TURKISH:
        return "turkish"
    if low in UZUN:
        return "uzun"
    return None


def first_kind(text: str) -> str | None:
    """The game kind the first word of ``text`` that names one names, or None."""
    for word in text.split():
        kind = kind_of(word)
        if kind is not None:
            return kind
    return None


def meaning(word: str) -> tuple[str, str] | None:
    """What ``word`` chooses, as (what, which): ``("kind", "uzun")`` for ``nardy``,
    ``("level", "expert")``, ``("length", "5")``, ``("pace", "daily")``, ``("resign",
    "gammon")``; None for a word that chooses none of these (a name, a move)."""
    low = word.casefold()
    if (kind := kind_of(low)) is not None:
        return "kind", kind
    if low in LEVELS:
        return "level", LEVELS[low]
    if low.isascii() and low.isdigit():
        # Compared as written, without leading zeros: int() refuses thousands of digits.
        return "length", low.lstrip("0") or "0"
    if low in FAST:
        return "pace", "fast"
    if low in DAILY:
        return "pace", "daily"
    if low in RESIGN_LEVELS:
        return "resign", RESIGN_LEVELS[low].value
    return None


def clash(text: str) -> tuple[str, str] | None:
    """The first two words of ``text`` that choose the same thing differently (``uzun
    turkish``, ``3 5``, ``expert master``), or None: a command must not quietly take the
    last one. Two spellings of one choice (``uzun nardy``) are no clash."""
    chosen: dict[str, tuple[str, str]] = {}
    for word in joined(text):
        found = meaning(word)
        if found is None:
            continue
        what, which = found
        if what in chosen and chosen[what][1] != which:
            return chosen[what][0], word
        chosen.setdefault(what, (word, which))
    return None
