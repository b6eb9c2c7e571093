"""Resigning asks first (T-9): ``/resign`` (with or without a level) puts the question on
the board, "Yes, resign" offers it with one press, "No, play on" leaves the game as it was;
the caption and the result then say who resigned what."""

from __future__ import annotations

import pytest

from bot.i18n import translate, translate_lines
from bot.service import actions as A
from bot.service.service import Actor, Place
from bot.web.state import game_state
from core.match import Match
from tests.factory import buttons_of, find, make_service
from tests.test_service import ALI, GROUP, VELI, board, challenge, service_at, text_of

HOME = Place("test", "100", private=True, title="Ali")


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


def codes(view) -> set[str]:
    return {A.decode(b.action).code for b in buttons_of(view)}


async def match_of(service, game_id: int) -> Match:
    return Match.from_dict((await service.storage.get_game(game_id)).match)


async def test_against_the_computer_move_one_asks_then_says_who_resigned(env):
    service, _ = env
    game_id = board(await service.command(ALI, HOME, "bot", "")).game_id
    before = (await service.storage.get_game(game_id)).version
    asked = await service.command(ALI, HOME, "resign", "")
    question = board(asked)
    assert not question.notice
    assert "Ali: resign a single game?" in text_of(asked)
    assert codes(question) == {A.RESIGN, A.RESIGN_CANCEL}
    assert question.lang == "tr"  # Ali's own language, in his private chat
    labels = [translate(b.label, question.lang) for b in buttons_of(question)]
    assert labels == ["Evet, pes et", "Hayır, devam"]
    # Nothing happened yet: the game stands as it was, not even saved.
    record = await service.storage.get_game(game_id)
    assert record.version == before
    assert (await match_of(service, game_id)).results == []

    kept = await service.press(ALI, HOME, find(question, A.RESIGN_CANCEL))
    assert A.MOVE in codes(board(kept))  # "No, play on": the move buttons are back
    assert "resign" not in text_of(kept)
    assert (await match_of(service, game_id)).results == []

    asked = await service.command(ALI, HOME, "resign", "gammon")
    assert "Ali: resign a gammon (mars)?" in text_of(asked)
    done = await service.press(ALI, HOME, find(board(asked), A.RESIGN))
    assert not done[0].notice, text_of(done)
    (result,) = (await match_of(service, game_id)).results
    assert (result.winner, result.points, result.reason.value) == (1, 2, "resign")
    shown = text_of(done)
    assert "Ali resigned a gammon (mars): Tavla Bot (club) wins 2 points." in shown
    assert "🏆 Tavla Bot (club) wins!" in shown


async def test_against_the_computer_in_a_match_the_next_game_says_who_resigned(env):
    service, _ = env
    game_id = board(await service.command(ALI, HOME, "bot", "3")).game_id
    asked = await service.command(ALI, HOME, "resign", "")
    done = await service.press(ALI, HOME, find(board(asked), A.RESIGN))
    match = await match_of(service, game_id)
    assert len(match.results) == 1
    assert match.game is not None  # game 2 is on, and its board tells how game 1 ended
    assert "Ali resigned a single game: Tavla Bot (club) wins 1 point." in text_of(done)


async def test_between_people_the_offer_is_confirmed_then_answered(env):
    service, _ = env
    _, accept = await challenge(service, "3")
    await service.press(VELI, GROUP, accept)
    asked = await service.command(ALI, GROUP, "resign", "gammon")
    yes = find(board(asked), A.RESIGN)
    refused = await service.press(VELI, GROUP, yes)
    assert refused[0].notice
    assert "Only Ali can answer that." in text_of(refused)
    offered = await service.press(ALI, GROUP, yes)
    assert "Ali offers to resign a gammon (mars). Veli, accept or decline?" in text_of(offered)
    accepted = await service.press(VELI, GROUP, find(board(offered), A.RESIGN_ACCEPT))
    assert "Ali resigned a gammon (mars): Veli wins 2 points." in text_of(accepted)
    game_id = board(offered).game_id
    (result,) = (await match_of(service, game_id)).results
    assert (result.points, result.reason.value) == (2, "resign")


async def test_a_yes_from_a_board_that_has_changed_since_offers_nothing(env):
    """The question belongs to the board it was asked on: once the game has moved on, an
    old "Yes, resign" is out of date (the board is shown as it stands)."""
    service, _ = env
    game_id = board(await service.command(ALI, HOME, "bot", "")).game_id
    asked = await service.command(ALI, HOME, "resign", "")
    game = (await match_of(service, game_id)).game
    await service.command(ALI, HOME, "move", str(game.legal_plays()[0]))
    late = await service.press(ALI, HOME, find(board(asked), A.RESIGN))
    assert late[0].notice
    match = await match_of(service, game_id)
    assert match.results == []
    assert match.game.resign_offer is None


