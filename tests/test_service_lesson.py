"""The guided first game through the service: ``/learn`` plays a game against the computer
that explains the board and the dice before it, how to enter a move at the first move, and
each rule the first time it comes up (a hit and the bar, a dance, bearing off), in the
player's language; never rated; it ends with what to try next."""

from __future__ import annotations

import re

import pytest

from bot.i18n import translate
from bot.service import actions as A
from bot.service.views import Place, View
from bot.storage.base import GameStatus
from core.ai import player_for
from core.match import Match
from core.notation import format_play
from tests.factory import find
from tests.test_service import ALI, AYSE, GROUP, VELI, board, service_at, text_of

HERE = Place("test", ALI.user_id, private=True)
#: A line that starts each kind of note, in English.
MARKS = {
    "move": "🎲 Your roll",
    "roll": "🎲 Press 🎲 Roll",
    "doubled": "⚖️ The computer doubles",
    "hit": "💥 You hit!",
    "hit_you": "💥 The computer hit your checker",
    "dance": "🚫 You could not come in from the bar",
    "dance_them": "🚫 The computer could not come in",
    "home": "🏠 All your checkers are home",
    "off": "✅ Your first checker is off",
    "off_them": "The computer has started bearing off",
    "end": "🎓 That was your first game!",
}


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


def notes(views: list[View]) -> list[View]:
    """The messages that are neither the board nor a notice."""
    return [v for v in views if v.board is None and not v.notice]


def happened(match: Match) -> set[str]:
    """What the game's history shows has happened, read here independently of the lesson."""
    game = match.game
    assert game is not None
    seen: set[str] = set()
    for event in game.history:
        if event["type"] == "play":
            for _source, dest, hit, *_ in event["steps"]:
                if hit:
                    seen.add("hit" if event["seat"] == 0 else "hit_you")
                if dest == 0:
                    seen.add("off" if event["seat"] == 0 else "off_any")
    if game.over:
        seen.add("end")
    return seen


async def play_lesson(
    service, place: Place, views: list[View]
) -> tuple[list[tuple[set[str], str]], list[View]]:
    """Press the first offered button until the guided game ends: for each answer, what had
    newly happened in the game and the answer's notes (English); and the last answer."""
    answers = []
    before: set[str] = set()
    for _ in range(400):
        current = board(views)
        record = await service.storage.get_game(current.game_id)
        if record.status is not GameStatus.ACTIVE:
            return answers, views
        code = next(
            c for c in (A.TUTOR_OK, A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL) if find(current, c)
        )
        views = await service.press(ALI, place, find(current, code))
        assert not any(v.notice for v in views), text_of(views)
        record = await service.storage.get_game(current.game_id)
        now = happened(Match.from_dict(record.match))
        answers.append((now - before, text_of(notes(views))))
        before = now
    raise AssertionError("the guided game did not end")


async def test_a_whole_guided_game_of_tavla(env) -> None:
    """T-1..T-8 as they come up: the board and the opening (T-2) before the first board, the
    roll and how to enter a move with the buttons or by typing, landing (T-3) at the first
    move; a hit (T-4) and the bar (T-5) in the answer where they happened; bearing off (T-6,
    T-7); never rated; the end says what to try next."""
    service, _ = env
    views = await service.command(ALI, HERE, "learn", "")
    first = text_of(views[:1])
    assert views[0].board is None
    assert "Your first game of Tavla" in first
    assert "home board is points 1–6" in first
    assert "bear off" in first
    assert "the higher one starts" in first  # T-2
    told = text_of(notes(views[1:]))
    # The opening roll (T-2) is the player's or the computer's: then a move or a roll waits.
    assert MARKS["move"] in told or MARKS["roll"] in told
    if MARKS["move"] in told:
        assert "press the buttons" in told or "press a button" in told
        assert "Or type a whole move" in told
        assert "a point with a single opposing checker (a blot)" in told  # T-3
    answers, last = await play_lesson(service, HERE, views)
    said = "\n".join(text for _, text in answers) + told
    for topic, mark in MARKS.items():
        assert said.count(mark) <= 1, topic  # each once
    # Each thing is told in the answer where it first happened (read from the history).
    for new, text in answers:
        for topic in ("hit", "hit_you", "off", "end"):
            if topic in new:
                assert MARKS[topic] in text, (topic, text)
    assert "type a whole move" in said
    assert MARKS["end"] in said
    assert "/bot" in said
    assert "/puzzle" in said
    assert "/play" in said
    record = await service.storage.get_game(board(views).game_id)
    assert record.status is GameStatus.FINISHED
    assert not record.rated
    assert set(record.settings.lesson or ()) >= {"end"}
    # A rematch is an ordinary game against the computer: no lesson.
    rematch = next(a for v in last for row in v.buttons for b in row if (a := b.action))
    assert A.decode(rematch).code == A.REMATCH
    again = await service.press(ALI, HERE, rematch)
    fresh = await service.storage.get_game(board(again).game_id)
    assert fresh.id != record.id
    assert fresh.settings.lesson is None
    assert not any(MARKS["move"] in text_of([v]) for v in notes(again))


