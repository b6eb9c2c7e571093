"""A group sees one event and one language (through the real python-telegram-bot against the
fake Bot API): a tournament joined by the card's buttons and by command by members of three
languages leaves exactly one live card, every earlier card without buttons and pointing to
the current one, and what the bot posts in the group is in the group's language (the first
speaker's, then the one most of its players use), whoever acted last; a group's /lang wins
and does not change anybody's own language."""

from __future__ import annotations

import pytest

from bot.service.group_lang import majority
from tests.test_telegram import buttons, press
from tests.test_telegram import fake as fake
from tests.test_telegram_tournament import bot as bot

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GROUP_ID = -100800


def cards(fake, group) -> list[dict]:
    """The group's messages with tournament buttons: the live cards."""
    return [m for m in fake.messages(group) if any(d.startswith("tn:") for d in buttons(m))]


def test_the_majority_keeps_the_current_language_on_a_tie() -> None:
    assert majority(["tr", "en", "en"], "tr") == "en"
    assert majority(["tr", "en"], "tr") == "tr"
    assert majority(["ru", "ru", "en", None], None) == "ru"
    assert majority([], "en") == "en"


async def test_one_live_card_and_the_groups_language_whoever_acts(fake, bot):
    ali = fake.user(11, "Ali", language_code="tr")
    veli = fake.user(22, "Veli", language_code="en")
    olga = fake.user(33, "Olga", language_code="ru")
    ivan = fake.user(44, "Ivan", language_code="ru")
    pyotr = fake.user(55, "Pyotr", language_code="ru")
    group = fake.group(GROUP_ID, "Чайхана")

    await fake.send_text(ali, group, "/tournament swiss turkish")
    (card,) = await fake.wait_for(lambda: cards(fake, group) or None, 10)
    # The first speaker's language: the group has no other yet.
    assert "Turnuva" in card["text"]
    join = next(d for d in buttons(card) if d.endswith(":j"))
    await press(fake, veli, group, card, join)
    count = len(fake.messages(group))
    await fake.send_text(olga, group, "/tournament join")
    await fake.send_text(ivan, group, "/tournament join")
    await fake.wait_for(lambda: "Ivan" in fake.message(group, card["message_id"])["text"], 10)
    await press(fake, pyotr, group, fake.message(group, card["message_id"]), join)

    # Joining by command posted no second card: the one card was edited each time.
    assert [c["message_id"] for c in cards(fake, group)] == [card["message_id"]]
    await fake.wait_for(lambda: "Pyotr" in fake.message(group, card["message_id"])["text"], 10)
    live = fake.message(group, card["message_id"])
    assert all(name in live["text"] for name in ("Ali", "Veli", "Olga", "Ivan", "Pyotr")), live[
        "text"
    ]
    # Three of five players speak Russian: the card is in Russian now, whoever pressed.
    assert "Турнир" in live["text"]
    answers = [m["text"] for m in fake.messages(group)[count:] if not buttons(m)]
    assert answers, "each joiner by command is answered in the group"
    assert any("Ivan" in a and "турнир" in a.casefold() for a in answers)

    # The card posted again (/tournament): the old one points to it, with no buttons.
    await fake.send_text(veli, group, "/tournament")

    def moved() -> bool:
        live = cards(fake, group)
        return len(live) == 1 and live[0]["message_id"] != card["message_id"]

    await fake.wait_for(moved, 10)
    old = fake.message(group, card["message_id"])
    assert old["text"].startswith("⬇️")
    assert "Ivan" not in old["text"]  # no stale list of players left behind
    (current,) = cards(fake, group)
    # A Turkish speaker presses Leave: the live card changes, in the group's language.
    leave = next(d for d in buttons(current) if d.endswith(":l"))
    answer = await press(fake, veli, group, current, leave)
    assert not answer.get("text"), answer
    after = fake.message(group, current["message_id"])["text"]
    assert "Veli" not in after
    assert "Турнир" in after


async def test_a_groups_lang_wins_and_leaves_each_persons_own(fake, bot):
    ali = fake.user(11, "Ali", language_code="tr")
    group = fake.group(GROUP_ID, "Kahve")
    await fake.send_text(ali, group, "/lang en")
    await fake.wait_for(lambda: fake.messages(group) or None, 10)
    await fake.send_text(ali, group, "/tavla")
    challenge = await fake.wait_for(
        lambda: next((m for m in fake.messages(group) if buttons(m)), None), 10
    )
    assert "wants to play" in challenge["text"]
    user = await bot.storage.get_or_create_user("telegram", "11", "Ali", "tr")
    assert user.lang is None  # the group's language did not become Ali's own
