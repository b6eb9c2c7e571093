"""The console adapter: whole games in a terminal, through the same game service."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from bot.console import PLACE, PLAYERS, ConsoleAdapter
from bot.i18n import translate, translate_lines
from bot.service import actions as A
from bot.service.service import GameService
from bot.service.views import Actor, Place
from bot.storage.base import GameStatus
from bot.storage.sqlite import SqliteStorage
from tests.drivers import press_order
from tests.factory import Clock, find, make_service, resign

PREFERENCE = press_order()


def pick(console: ConsoleAdapter) -> str:
    """The number of the button a player would press."""
    codes = [A.decode(b.action) for b in console.buttons]
    for wanted in PREFERENCE:
        for i, action in enumerate(codes, 1):
            if action and action.code == wanted:
                return str(i)
    raise AssertionError([translate(b.label, "en") for b in console.buttons])


async def play_to_the_end(console: ConsoleAdapter, service: GameService) -> None:
    for _ in range(3000):
        record = await service.storage.get_game(console.game_id)
        if record.status is not GameStatus.ACTIVE:
            return
        await console.handle(pick(console))
    raise AssertionError("the game did not end")


async def make(tmp_path: Path, images: bool = False, clock: Clock | None = None):
    storage = SqliteStorage(str(tmp_path / "console.db"))
    await storage.open()
    service = make_service(
        storage, burst_actions=10**6, render_images=images, **({"clock": clock} if clock else {})
    )
    out = io.StringIO()
    console = ConsoleAdapter(service, board_dir=tmp_path / "boards", out=out)
    return storage, service, console, out


async def test_a_whole_game_against_the_computer(tmp_path):
    storage, service, console, out = await make(tmp_path, images=True)
    await console.handle("/bot")
    assert console.game_id is not None
    await play_to_the_end(console, service)
    text = out.getvalue()
    assert "pips" in text  # the text board
    assert "wins" in text
    assert (tmp_path / "boards" / f"game-{console.game_id}.png").read_bytes()[:4] == b"\x89PNG"
    await storage.close()


async def test_printed_boards_are_not_redrawn_over_the_current_game(tmp_path):
    """The console confirms every board it prints, so the service's repair of boards never
    shown does not print an old game's board later and take over the numbered buttons."""
    clock = Clock()
    storage, service, console, out = await make(tmp_path, clock=clock)
    try:
        await console.handle("/bot")
        await play_to_the_end(console, service)
        finished = console.game_id
        await console.handle("/bot uzun")
        current, buttons = console.game_id, list(console.buttons)
        assert current != finished
        for game_id in (finished, current):
            record = await storage.get_game(game_id)
            assert record.shown_version == record.version
        clock.now += 10 * 60  # long past the repair delay
        printed = len(out.getvalue())
        await console.deadlines.round()
        assert out.getvalue()[printed:] == ""
        assert (console.game_id, console.buttons) == (current, buttons)
    finally:
        await storage.close()


async def test_a_finished_game_is_analysed_off_the_line(tmp_path):
    """/analyse answers at once ("working…"); the card and the two documents follow."""
    storage, service, console, out = await make(tmp_path)
    await console.handle("/bot uzun")
    await play_to_the_end(console, service)
    game_id = console.game_id
    await console.handle("/analyse")
    assert f"Analysing game {game_id}" in out.getvalue()
    await service.settle()
    text = out.getvalue()
    assert f"The analysis of game {game_id} is ready." in text
    boards = tmp_path / "boards"
    assert (boards / f"analysis-{game_id}.png").read_bytes()[:4] == b"\x89PNG"
    assert (boards / f"analysis-{game_id}.txt").read_text().count("\n") > 3
    analysed = (boards / f"uzun-tavla-{game_id}-analysed.txt").read_text()
    assert analysed.startswith('; [Variant "Uzun Tavla (long nardy)"]')
    await storage.close()


async def test_hot_seat_uzun_and_typed_moves(tmp_path):
    storage, service, console, out = await make(tmp_path)
    await console.handle("/uzun")
    record = await service.storage.get_game(console.game_id)
    assert record.status is GameStatus.ACTIVE  # the second local player accepted
    await console.handle("13/8 6/5 nonsense")  # refused politely, nothing breaks
    assert "Something went wrong" not in out.getvalue()
    await play_to_the_end(console, service)
    record = await service.storage.get_game(console.game_id)
    assert record.status is GameStatus.FINISHED
    await console.handle("/export")
    assert list((tmp_path / "boards").glob(f"uzun-tavla-{console.game_id}.txt"))
    await storage.close()