async def first_move(service, actor, place: Place, args: str) -> tuple[list[View], str]:
    """``/learn args`` by ``actor``, rolling until the player's first move: the answer with
    the note that explains it, and its text (English)."""
    views = await service.command(actor, place, "learn", args)
    for _ in range(8):
        said = text_of(notes(views))
        if MARKS["move"] in said:
            return views, said
        views = await service.press(actor, place, find(board(views), A.ROLL))
    raise AssertionError("no first move")


async def test_the_typed_example_is_a_move_that_plays(env) -> None:
    """The first move's note names one of the player's own moves as typed: typing it plays
    it, in private as a plain message (in a group, as /move)."""
    service, _ = env
    views, said = await first_move(service, ALI, HERE, "turkish")
    typed = re.search(r"reaches: (.+?) is one of yours now", said)
    assert typed is not None, said
    record = await service.storage.get_game(board(views).game_id)
    made = await service.text(ALI, HERE, typed.group(1))
    assert not any(v.notice for v in made), text_of(made)
    assert (await service.storage.get_game(record.id)).version > record.version
    # In a group the note says /move, which plays there.
    _, said = await first_move(service, VELI, GROUP, "turkish")
    typed = re.search(r"\): /move (.+?) is one of yours now", said)
    assert typed is not None, said
    made = await service.command(VELI, GROUP, "move", typed.group(1))
    assert not any(v.notice for v in made), text_of(made)


async def test_the_typed_example_is_a_sound_play_not_the_first_legal_one(env) -> None:
    """The typed example is the play the ``club`` level chooses for that roll, so that a
    learner who copies it learns a good move, not whichever play the move generator lists
    first."""
    service, _ = env
    seen_differ = False
    for actor in (ALI, AYSE):
        views, said = await first_move(
            service, actor, Place("test", actor.user_id, private=True), ""
        )
        typed = re.search(r"reaches: (.+?) is one of yours now", said)
        assert typed is not None, said
        record = await service.storage.get_game(board(views).game_id)
        game = Match.from_dict(record.match).game
        assert game is not None
        assert game.dice is not None
        plays = game.legal_plays()
        club = player_for(game.variant.name, "club").choose_play(
            game.variant, game.position(), plays
        )
        assert typed.group(1) == format_play(club), (game.dice, typed.group(1))
        seen_differ |= format_play(plays[0]) != format_play(club)
    # The seeded rolls include one where the generator's first play is not club's.
    assert seen_differ


async def test_uzun_tavla_teaches_its_own_rules_U3_U4(env) -> None:
    """U-1, U-2 before the board; U-3 (no hitting) and U-4 (one checker off the head) at the
    first move."""
    service, _ = env
    views = await service.command(ALI, HERE, "learn", "uzun")
    first = text_of(views[:1])
    assert "Your first game of Uzun Tavla" in first
    assert "start on your head, point 24" in first  # U-1
    assert "plays White and rolls both dice" in first  # U-2
    await service.command(ALI, HERE, "abort", "")
    _, said = await first_move(service, ALI, HERE, "uzun")
    assert "There is no hitting in Uzun Tavla" in said  # U-3
    assert "Only one checker may leave the head" in said  # U-4
    assert "a single opposing checker (a blot)" not in said


@pytest.mark.parametrize(("actor", "lang"), [(ALI, "tr"), (AYSE, "ru")])
async def test_the_lesson_speaks_the_players_language(env, actor, lang) -> None:
    service, _ = env
    here = Place("test", actor.user_id, private=True)
    views = await service.command(actor, here, "learn", "")
    shown = [v for v in views if not v.notice]
    assert shown[0].lang == lang
    for view in notes(shown):
        assert view.lang == lang
        for line in view.lines:
            if not isinstance(line, str):  # each line translated, none left in English
                assert translate(line, lang) != translate(line, "en"), line.msgid


async def test_learn_takes_a_game_word_only_and_one_game_at_a_time(env) -> None:
    service, _ = env
    refused = await service.command(ALI, HERE, "learn", "fast")
    assert refused[0].notice
    assert "/learn [tavla|turkish|uzun]" in text_of(refused)
    await service.command(ALI, HERE, "learn", "")
    again = await service.command(ALI, HERE, "learn", "uzun")
    assert again[0].notice
    assert "already have a game against the computer" in text_of(again)
    assert not any("Your first game" in text_of([v]) for v in again)


@pytest.mark.parametrize(
    ("variant", "rules"),
    [("tavla", "/rules"), ("turkish", "/rules turkish"), ("uzun", "/rules uzun")],
)
def test_the_end_of_a_first_game_points_to_its_own_rules(variant, rules) -> None:
    """After ``/learn turkish`` the closing note sent the player to ``/rules``: the cube
    game's rules, with backgammons worth 3, which Turkish tavla does not have."""
    from bot.service.lessons import _lines
    from core.dice import FixedDice
    from core.game import Game
    from core.learn import lesson as L
    from core.variants import variant_by_name

    game = Game.new(variant_by_name(variant), FixedDice([6, 5]))
    said = [translate(line, "en") for line in _lines(game, variant, 0, L.Moment(L.END), None, None)]
    (end,) = said
    assert end.endswith(f"and {rules} has the whole rule book.")
