"""The translation catalogs: complete, faithful to their placeholders, and up to date.

The English message ids are marked in the source with ``t("…")``; the template
``bot/locales/messages.pot`` lists them and each language's ``messages.po`` translates them
(see ``bot/locales/README.md``).
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from bot.i18n import LANGUAGES, LOCALE_DIR, catalog, normalize_language, t, tn, translate
from core.dice import FixedDice
from core.match import Match
from core.variants import variant_by_name

SOURCE_DIR = Path(__file__).resolve().parents[1] / "bot"
TEMPLATE = LOCALE_DIR / "messages.pot"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]

UPDATE_COMMAND = (
    ".venv/bin/pybabel extract -k t -k tn:1,2 --no-location --sort-output --no-wrap "
    '--project Tavla --version 0.1.0 --copyright-holder "The Tavla contributors" '
    "-o bot/locales/messages.pot bot && "
    ".venv/bin/pybabel update -D messages -i bot/locales/messages.pot -d bot/locales "
    "--no-wrap --ignore-pot-creation-date"
)
HOW_TO_FIX = (
    f"update the catalogs with\n    {UPDATE_COMMAND}\n"
    "then translate every new (empty or fuzzy) entry in bot/locales/tr and bot/locales/ru "
    "(see bot/locales/README.md)"
)


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=locale)


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a str.format template fills in."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def key(message_id: str | tuple[str, ...]) -> str:
    """A message's singular id (a plural entry's id is its English forms)."""
    return message_id if isinstance(message_id, str) else message_id[0]


def forms(string: str | tuple[str, ...]) -> tuple[str, ...]:
    """A translation's forms: one, or each plural form."""
    return (string,) if isinstance(string, str) else tuple(string)


@pytest.fixture(scope="module")
def template_ids() -> set[str]:
    return {key(message.id) for message in read(TEMPLATE) if message.id}


@pytest.fixture(scope="module")
def source_ids() -> set[str]:
    """Every ``t("…")`` and ``tn("…", "…", n)`` id in the source, found the way
    ``pybabel extract -k t -k tn:1,2`` finds them."""
    ids = set()
    for _filename, _lineno, message, _comments, _context in extract_from_dir(
        # pybabel's default keywords (``_`` marks Discord's locale_str) plus ``t``.
        str(SOURCE_DIR),
        keywords={**DEFAULT_KEYWORDS, "t": None, "tn": (1, 2)},
    ):
        if isinstance(message, str) and message:
            ids.add(message)
        elif isinstance(message, tuple) and message[0]:
            ids.add(message[0])
    return ids


def test_source_has_messages(source_ids):
    assert len(source_ids) > 100
    assert "It is not your turn." in source_ids


def test_every_source_message_is_in_the_template(source_ids, template_ids):
    missing = sorted(source_ids - template_ids)
    assert not missing, (
        f"{len(missing)} message id(s) in the source are missing from "
        f"bot/locales/messages.pot: {missing}\nTo fix, {HOW_TO_FIX}"
    )