def test_python_m_bot_starts_the_console_without_tokens(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("TELEGRAM_TOKEN", "DISCORD_TOKEN")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'm.db'}"
    env["BOARD_DIR"] = str(tmp_path / "boards")
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        input="/help\n/bot\n1\n/quit\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "console" in result.stdout
    assert "/tavla" in result.stdout
    assert "Traceback" not in result.stderr


async def test_a_disk_that_cannot_take_pictures_does_not_stop_the_game(tmp_path):
    """Fault: the picture folder can't be written (a file stands in its way); play goes on."""
    storage, service, console, out = await make(tmp_path, images=True)
    blocker = tmp_path / "blocked"
    blocker.write_text("not a folder")
    console.board_dir = blocker / "boards"
    await console.handle("/bot")
    await play_to_the_end(console, service)
    assert "could not save the picture" in out.getvalue()
    record = await service.storage.get_game(console.game_id)
    assert record.status is GameStatus.FINISHED
    await storage.close()


async def test_piped_input_is_not_refused_as_a_flood(tmp_path):
    """A script piping a whole game into the console (far faster than 16 actions in 8 s)
    is served; the same pace from a chat user is still refused."""
    storage = SqliteStorage(str(tmp_path / "pipe.db"))
    await storage.open()
    service = make_service(storage, render_images=False)  # the default flood guard
    out = io.StringIO()
    console = ConsoleAdapter(service, board_dir=tmp_path / "boards", out=out)
    await console.handle("/bot")
    for _ in range(40):
        record = await service.storage.get_game(console.game_id)
        if record.status is not GameStatus.ACTIVE:
            break
        await console.handle(pick(console))
    for _ in range(20):
        await console.handle("/help")
    assert "Not so fast" not in out.getvalue()
    chat_user = Actor("telegram", "77", "Ayşe")
    place = Place("telegram", "77", private=True, title="Ayşe")
    answers = [await service.command(chat_user, place, "help", "") for _ in range(20)]
    assert any("Not so fast" in translate_lines(v.lines, "en") for a in answers for v in a)
    await storage.close()


async def test_hot_seat_resignations_are_answered_from_the_one_keyboard(tmp_path):
    """Hot-seat is one person on both sides: a resignation offered on one side's turn is
    declined or accepted for the other side from the same keyboard (the offerer loses), the
    caption says who resigned what, and nothing is rated."""
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/tavla")
        await console.handle("/resign")
        assert "Ali: resign a single game?" in out.getvalue()
        await console.handle("1")  # Yes, resign
        await console.handle("2")  # Play on, for Veli
        assert "Veli declined the resignation: play goes on." in out.getvalue()
        await console.handle("/resign gammon")
        await console.handle("1")  # Yes, resign
        await console.handle("1")  # Accept, for Veli
        text = out.getvalue()
        assert "It is not your turn" not in text
        assert "Ali resigned a gammon (mars): Veli wins 2 points." in text
        record = await storage.get_game(console.game_id)
        assert record.status is GameStatus.FINISHED
        assert not record.rated
        await console.handle("/stats")
        assert "Rating 1500 (experience 0)" in out.getvalue()
    finally:
        await storage.close()


async def test_a_finished_games_result_is_printed_once_under_its_board(tmp_path):
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/bot random")
        await console.handle("/resign")
        await console.handle("1")  # Yes, resign
        result = "Ali resigned a single game: Tavla Bot (random) wins 1 point."
        assert out.getvalue().count(result) == 1, out.getvalue()
        assert (await storage.get_game(console.game_id)).status is GameStatus.FINISHED
    finally:
        await storage.close()