async def test_a_level_the_game_does_not_have_is_refused(env):
    """U-9: Uzun Tavla has no backgammon; the refusal says so and what may be resigned."""
    service, _ = env
    await service.command(ALI, HOME, "bot", "uzun")
    views = await service.command(ALI, HOME, "resign", "backgammon")
    assert views[0].notice
    assert "There is no backgammon in this game (Uzun Tavla). /resign [mars]" in text_of(views)


# What each game lets a player resign (T-7, T-9: single, gammon, backgammon; the turkish
# variant and U-9: single or mars), as /resign's usage and /help's line name it, in each
# language: the words shown, and the words that must not be (a backgammon where none is).
LEVEL_WORDS = {
    "tavla": {
        "en": ("/resign [gammon|backgammon]", ()),
        "tr": ("/resign [mars|katmerli]", ()),
        "ru": ("/resign [марс|кокс]", ()),
    },
    "turkish": {
        "en": ("/resign [mars]", ("backgammon",)),
        "tr": ("/resign [mars]", ("katmerli",)),
        "ru": ("/resign [марс]", ("кокс",)),
    },
    "uzun": {
        "en": ("/resign [mars]", ("backgammon",)),
        "tr": ("/resign [mars]", ("katmerli",)),
        "ru": ("/resign [марс]", ("кокс",)),
    },
}


@pytest.mark.parametrize("lang", ["en", "tr", "ru"])
@pytest.mark.parametrize("kind", ["tavla", "turkish", "uzun"])
async def test_resign_usage_and_help_name_only_the_levels_of_the_game_played_t9_u9(env, kind, lang):
    """T-7, T-9, U-9 and the ``turkish`` variant: /resign's usage (after a word it does not
    take) and /help's line name only what the game played here may be resigned as; in an
    Uzun Tavla game they offered a backgammon ("кокс"), which that game does not have."""
    service, _ = env
    await service.command(ALI, HOME, "bot", "" if kind == "tavla" else kind)
    shown, never = LEVEL_WORDS[kind][lang]
    for args in ("please", "gammon please"):
        refused = await service.command(ALI, HOME, "resign", args)
        assert refused[0].notice
        said = text_of(refused, lang)
        assert shown in said, said
        assert not any(word in said for word in never), said
    helped = text_of(await service.command(ALI, HOME, "help", ""), lang)
    assert shown in helped, helped
    assert not any(word in helped.split("/resign", 1)[1].split("\n")[0] for word in never)


async def test_a_forged_resign_button_is_not_one_of_ours(tmp_path):
    assert A.decode("1:1:gr01") == (1, 1, A.RESIGN, "01")
    for forged in ("1:1:gr", "1:1:gr2", "1:1:gr21", "1:1:gr04", "1:1:gr013", "1:1:gnx"):
        assert A.decode(forged) is None, forged
    storage_path = tmp_path / "f.db"
    from bot.storage.sqlite import SqliteStorage

    storage = SqliteStorage(str(storage_path))
    await storage.open()
    try:
        service = make_service(storage, render_images=False)
        views = await service.press(Actor("test", "1", "X"), HOME, "1:1:gr9")
        assert views[0].notice
    finally:
        await storage.close()


async def test_the_points_won_are_counted_in_each_languages_plural(env):
    """ "wins 2 points", "2 очка", never "point(s)" or Russian "очков: 2"."""
    service, _ = env
    await service.command(ALI, HOME, "lang", "ru")
    board(await service.command(ALI, HOME, "bot", ""))
    asked = await service.command(ALI, HOME, "resign", "gammon")
    done = await service.press(ALI, HOME, find(board(asked), A.RESIGN))
    said = translate_lines(board(done).lines, board(done).lang)
    assert board(done).lang == "ru"
    assert "Ali сдаётся (марс): Tavla Bot" in said
    assert "побеждает, 2 очка." in said
    single = await service.command(VELI, HOME, "bot", "")
    asked = await service.command(VELI, HOME, "resign", "")
    done = await service.press(VELI, HOME, find(board(asked), A.RESIGN))
    assert single
    assert "wins 1 point." in text_of(done)


async def test_a_board_resigned_before_its_roll_was_played_draws_no_dice(env):
    """The finished board drew the dice of the roll nobody played after the resignation."""
    service, _ = env
    shown = board(await service.command(ALI, HOME, "bot", ""))
    game = (await match_of(service, shown.game_id)).game
    assert game.dice  # Ali is to play his roll
    assert "Zar" in shown.text_board
    asked = await service.command(ALI, HOME, "resign", "")
    done = board(await service.press(ALI, HOME, find(board(asked), A.RESIGN)))
    assert (await match_of(service, shown.game_id)).results
    assert done.board.dice == ()
    assert "Zar" not in done.text_board
    state = game_state(await service.storage.get_game(shown.game_id), 0, "en")
    assert state["board"]["dice"] == []
    assert state["board"]["dice_color"] is None