def test_template_has_no_stale_messages(source_ids, template_ids):
    stale = sorted(template_ids - source_ids)
    assert not stale, (
        f"bot/locales/messages.pot has id(s) no longer in the source: {stale}\nTo fix, {HOW_TO_FIX}"
    )


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang, template_ids):
    po = read(LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", locale=lang)
    entries = {key(message.id): message for message in po if message.id}
    missing = sorted(template_ids - entries.keys())
    empty = sorted(i for i in template_ids & entries.keys() if not all(forms(entries[i].string)))
    fuzzy = sorted(i for i in template_ids & entries.keys() if entries[i].fuzzy)
    problems = {"missing": missing, "untranslated": empty, "fuzzy": fuzzy}
    problems = {kind: ids for kind, ids in problems.items() if ids}
    assert not problems, f"{lang}: {problems}\nTo fix, {HOW_TO_FIX}"
    assert not po.fuzzy, f"{lang}: the catalog header is marked fuzzy"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_their_placeholders(lang):
    po = read(LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", locale=lang)
    wrong = {}
    for message in po:
        if message.id and message.string:
            expected = set().union(*(placeholders(i) for i in forms(message.id)))
            for string in forms(message.string):
                got = placeholders(string)
                if got != expected:
                    wrong[key(message.id)] = (sorted(expected), sorted(got))
    assert not wrong, f"{lang}: placeholders differ from the English id: {wrong}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_message_with_a_count_has_every_plural_form_of_the_language(lang):
    """Russian counts take three forms (1 очко, 2 очка, 5 очков): each is given."""
    po = read(LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", locale=lang)
    plurals = [message for message in po if message.id and message.pluralizable]
    assert plurals, "no message with a count is marked with tn()"
    short = {
        key(m.id): len(forms(m.string))
        for m in plurals
        if len(forms(m.string)) != po.num_plurals or not all(forms(m.string))
    }
    assert not short, f"{lang}: plural forms missing (needs {po.num_plurals}): {short}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_format_cleanly(lang):
    """Every translation formats with its id's arguments (no stray braces)."""
    po = read(LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", locale=lang)
    for message in po:
        if message.id and message.string:
            args = dict.fromkeys(placeholders(key(message.id)), "X")
            for string in forms(message.string):
                string.format(**args)


def test_turkish_hangs_no_suffix_on_a_placeholder():
    """A Turkish suffix follows the sound of the word before it (%12'si, %40'ı, %5'i), which
    a catalogue cannot know for a number or a name filled in later: "%{percent}'i" read
    "%12'i" under a puzzle's answer, and "{hour}:00'da" read "20:00'da" (yirmide)."""
    import re

    po = read(LOCALE_DIR / "tr" / "LC_MESSAGES" / "messages.po", locale="tr")
    suffixed = re.compile(r"\}[^\s'’]*['’][a-zçğıöşü]")  # {n}'si, {hour}:00'da
    wrong = [
        key(m.id)
        for m in po
        if m.id and m.string and any(suffixed.search(s) for s in forms(m.string))
    ]
    assert not wrong, wrong


async def test_turkish_settings_speak_to_the_player_as_sen(tmp_path):
    """The bot says "sen" to a player everywhere ("Sıra sende"); /settings said "siz"
    ("Ayarlarınız", "yazın"), beside "sen" on the same screen."""
    import re

    from bot.service.service import Actor, Place
    from bot.storage.sqlite import SqliteStorage
    from tests.factory import make_service

    storage = SqliteStorage(str(tmp_path / "s.db"))
    await storage.open()
    try:
        service = make_service(storage, render_images=False)
        ayse = Actor("test", "7", "Ayşe", "ayse", "tr")
        views = await service.command(ayse, Place("test", "7", private=True), "settings", "")
        text = "\n".join(translate(line, "tr") for v in views for line in v.lines)
        assert "Ayarların" in text
        formal = re.findall(r"\w+(?:ınız|iniz|unuz|ünüz|sınız|siniz)\b|\bsiz\w*", text)
        assert not formal, formal
    finally:
        await storage.close()


@pytest.mark.parametrize(
    ("text", "tr", "ru"),
    [
        (t("It is not your turn."), "Sıra sende değil.", "Сейчас не ваш ход."),
        (t("🎲 Roll"), "🎲 Zar at", "🎲 Бросить"),
        (t("a gammon (mars)"), "mars", "марс"),
        (t("a backgammon"), "katmerli mars", "кокс"),
        (t("Uzun Tavla"), "Uzun Tavla", "длинные нарды"),
        (
            t("Point {point} is closed: your opponent holds it.", point=7),
            "7. hane kapalı: orası rakibin.",
            "Пункт 7 закрыт: он занят соперником.",
        ),
        (
            t("Write a move such as 13/8 6/5."),
            "13/8 6/5 gibi bir hamle yaz.",
            "Напишите ход, например 13/8 6/5.",
        ),
    ],
)
def test_translate(text, tr, ru):
    assert translate(text, "tr") == tr
    assert translate(text, "ru") == ru
    assert translate(text, "en") == text.msgid.format(**text.args)


def test_translate_nested_texts():
    text = tn(
        "{name} wins {kind}: {n} point.",
        "{name} wins {kind}: {n} points.",
        2,
        name="Ali",
        kind=t("a gammon (mars)"),
    )
    assert translate(text, "tr") == "Ali kazandı: mars, 2 puan."
    assert translate(text, "ru") == "Ali побеждает: марс, 2 очка."
    assert translate(text, "en") == "Ali wins a gammon (mars): 2 points."


@pytest.mark.parametrize(
    ("n", "en", "ru", "tr"),
    [
        (1, "1 point", "1 очко", "1 puan"),
        (2, "2 points", "2 очка", "2 puan"),
        (5, "5 points", "5 очков", "5 puan"),
        (11, "11 points", "11 очков", "11 puan"),
        (21, "21 points", "21 очко", "21 puan"),
        (0, "0 points", "0 очков", "0 puan"),
    ],
)
def test_a_count_takes_each_languages_plural_form(n, en, ru, tr):
    """No "point(s)": English one/other, Russian's three forms, Turkish's one."""
    text = tn("{kind}: {n} point", "{kind}: {n} points", n, kind="X")
    assert translate(text, "en") == f"X: {en}"
    assert translate(text, "ru") == f"X: {ru}"
    assert translate(text, "tr") == f"X: {tr}"


def test_a_placeholder_filled_in_later_keeps_the_translation():
    """The web page's words are sent with their placeholders ({n}: the cube's value) and
    filled in by the page: translated, not English (the page showed "Double to 2")."""
    from bot.web.texts import page_texts

    assert translate(t("Double to {n}"), "tr") == "Katla ({n})"
    assert page_texts("ru")["double"] == "Удвоить до {n}"
    assert page_texts("tr")["pip_count"] == "Pip: {n}"


def test_a_translation_naming_a_placeholder_the_message_lacks_falls_back_to_english(
    monkeypatch,
):
    import bot.i18n as i18n

    class Slipped:
        def gettext(self, msgid: str) -> str:
            return "{nmae} kazandı."

    monkeypatch.setattr(i18n, "catalog", lambda lang: Slipped())
    assert translate(t("{name} wins!", name="Ali"), "tr") == "Ali wins!"


def test_translate_unknown_language_is_english():
    assert translate(t("It is not your turn."), "pt") == "It is not your turn."
    assert translate(t("It is not your turn."), None) == "It is not your turn."


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        ("tr-TR", "tr"),
        ("tr", "tr"),
        ("ru_RU", "ru"),
        ("RU", "ru"),
        ("en-GB", "en"),
        ("pt", None),
        ("pt-BR", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_language(code, lang):
    assert normalize_language(code) == lang


def test_turkish_catalog_speaks_the_players_words():
    words = catalog("tr")
    joined = " ".join(
        words.gettext(m)
        for m in (
            "You may land on a point with one opposing checker and hit it to the bar; "
            "two or more close the point.",
            "Win with the opponent having borne off none: mars (gammon), 2 points; "
            "with a checker still in your home or on the bar: 3.",
            "This game is played without the doubling cube.",
        )
    )
    for word in ("pul", "kapı", "kırabilirsin", "mars", "katmerli mars", "katlama küpü"):
        assert word in joined


@pytest.mark.parametrize(
    ("lang", "pips", "match_to"),
    [
        ("en", "pips", "Match to {n}"),
        ("tr", "pip", "{n} puanlık maç"),
        ("ru", "пипсы", "Матч до {n}"),
    ],
)
def test_board_labels_are_translated(lang, pips, match_to):
    from bot.service.presenter import board_view

    match = Match(variant_by_name("tavla"), 5)
    match.start_game(FixedDice([6, 3]))
    view = board_view(match, ["Ali", "Veli"], lang=lang)
    assert view.labels["pips"] == pips
    assert view.labels["match_to"] == match_to
    assert view.label("match_to", n=5) == match_to.format(n=5)