async def test_hot_seat_abort_is_confirmed_from_the_keyboard_and_abandons_the_game(tmp_path):
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/uzun")
        await console.handle("/abort")
        assert "Abandon this game? It ends here, unrated." in out.getvalue()
        assert "[1] Yes, abandon  [2] No, play on" in out.getvalue()
        assert (await storage.get_game(console.game_id)).status is GameStatus.ACTIVE
        await console.handle("1")
        assert "The game was abandoned. It is not rated." in out.getvalue()
        assert "agreement" not in out.getvalue()
        assert (await storage.get_game(console.game_id)).status is GameStatus.ABORTED
    finally:
        await storage.close()


async def two_player_hot_seat(service: GameService) -> int:
    """A hot-seat game as earlier versions started it: Ali's challenge accepted by Veli."""
    views = await service.command(PLAYERS[0], PLACE, "tavla", "")
    await service.press(PLAYERS[1], PLACE, find(views[-1], A.ACCEPT))
    return views[-1].game_id


async def test_an_old_two_player_hot_seat_game_is_not_stuck_after_a_restart(tmp_path):
    """Earlier versions seated two local players (Ali and Veli): a resignation left waiting
    for an answer is answered after a restart, and nothing played there is rated."""

    storage, service, console, out = await make(tmp_path)
    game_id = await two_player_hot_seat(service)
    first = await service.player_to_act(game_id)
    await resign(service, PLAYERS[int(first) - 1], PLACE)
    await storage.close()

    storage, service, console, out = await make(tmp_path)
    try:
        await console.handle("/board")
        await console.handle("1")  # Accept, for the other local player
        record = await storage.get_game(game_id)
        assert record.status is GameStatus.FINISHED, out.getvalue()
        assert not record.rated
        loser = PLAYERS[int(first) - 1].name
        assert f"{loser} resigned a single game" in out.getvalue()
    finally:
        await storage.close()


async def test_an_old_two_player_hot_seat_game_can_be_aborted(tmp_path):
    storage, service, console, _ = await make(tmp_path)
    try:
        await two_player_hot_seat(service)
        await console.handle("/board")
        await console.handle("/abort")
        assert (await storage.get_game(console.game_id)).status is GameStatus.ABORTED
    finally:
        await storage.close()


async def test_a_word_a_command_does_not_take_is_refused_with_its_usage(tmp_path):
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/bot godlike")
        assert "I didn't understand “godlike”. /bot [uzun|turkish] [points]" in out.getvalue()
        assert console.game_id is None  # no game was started
        await console.handle("/tavla 3 uzun")
        assert "I didn't understand “uzun”. /tavla [@name] [points]" in out.getvalue()
        assert console.game_id is None
        assert await storage.games_in_chat("console", "local", tuple(GameStatus)) == []
    finally:
        await storage.close()


async def test_a_number_after_messages_without_buttons_says_whose_buttons_it_presses(tmp_path):
    """After a finished game, /dice, /export, /board and /resign, typing 1 pressed the old
    Rematch and started a game: now it first lists the buttons and says whose they are."""
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/bot")
        await console.handle("/resign")
        await console.handle("1")  # Yes, resign: the computer accepts, the game is over
        finished = console.game_id
        assert (await storage.get_game(finished)).status is GameStatus.FINISHED
        for line in ("/dice", "/export", "/board", "/resign"):
            await console.handle(line)
        printed = len(out.getvalue())
        await console.handle("1")
        said = out.getvalue()[printed:]
        assert f"The numbers are the buttons of the board of game {finished} above:" in said
        assert "[1] Rematch  [2] 🔍 Analyse" in said
        statuses = tuple(GameStatus)
        assert len(await storage.games_in_chat("console", "local", statuses)) == 1
        await console.handle("1")  # now it presses Rematch
        assert len(await storage.games_in_chat("console", "local", statuses)) == 2
        assert console.game_id != finished
        # The newest message has the buttons: a number presses at once.
        await console.handle(pick(console))
        assert "The numbers are the buttons" not in out.getvalue()[printed + len(said) :]
    finally:
        await storage.close()


