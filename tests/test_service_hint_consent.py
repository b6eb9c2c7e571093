"""Hints in an unrated game between two people, by consent: the first player to ask has the
opponent asked once for the game (allow or decline); with hints on, every hint is announced
to both ("Ali used a hint"); declined, none for either. Never in a rated game, the pool or a
tournament; the tutor stays out of games between two people."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.advice import by_consent, hint_button, hints_allowed, solo_help
from bot.service.settings import POOL_SCOPE
from bot.service.views import View
from bot.storage.base import ContestSettings, GameRecord, GameStatus
from tests.factory import find, press
from tests.test_service import (
    ALI,
    GROUP,
    VELI,
    awaiting_actor,
    board,
    play_out,
    service_at,
    text_of,
)

OTHER = {ALI: VELI, VELI: ALI}


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


async def unrated_game(service) -> list[View]:
    """``/tavla unrated`` by Ali, accepted by Veli."""
    asked = await service.command(ALI, GROUP, "tavla", "unrated")
    assert "Unrated" in text_of(asked)
    return await service.press(VELI, GROUP, find(asked[-1], A.ACCEPT))


async def a_decision(service, views: list[View]):
    """Roll until the player to act has a choice (the board shows 💡): the board and them."""
    for _ in range(8):
        current = board(views)
        actor = await awaiting_actor(service, current.game_id)
        if find(current, A.HINT):
            return current, actor
        views = await press(service, actor, GROUP, current, A.ROLL)
    raise AssertionError("no choice came")


async def test_hints_by_consent_announced_to_both(env) -> None:
    service, _ = env
    views = await unrated_game(service)
    current, asker = await a_decision(service, views)
    other = OTHER[asker]
    record = await service.storage.get_game(current.game_id)
    assert not record.rated
    # The first 💡 asks the opponent; no hint yet.
    (question,) = await press(service, asker, GROUP, current, A.HINT)
    said = text_of([question])
    assert f"{asker.name} asks to use hints in this game. {other.name}, do you allow" in said
    assert "best plays" not in said
    assert question.game_id is None  # a message of its own, never taken for the board
    again = await press(service, asker, GROUP, current, A.HINT)
    assert again[0].notice
    assert f"Waiting for {other.name}" in text_of(again)
    refused = await service.press(asker, GROUP, find(question, A.HINT_YES))
    assert refused[0].notice
    assert f"Only {other.name} can answer" in text_of(refused)
    # Allowed: the asker gets the hint, announced in the chat for both.
    allowed = await service.press(other, GROUP, find(question, A.HINT_YES))
    text = text_of(allowed)
    assert f"{other.name} allowed hints in this game" in text
    assert allowed[0].replace_pressed  # the question's message says the answer
    assert f"💡 {asker.name} used a hint." in text
    assert "— best" in text
    assert (await service.storage.get_game(record.id)).settings.hints == "on"
    # Asked once for the game: the answer stands, a second answer is refused.
    late = await service.press(other, GROUP, find(question, A.HINT_NO))
    assert late[0].notice
    # The opponent's own hint later: announced, no question.
    current = board(await service.command(asker, GROUP, "board", ""))
    for _ in range(40):
        actor = await awaiting_actor(service, current.game_id)
        if actor is other and find(current, A.HINT):
            break
        code = next(c for c in (A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(current, c))
        current = board(await press(service, actor, GROUP, current, code))
    hinted = await press(service, other, GROUP, current, A.HINT)
    assert f"💡 {other.name} used a hint." in text_of(hinted)
    assert "asks to use hints" not in text_of(hinted)
    # Still unrated at the end.
    await play_out(service, [current])
    finished = await service.storage.get_game(record.id)
    assert finished.status is GameStatus.FINISHED
    assert not finished.rated


async def test_declined_hints_are_off_for_both(env) -> None:
    service, _ = env
    views = await unrated_game(service)
    current, asker = await a_decision(service, views)
    other = OTHER[asker]
    (question,) = await press(service, asker, GROUP, current, A.HINT)
    declined = await service.press(other, GROUP, find(question, A.HINT_NO))
    assert f"{other.name} declined hints" in text_of(declined)
    # No 💡 any more, and /hint is refused to both without asking again.
    shown = board(await service.command(asker, GROUP, "board", ""))
    assert find(shown, A.HINT) is None
    for who in (asker, other):
        refused = await service.command(who, GROUP, "hint", "")
        assert refused[0].notice
        assert "declined for this game" in text_of(refused)


async def test_a_rated_challenge_offers_no_hint(env) -> None:
    service, _ = env
    asked = await service.command(ALI, GROUP, "tavla", "")
    assert "Unrated" not in text_of(asked)
    views = await service.press(VELI, GROUP, find(asked[-1], A.ACCEPT))
    record = await service.storage.get_game(board(views).game_id)
    assert record.rated
    actor = await awaiting_actor(service, record.id)
    refused = await service.command(actor, GROUP, "hint", "")
    assert "never for rated games, the pool or tournaments" in text_of(refused)
    assert (await service.storage.get_game(record.id)).settings.hints is None


def record_with(**changes) -> GameRecord:
    settings = {"scope": "test:-1", **changes.pop("settings", {})}
    return GameRecord(
        platform="test",
        chat_id="-1",
        variant="tavla",
        status=GameStatus.ACTIVE,
        seats=changes.pop("seats", [1, 2]),
        challenger=1,
        settings=ContestSettings(**settings),
        **changes,
    )


def test_never_in_rated_pool_or_tournament_games() -> None:
    friendly = record_with(rated=False, settings={"unrated": True})
    assert by_consent(friendly)
    assert hint_button(friendly)
    assert not hints_allowed(friendly)  # nobody has allowed them yet
    on = record_with(rated=False, settings={"unrated": True, "hints": "on"})
    assert hints_allowed(on)
    assert not solo_help(on)  # the tutor watches only games against the computer or oneself
    for shut in (
        record_with(rated=True, settings={"hints": "on"}),
        record_with(rated=False, settings={"scope": POOL_SCOPE, "hints": "on"}),
        record_with(rated=False, settings={"tournament": 3, "hints": "on"}),
    ):
        assert not by_consent(shut)
        assert not hints_allowed(shut)
        assert not hint_button(shut)
    off = record_with(rated=False, settings={"unrated": True, "hints": "off"})
    assert not hint_button(off)
    computer = record_with(rated=False, settings={"computer": 1})
    assert solo_help(computer)
    assert not by_consent(computer)


async def test_the_tutor_stays_out_of_a_game_between_two_people(env) -> None:
    service, _ = env
    views = await unrated_game(service)
    current, asker = await a_decision(service, views)
    user = await service.storage.find_user("test", asker.user_id)
    user.prefs = type(user.prefs)(tutor=True)
    record = await service.storage.get_game(current.game_id)
    record.settings = type(record.settings)(**{**vars(record.settings), "hints": "on"})
    assert not await service.tutor.active(user, record)
