"""Translations: Turkish, English and Russian, from gettext catalogs read with Babel.

The service never builds user-facing strings itself: it returns :class:`Text` objects (an
English message id and its arguments) and the adapter renders them in the reader's language
with :func:`translate`. The catalogs are ``bot/locales/<lang>/LC_MESSAGES/messages.po``;
they are compiled in memory at start-up with Babel, so no compiled file is kept in the tree.
Message ids are marked with :func:`t` so that ``pybabel extract -k t`` finds them; a message
with a count (``{n} points``) is marked with :func:`tn` (``-k tn:1,2``) and takes the form the
count asks for in each language (gettext's ``ngettext``: Russian has three, Turkish one).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LANGUAGES = ("tr", "en", "ru")
DEFAULT_LANGUAGE = "en"
LOCALE_DIR = Path(__file__).with_name("locales")
LANGUAGE_NAMES = {"tr": "Türkçe", "en": "English", "ru": "Русский"}


@dataclass(frozen=True)
class Text:
    """A message to show: its English id and its arguments (which may be Texts too).
    ``plural``: the English plural of a message with a count (the ``n`` argument chooses
    the form; see :func:`tn`)."""

    msgid: str
    args: dict[str, Any] = field(default_factory=dict)
    plural: str | None = None

    def __hash__(self) -> int:
        args = tuple(sorted((k, str(v)) for k, v in self.args.items()))
        return hash((self.msgid, self.plural, args))

    def with_args(self, args: dict[str, Any]) -> Text:
        """The same message (its plural too) with other arguments."""
        return replace(self, args=args)


def t(msgid: str, **args: Any) -> Text:
    """Mark ``msgid`` for translation and bind its arguments."""
    return Text(msgid, args)


def tn(singular: str, plural: str, n: int, **args: Any) -> Text:
    """Mark a message with a count for translation: ``singular`` and ``plural`` are its
    English forms, ``n`` the count (the ``{n}`` placeholder) that chooses each language's
    form (``tn("{n} point", "{n} points", 3)``)."""
    return Text(singular, {"n": n, **args}, plural)


def normalize_language(code: str | None) -> str | None:
    """Our language for a platform's code (``tr-TR`` → ``tr``), or None if we lack it."""
    if not code:
        return None
    base = code.replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


@cache
def catalog(lang: str) -> NullTranslations:
    """The compiled catalog of ``lang`` (English needs none: ids are English)."""
    path = LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT_LANGUAGE or not path.exists():
        return NullTranslations()
    with path.open("rb") as fh:
        po = read_po(fh, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, po)
    buffer.seek(0)
    return Translations(fp=buffer)


def translate(text: Text | str, lang: str | None) -> str:
    """``text`` in ``lang`` with its arguments filled in (nested Texts translated too)."""
    if isinstance(text, str):
        return text
    lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
    english = text.msgid
    if text.plural is None:
        template = catalog(lang).gettext(text.msgid)
    else:
        count = _count(text.args.get("n"))
        template = catalog(lang).ngettext(text.msgid, text.plural, count)
        english = text.msgid if count == 1 else text.plural
    args = {k: translate(v, lang) if isinstance(v, Text) else v for k, v in text.args.items()}
    try:
        return template.format(**args)
    except KeyError:
        # An argument the English lacks too is filled in later (the web page puts in the
        # cube's value itself): the translation, with that placeholder as it is written.
        # One only the translation names is a translator's slip: English below.
        try:
            english.format(**args)
        except KeyError:
            try:
                return template.format_map(_Keep(args))
            except (IndexError, ValueError):
                pass
        except (IndexError, ValueError):
            pass
    except (IndexError, ValueError):
        pass
    # A broken translation must not hide the message: English, unknown placeholders kept.
    try:
        return english.format_map(_Keep(args))
    except (IndexError, ValueError):
        return english


def _count(value: Any) -> int:
    """The whole number that chooses a plural form (a float score of 1.0 is one)."""
    try:
        return abs(int(value))
    except (TypeError, ValueError):
        return 0


class _Keep(dict):
    """Arguments for ``format_map`` that leave unknown ``{names}`` in place."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def translate_lines(lines: list[Text | str], lang: str | None) -> str:
    """Several messages, one per line."""
    return "\n".join(translate(line, lang) for line in lines)