async def test_the_consoles_own_words_follow_lang(tmp_path):
    """After /lang tr (or ru) the console's own prompts are in that language too, not only
    the service's answers: a wrong number, whose buttons a number
    presses, where a picture went, and the greeting of the next start."""
    for lang, wrong, whose, again, saved, hello in (
        (
            "tr",
            "1 ile {n} arasında seç.",
            "Numaralar yukarıdaki {id} numaralı oyunun tahtasının düğmeleri:",
            "Basmak için numarayı yeniden yaz.",
            "(resim: ",
            "Tavla — konsol.",
        ),
        (
            "ru",
            "Выберите от 1 до {n}.",
            "Номера — это кнопки доски партии {id} выше:",
            "Наберите номер ещё раз, чтобы нажать кнопку.",
            "(картинка: ",
            "Tavla — консоль.",
        ),
    ):
        storage, _, console, out = await make(tmp_path / lang, images=True)
        try:
            await console.handle(f"/lang {lang}")
            await console.handle("/bot")
            game = console.game_id
            await console.handle("99")
            assert out.getvalue().rstrip().endswith(wrong.format(n=len(console.buttons)))
            await console.handle("/dice")
            await console.handle("1")
            assert whose.format(id=game) in out.getvalue()
            assert again in out.getvalue()
            assert saved in out.getvalue()
            for english in ("Choose 1", "The numbers are", "Type the number", "(picture:"):
                assert english not in out.getvalue()
            await console.run(lambda: "/quit\n")
            assert hello in out.getvalue()
        finally:
            await storage.close()


async def test_commands_act_on_the_game_on_screen_not_an_older_one(tmp_path):
    """One keyboard may hold several games; a command acts on the one whose board it just
    printed. /resign after /bot asked to resign the hot-seat game started before, and /abort
    abandoned it."""
    storage, _, console, _ = await make(tmp_path)
    try:
        await console.handle("/tavla")
        hot_seat = console.game_id
        await console.handle("/bot")
        against_computer = console.game_id
        assert against_computer != hot_seat
        for command in ("/resign", "/board"):
            await console.handle(command)
            assert console.game_id == against_computer, command
        await console.handle("/abort")  # at once against the computer
        assert (await storage.get_game(against_computer)).status is GameStatus.ABORTED
        assert (await storage.get_game(hot_seat)).status is GameStatus.ACTIVE
        # With the game on screen over, a command finds the game still going.
        await console.handle("/board")
        assert console.game_id == hot_seat
    finally:
        await storage.close()


async def test_analyse_with_a_new_game_on_screen_analyses_the_last_finished_one(tmp_path):
    """/analyse takes the last finished game; the game on screen is one going on (a
    rematch), which cannot be analysed yet and must not stand in its way."""
    storage, service, console, out = await make(tmp_path)
    try:
        await console.handle("/bot")
        await play_to_the_end(console, service)
        finished = console.game_id
        await console.handle("/bot")
        assert console.game_id != finished
        await console.handle("/analyse")
        assert f"Analysing game {finished}" in out.getvalue()
        assert "not finished yet" not in out.getvalue()
        await service.settle()
    finally:
        await storage.close()


async def test_a_puzzle_shows_its_board_as_text_and_takes_a_typed_play(tmp_path):
    """The console shows no pictures: a puzzle came as "(picture: …png)" and its choices,
    with no board to solve it from. Its board is printed as text, the side to play named
    once, and the play typed with dashes answers it."""
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/puzzle")
        text = out.getvalue()
        assert "pips" in text  # the text board
        assert "O  White  <- to move" in text, text
        assert "White (white)" not in text
        pid = A.decode(console.buttons[0].action).game_id
        data = (await storage.puzzles.get(pid)).data
        best = data["candidates"][data["answer"]]["text"]
        await console.handle(best.replace("/", "-"))
        assert "✅ Right" in out.getvalue()
    finally:
        await storage.close()


async def test_a_puzzle_after_a_game_ended_takes_a_typed_play(tmp_path):
    """A play typed after a game ended on screen (/bot, /abort, then /puzzle) answers the
    puzzle: it was taken as a move in the ended game ("You have no game here")."""
    storage, _, console, out = await make(tmp_path)
    try:
        await console.handle("/bot")
        await console.handle("/abort")
        await console.handle("/puzzle")
        pid = A.decode(console.buttons[0].action).game_id
        data = (await storage.puzzles.get(pid)).data
        best = data["candidates"][data["answer"]]["text"]
        await console.handle(best)
        assert "✅ Right" in out.getvalue()
        assert "You have no game here" not in out.getvalue()
    finally:
        await storage.close()
