"""Hostile input: garbage, oversized and forged input never breaks anything.

Fuzzed with hypothesis: notation, commands and button data. Every answer is a polite view;
no exception escapes, and games stay valid.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service.service import Actor, Place
from bot.storage.sqlite import SqliteStorage
from core.errors import TavlaError
from core.notation import parse_legs
from core.turn import Turn
from core.variants import variant_by_name
from tests.factory import make_service

NOTATION_ALPHABET = st.sampled_from(
    [*"0123456789/*() ,;-bBaArRoOfF", "çık", "kırık", "\u202e", "𝟙", "٣"]
)
notation_like = st.lists(NOTATION_ALPHABET, max_size=40).map("".join)
anything = st.text(max_size=300)


@given(st.one_of(notation_like, anything))
@settings(max_examples=400, deadline=None)
def test_parser_only_ever_answers_legs_or_a_notation_error(text):
    try:
        legs = parse_legs(text)
    except TavlaError:
        return
    assert 1 <= len(legs) <= 4


@given(st.one_of(notation_like, anything), st.sampled_from(["tavla", "uzun"]))
@settings(max_examples=300, deadline=None)
def test_a_turn_refuses_garbage_with_a_reason_and_stays_intact(text, name):
    variant = variant_by_name(name)
    turn = Turn(variant, variant.start_position(), (6, 5), first_turn=True)
    before = turn.position
    code = None
    try:
        turn.apply_text(text)
    except TavlaError as error:
        code = error.code
    if code is not None:
        assert turn.position == before  # a refused move changes nothing
    else:
        assert turn.done
        assert turn.position in {p.after for p in turn.plays} or not turn.complete


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    loop = asyncio.new_event_loop()
    storage = SqliteStorage(str(tmp_path_factory.mktemp("hostile") / "h.db"))
    loop.run_until_complete(storage.open())
    service = make_service(storage, render_images=False, burst_actions=10**9)
    yield loop, service
    loop.run_until_complete(storage.close())
    loop.close()


ACTOR = Actor("fuzz", "1", "Fuzzy")
PLACE = Place("fuzz", "room")


@given(
    st.sampled_from(
        [
            "tavla",
            "uzun",
            "move",
            "bot",
            "stats",
            "top",
            "lang",
            "export",
            "dice",
            "resign",
            "abort",
            "claim",
            "rules",
            "x" * 70,
            "",
            "tavla@bot",
        ]
    ),
    anything,
)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_commands_with_garbage_arguments_answer_politely(service, name, args):
    loop, svc = service
    views = loop.run_until_complete(svc.command(ACTOR, PLACE, name, args))
    assert views
    assert all(v.lines for v in views)


@given(
    st.one_of(anything, st.from_regex(r"\d{1,12}:\d{1,6}:[a-z]{1,3}[0-9\-]{0,8}", fullmatch=True))
)
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_forged_button_data_is_refused(service, data):
    loop, svc = service
    views = loop.run_until_complete(svc.press(ACTOR, PLACE, data))
    assert views
    assert views[0].notice


@given(anything)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_plain_messages_in_a_private_chat_never_break(service, text):
    loop, svc = service
    views = loop.run_until_complete(svc.text(ACTOR, Place("fuzz", "dm", private=True), text))
    assert isinstance(views, list)


def test_a_button_of_another_chat_does_not_work_here(service):
    """A real button, replayed in another chat, is refused."""
    loop, svc = service
    from bot.service import actions as A

    views = loop.run_until_complete(svc.command(ACTOR, PLACE, "bot", ""))
    data = next(b.action for v in views for row in v.buttons for b in row)
    assert A.decode(data) is not None
    elsewhere = loop.run_until_complete(svc.press(ACTOR, Place("fuzz", "other"), data))
    assert elsewhere[0].notice
    stranger = loop.run_until_complete(svc.press(Actor("fuzz", "2", "Stranger"), PLACE, data))
    assert stranger[0].notice
