"""A move typed while a puzzle is open in a private chat answers the puzzle, as pressing that
play's button does (/puzzle, then "24/18 13/11"): it was answered "You have no game here".
A play that is not among the choices, or no move at all, spends no try and says how to
answer. A game going on in the same chat keeps its typed moves once it is the newer."""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.views import Place
from core.learn.puzzles import Puzzle
from core.movegen import legal_plays
from core.notation import format_play
from core.variants import variant_by_name
from tests.factory import a_step, find
from tests.test_service import ALI, board, service_at, text_of

HERE = Place("test", ALI.user_id, private=True)


@pytest.fixture
async def env(tmp_path):
    async with service_at(tmp_path / "t.db") as pair:
        yield pair


async def open_puzzle(service, kind: str = "tavla") -> tuple[int, Puzzle]:
    (view,) = await service.command(ALI, HERE, "puzzle", kind)
    pid = A.decode(view.buttons[0][0].action).game_id
    return pid, Puzzle.from_dict((await service.storage.puzzles.get(pid)).data)


async def attempts(service) -> int:
    user = await service.storage.find_user("test", ALI.user_id)
    return (await service.storage.puzzles.player(user.id)).attempts


def not_offered(puzzle: Puzzle) -> str:
    """A legal play of the puzzle's roll that is not one of its buttons."""
    variant = variant_by_name(puzzle.variant)
    shown = {c.text for c in puzzle.candidates}
    plays = legal_plays(variant, puzzle.before(), puzzle.dice, False)
    return next(format_play(p) for p in plays if format_play(p) not in shown)


@pytest.mark.parametrize("kind", ["tavla", "turkish", "uzun"])
async def test_a_typed_play_answers_the_open_puzzle(env, kind):
    service, _ = env
    _, puzzle = await open_puzzle(service, kind)
    answered = await service.text(ALI, HERE, puzzle.best.text.replace("/", "-"))
    said = text_of(answered)
    assert "no game here" not in said
    assert "✅ Right" in said, said
    assert find(answered[0], A.PUZZLE)  # 🧩 Next puzzle
    assert await attempts(service) == 1
    # Answered: the puzzle is closed, a second typed play is no try of it.
    again = text_of(await service.text(ALI, HERE, puzzle.best.text))
    assert "no game here" in again
    assert await attempts(service) == 1


async def test_a_wrong_typed_play_is_a_wrong_answer_and_move_takes_it_too(env):
    service, _ = env
    _, puzzle = await open_puzzle(service)
    wrong = next(c.text for i, c in enumerate(puzzle.candidates) if i != puzzle.answer)
    said = text_of(await service.command(ALI, HERE, "move", wrong))  # /move (Discord's way)
    assert "❌ Not this one" in said, said
    assert await attempts(service) == 1


async def test_a_play_not_offered_or_no_move_spends_no_try_and_says_how_to_answer(env):
    service, _ = env
    pid, puzzle = await open_puzzle(service)
    for text in (not_offered(puzzle), "hello", "24/23/22/21/20/19"):
        (view,) = await service.text(ALI, HERE, text)
        said = text_of([view])
        assert "no game here" not in said
        assert f"To answer puzzle {pid}, press one of its plays or type it" in said, said
        # The choices come again, as buttons of this puzzle.
        assert [b.label for row in view.buttons for b in row] == [c.text for c in puzzle.candidates]
        assert await attempts(service) == 0
    said = text_of(await service.text(ALI, HERE, not_offered(puzzle)))
    assert "is not one of this puzzle's choices" in said
    # Russian and Turkish players are told so in their language.
    for lang, words in (("ru", "Чтобы ответить на задачу"), ("tr", "bulmacayı cevaplamak")):
        assert words in text_of(await service.text(ALI, HERE, "hello"), lang)
    assert "✅ Right" in text_of(await service.text(ALI, HERE, puzzle.best.text))


async def test_the_game_here_takes_typed_moves_once_it_is_the_newer(env):
    """A game against the computer in the same private chat: a puzzle opened after its
    board takes the typed play; once answered, or once the game has moved on since the
    puzzle was shown, a typed move is the game's again."""
    service, clock = env
    game_id = board(await service.command(ALI, HERE, "bot", "")).game_id
    clock.now += 10
    _, puzzle = await open_puzzle(service)
    assert "✅ Right" in text_of(await service.text(ALI, HERE, puzzle.best.text))
    record = await service.storage.get_game(game_id)
    said = text_of(await service.text(ALI, HERE, "hello"))
    assert "To answer puzzle" not in said  # the game's answer to a move it cannot read
    assert "can't read that move" in said
    # A puzzle left open, then the game moves on (a checker moved by its button): the game's.
    await open_puzzle(service)
    clock.now += 10
    (shown,) = [v for v in await service.command(ALI, HERE, "board", "") if v.buttons]
    moved = await service.press(ALI, HERE, await a_step(service, ALI, HERE, shown))
    assert not moved[0].notice, text_of(moved)
    assert (await service.storage.get_game(game_id)).updated > record.updated
    said = text_of(await service.text(ALI, HERE, "hello"))
    assert "To answer puzzle" not in said
    assert "can't read that move" in said


async def test_an_unanswered_puzzle_closes_after_its_time(env):
    """A puzzle left unanswered takes typed plays for half an hour (OPEN_FOR); after that a
    typed play is what it is without a game (not a try at a puzzle long gone), and the
    deadline rounds forget the open puzzle."""
    from bot.storage.puzzles import OPEN_FOR

    service, clock = env
    shown = clock.now
    _, puzzle = await open_puzzle(service)
    clock.now += OPEN_FOR - 1
    assert "To answer puzzle" in text_of(await service.text(ALI, HERE, "hello"))
    clock.now += 1
    said = text_of(await service.text(ALI, HERE, puzzle.best.text))
    assert "no game here" in said, said
    assert await attempts(service) == 0
    for lang, words in (("ru", "нет партии"), ("tr", "oyunun yok")):
        assert words in text_of(await service.text(ALI, HERE, puzzle.best.text), lang)
    user = await service.storage.find_user("test", ALI.user_id)
    assert await service.storage.puzzles.opened(user.id, "test", ALI.user_id, shown) is not None
    await service.tick()
    assert await service.storage.puzzles.opened(user.id, "test", ALI.user_id, shown) is None


async def test_a_game_started_in_the_chat_closes_the_puzzle(env):
    """/puzzle, then a game against the computer started in the same chat and called off:
    a typed play is no longer the puzzle's answer (the game on the screen came after it)."""
    service, clock = env
    _, puzzle = await open_puzzle(service)
    clock.now += 10
    await service.command(ALI, HERE, "bot", "")
    said = text_of(await service.command(ALI, HERE, "abort", ""))
    assert "no game here" not in said, said
    said = text_of(await service.text(ALI, HERE, puzzle.best.text))
    assert "no game here" in said, said
    assert await attempts(service) == 0


async def test_another_puzzle_shown_closes_the_one_before(env):
    """A play typed after a second puzzle is shown answers the second: the first stays
    untried (its button still takes its one try)."""
    service, _ = env
    first, before = await open_puzzle(service, "tavla")
    second, after = await open_puzzle(service, "uzun")
    assert first != second
    said = text_of(await service.text(ALI, HERE, before.best.text))
    assert f"To answer puzzle {second}" in said, said
    assert await attempts(service) == 0
    assert "✅ Right" in text_of(await service.text(ALI, HERE, after.best.text))
    pressed = await service.press(ALI, HERE, A.encode(first, 0, A.PUZZLE, before.answer))
    assert "✅ Right" in text_of(pressed)
    assert await attempts(service) == 2
