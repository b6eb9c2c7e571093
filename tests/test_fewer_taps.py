"""Fewer taps through the service: rolls made for the player when rolling is the
only choice, whole plays and checker runs as buttons, picks that change only the keyboard,
``/settings`` with "roll by itself" and "confirm by itself".
"""

from __future__ import annotations

import pytest

from bot.service import actions as A
from bot.service.autoplay import confirms_by_itself
from bot.service.keypad import KeypadLimits
from bot.service.presenter import board_view
from bot.service.service import GameService
from bot.service.views import MessageRef, View
from bot.storage.base import GameStatus, PlayerPrefs
from core.dice import FixedDice
from core.game import Game, Phase
from core.match import Match
from core.variants import variant_by_name
from renderers.text import render_text
from tests.test_service import (
    ALI,
    GROUP,
    VELI,
    Place,
    awaiting_actor,
    board,
    find,
    service_at,
    start_game,
    text_of,
)

ALI_PRIVATE = Place("test", "100", private=True)
TAVLA = variant_by_name("tavla")
START = TAVLA.start_position()
#: What a scripted player presses first, when it is there.
PRESS_ORDER = (A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


@pytest.fixture
async def service_env(tmp_path):
    async with service_at(tmp_path / "taps.db") as pair:
        yield pair


def codes(view: View) -> set[str]:
    return {a.code for row in view.buttons for b in row if (a := A.decode(b.action))}


async def game_of(service: GameService, view: View):
    record = await service.storage.get_game(view.game_id)
    assert record is not None
    return record, Match.from_dict(record.match).game


async def press_once(service: GameService, current: View) -> View:
    """The awaiting player's usual press (Take, Confirm, a move, a pick, Roll)."""
    actor = await awaiting_actor(service, current.game_id)
    code = next(c for c in (find(current, k) for k in PRESS_ORDER) if c)
    views = await service.press(actor, GROUP, code)
    assert not any(v.notice for v in views), text_of(views)
    return board(views)


def turns_ended(record) -> tuple[int, int]:
    """How far a match has got: games finished, then turns ended in the current game."""
    match = Match.from_dict(record.match)
    ended = sum(e.get("type") in ("play", "pass") for e in match.game.history)
    return len(match.results), ended


async def press_through(service: GameService, views: list[View], *, turns: int) -> list[View]:
    """Play on with :func:`press_once` until ``turns`` turns have ended (whether by a
    Confirm press or by themselves); returns every board shown on the way."""
    shown = [board(views)]
    done = 0
    while done < turns:
        current = shown[-1]
        record, _ = await game_of(service, current)
        if record.status is not GameStatus.ACTIVE:
            break
        before = turns_ended(record)
        shown.append(await press_once(service, current))
        after = turns_ended((await game_of(service, shown[-1]))[0])
        done += after != before
    return shown


async def test_no_cube_no_roll_button_U1_T8(service_env):
    """Uzun Tavla and Turkish tavla have no cube: rolling is all a player can do, so the bot
    rolls; no board ever asks for a Roll press."""
    service, _ = service_env
    for cmd, args in (("uzun", "1"), ("tavla", "1 turkish")):
        views = await start_game(service, args, cmd=cmd)
        shown = await press_through(service, views, turns=12)
        assert all(A.ROLL not in codes(view) for view in shown)
        _, game = await game_of(service, shown[-1])
        assert game.phase is not Phase.ROLL or game.over


async def test_roll_button_only_while_doubling_is_possible_T8(service_env):
    """With a centred cube the player chooses Roll or Double; once the opponent owns the cube
    the player can only roll, and the bot does it."""
    service, _ = service_env
    views = await start_game(service, "5")
    current = board(views)
    while not find(current, A.DOUBLE):
        current = (await press_through(service, [current], turns=1))[-1]
    doubler = await awaiting_actor(service, current.game_id)
    views = await service.press(doubler, GROUP, find(current, A.DOUBLE))
    taker = await awaiting_actor(service, board(views).game_id)
    views = await service.press(taker, GROUP, find(board(views), A.TAKE))
    # The doubler rolls now (the cube is the taker's): the board already shows the dice.
    current = board(views)
    assert A.ROLL not in codes(current)
    for _ in range(40):
        record, game = await game_of(service, current)
        if record.status is not GameStatus.ACTIVE:
            break
        if A.ROLL in codes(current):  # asked only while doubling is a choice
            assert game.may_double(game.turn)
            assert game.cube_owner in (None, game.turn)
        else:
            assert game.phase is not Phase.ROLL
        current = (await press_through(service, [current], turns=1))[-1]


def picking(service: GameService) -> GameService:
    """Boards that always ask for a checker first (no whole plays or runs on the keyboard),
    as on a roll with too many moves to show."""
    service.settings.keypad["test"] = KeypadLimits(plays=0, moves=0)
    return service


async def board_with_a_pick(service: GameService, several: bool):
    """Press on until the board offers a checker with several moves (``several``) or with
    one; returns the board, its record and that checker's pick action."""
    current = board(await start_game(service, "1"))
    for _ in range(200):
        record, game = await game_of(service, current)
        assert record.status is GameStatus.ACTIVE
        turn = game.current_turn
        for row in current.buttons:
            for button in row:
                action = A.decode(button.action)
                if action.code == A.SELECT:
                    count = len(turn.checker_moves(int(action.arg)))
                    if (count > 1) == several:
                        return current, record, action
        current = await press_once(service, current)
    raise AssertionError("no such pick in 200 presses")


async def test_picking_a_checker_changes_only_the_keyboard(service_env):
    service = picking(service_env[0])
    current, record, pick = await board_with_a_pick(service, several=True)
    mover = await awaiting_actor(service, current.game_id)
    view = board(await service.press(mover, GROUP, A.encode(*pick)))
    # Several moves: the keyboard shows them, with Back; no picture is drawn or sent and
    # the game did not change.
    assert view.keyboard_only
    assert view.image is None
    assert A.BACK in codes(view)
    shown = [A.decode(b.action) for row in view.buttons for b in row]
    assert {int(a.arg.split("-")[0]) for a in shown if a.code == A.MOVE} == {int(pick.arg)}
    assert (await service.storage.get_game(current.game_id)).version == record.version
    back = board(await service.press(mover, GROUP, find(view, A.BACK)))
    assert back.keyboard_only
    assert A.SELECT in codes(back)


async def test_a_checker_with_one_move_moves_at_once(service_env):
    """After the first die of a roll is played, each checker has one move with the other:
    picking it moves it at once."""
    service = picking(service_env[0])
    current, record, pick = await board_with_a_pick(service, several=False)
    mover = await awaiting_actor(service, current.game_id)
    views = await service.press(mover, GROUP, A.encode(*pick))
    after, _ = await game_of(service, board(views))
    assert after.version == record.version + 1  # the checker moved with one press
    assert not board(views).keyboard_only


async def test_whole_plays_are_one_press_each(service_env):
    """When a roll can be played in only a few ways, each way is a button: one press plays
    the whole roll (the notation of the rule book)."""
    service, _ = service_env
    views = await start_game(service, "1")
    current = board(views)
    for _ in range(300):
        record, game = await game_of(service, current)
        if record.status is not GameStatus.ACTIVE:
            break
        turn = game.current_turn
        if game.phase is Phase.MOVE and not turn.done and len(turn.finals) <= 12:
            moves = [
                A.decode(b.action)
                for row in current.buttons
                for b in row
                if A.decode(b.action).code == A.MOVE
            ]
            assert len(moves) == len(turn.finals)
            mover = await awaiting_actor(service, current.game_id)
            views = await service.press(mover, GROUP, find(current, A.MOVE))
            _, after = await game_of(service, board(views))
            # The whole roll is played: it waits for Confirm, or (the opponent must press
            # Roll or Double next) it was handed over with an Undo kept.
            if after.current_turn is not None:
                assert after.current_turn.complete
                assert find(board(views), A.CONFIRM)
            else:
                assert after.turn != game.turn
                assert after.may_take_back(game.turn)
            assert find(board(views), A.UNDO)
            return
        current = (await press_through(service, [current], turns=1))[-1]
    raise AssertionError("no turn with few plays")


async def test_settings_in_private_roll_by_itself(service_env):
    service, _ = service_env
    views = await service.command(ALI, ALI_PRIVATE, "settings")
    (view,) = views
    assert find(view, A.SETTING)
    toggle = next(b.action for row in view.buttons for b in row if A.decode(b.action).arg == "r1")
    message = MessageRef(5, chat_id="100")
    views = await service.press(ALI, ALI_PRIVATE, toggle, message=message)
    edited = [v for v in views if not v.notice][-1]
    assert edited.edit
    assert edited.message == message  # the settings message itself is edited
    user = await service.storage.find_user("test", "100")
    assert user.prefs == PlayerPrefs(auto_roll=True)
    # In a group, settings are private: the player is told where to go.
    views = await service.command(ALI, GROUP, "settings")
    assert "private" in text_of(views).lower()


async def test_roll_by_itself_skips_the_roll_press_in_tavla(service_env):
    service, _ = service_env
    for actor in (ALI, VELI):
        user = await service.storage.get_or_create_user("test", actor.user_id, actor.name)
        await service.storage.set_user_prefs(user.id, PlayerPrefs(auto_roll=True))
    views = await start_game(service, "3")
    shown = await press_through(service, views, turns=10)
    assert all(A.ROLL not in codes(view) for view in shown)
    assert all(A.DOUBLE not in codes(view) for view in shown)


async def test_confirm_by_itself_and_take_back_until_the_opponent_rolls(service_env):
    service, _ = service_env
    user = await service.storage.get_or_create_user("test", ALI.user_id, ALI.name)
    await service.storage.set_user_prefs(user.id, PlayerPrefs(auto_confirm="always"))
    current = board(await start_game(service, "3"))  # Ali challenged: seat 0
    for _ in range(200):
        _, game = await game_of(service, current)
        if game.turn == 0 and game.phase is Phase.MOVE:
            break
        current = await press_once(service, current)
    # Ali enters a whole move; it is confirmed at once: the board waits for Veli's roll or
    # double, with an Undo for Ali and no Confirm.
    while game.turn == 0 and game.phase is Phase.MOVE:
        assert not find(current, A.CONFIRM)
        current = await press_once(service, current)
        _, game = await game_of(service, current)
    assert game.phase is Phase.ROLL
    assert game.turn == 1
    assert not find(current, A.CONFIRM)
    undo = find(current, A.UNDO)
    assert undo
    # Veli can't take Ali's move back.
    refused = await service.press(VELI, GROUP, undo)
    assert all(v.notice for v in refused)
    current = board(await service.press(ALI, GROUP, undo))
    _, game = await game_of(service, current)
    assert game.phase is Phase.MOVE
    assert game.turn == 0
    assert game.current_turn.done == []
    # Played again; once Veli rolls, the move stands: no Undo any more.
    while game.turn == 0:
        current = await press_once(service, current)
        _, game = await game_of(service, current)
    current = await press_once(service, current)  # Veli rolls
    assert not find(current, A.UNDO) or game.turn == 0


async def test_the_board_is_drawn_with_the_players_home_side_and_theme(service_env):
    """/settings: the board is drawn from the side of the player to act, in their style."""
    service, _ = service_env
    current = board(await start_game(service, "1"))
    actor = await awaiting_actor(service, current.game_id)
    before = board(await service.command(actor, GROUP, "board"))
    user = await service.storage.find_user("test", actor.user_id)
    await service.storage.set_user_prefs(user.id, PlayerPrefs(home="left", theme="dark"))
    after = board(await service.command(actor, GROUP, "board"))
    record, _ = await game_of(service, after)
    match = Match.from_dict(record.match)
    names = list(record.settings.names)
    mirrored = board_view(match, names, theme="dark", lang=after.lang, home="left")
    assert after.text_board == render_text(mirrored)
    assert after.text_board != before.text_board


async def always_confirm(service: GameService) -> None:
    """Both players choose to confirm every move themselves (/settings → never by itself)."""
    for actor in (ALI, VELI):
        user = await service.storage.get_or_create_user("test", actor.user_id, actor.name)
        await service.storage.set_user_prefs(user.id, PlayerPrefs(auto_confirm="never"))


async def board_waiting_for_confirm(service: GameService):
    """A Tavla board whose move waits for its Confirm (both players confirm every move
    themselves), and its game's record."""
    await always_confirm(service)
    current = board(await start_game(service, "1"))
    for _ in range(100):
        if find(current, A.CONFIRM):
            break
        current = await press_once(service, current)
    record, _ = await game_of(service, current)
    return current, record


async def test_a_confirm_that_moves_nothing_draws_no_picture(service_env):
    """a picture only when checkers move, dice are rolled or the cube turns. In
    Tavla with a cube to turn, Confirm only hands the turn over: text and buttons change."""
    service, _ = service_env
    service.settings.render_images = True
    current, record = await board_waiting_for_confirm(service)
    await service.board_shown(record.id, record.version)  # as an adapter confirms it
    confirmed = board(
        await service.press(
            await awaiting_actor(service, current.game_id), GROUP, find(current, A.CONFIRM)
        )
    )
    _, after = await game_of(service, confirmed)
    if after.phase is Phase.ROLL:  # the opponent chooses Roll or Double: nothing new to draw
        assert confirmed.caption_only
        assert confirmed.image is None
        assert find(confirmed, A.ROLL)
    else:  # the opponent's roll was made at once: new dice, a new picture
        assert not confirmed.caption_only
        assert confirmed.image is not None
    rolled = await press_once(service, confirmed)
    assert rolled.image is not None  # dice rolled: drawn


async def test_a_board_behind_its_game_gets_a_whole_picture_on_confirm(service_env):
    """When the chat's board lags the game (a turn played on the web page), a Confirm draws
    the whole picture: the board never keeps a picture older than the game."""
    service, _ = service_env
    service.settings.render_images = True
    current, record = await board_waiting_for_confirm(service)
    await service.board_shown(record.id, record.version - 1)  # the last move never showed
    actor = await awaiting_actor(service, current.game_id)
    confirmed = board(await service.press(actor, GROUP, find(current, A.CONFIRM)))
    assert not confirmed.caption_only
    assert confirmed.image is not None


def a_finished_move(name: str = "tavla", **kwargs) -> Game:
    """A game whose player on roll (seat 0) has just played the whole opening 3-1 (8/5 6/5),
    waiting for Confirm."""
    game = Game(variant_by_name(name), [START.mover, START.mover], phase=Phase.ROLL, **kwargs)
    game.roll(0, FixedDice([(3, 1)]))
    game.current_turn.apply_text("8/5 6/5")
    assert game.current_turn.complete
    return game


DEFAULTS = (PlayerPrefs(), PlayerPrefs())


def test_a_move_is_confirmed_by_itself_when_the_opponent_must_press_next():
    """The default ("if undoable"): the opponent may double (a centred cube, T-8), so the board
    waits for their Roll or Double anyway; the mover keeps an Undo until then."""
    assert confirms_by_itself(a_finished_move(), 0, DEFAULTS, humans=(0, 1))


@pytest.mark.parametrize(
    ("why", "game", "prefs", "humans"),
    [
        (
            "no cube in Uzun Tavla (U-1): the opponent's roll is made at once",
            a_finished_move("uzun"),
            DEFAULTS,
            (0, 1),
        ),
        ("no cube in Turkish tavla", a_finished_move("turkish"), DEFAULTS, (0, 1)),
        ("the computer answers at once", a_finished_move(), DEFAULTS, (0,)),
        (
            "the opponent rolls by itself",
            a_finished_move(),
            (PlayerPrefs(), PlayerPrefs(auto_roll=True)),
            (0, 1),
        ),
        (
            "the mover owns the cube (T-8): the opponent may not double",
            a_finished_move(cube_value=2, cube_owner=0),
            DEFAULTS,
            (0, 1),
        ),
        ("the Crawford game (M-2)", a_finished_move(crawford=True), DEFAULTS, (0, 1)),
        (
            "the mover asked to confirm every move",
            a_finished_move(),
            (PlayerPrefs(auto_confirm="never"), PlayerPrefs()),
            (0, 1),
        ),
    ],
)
def test_confirm_stays_where_the_move_could_not_be_taken_back(why, game, prefs, humans):
    assert not confirms_by_itself(game, 0, prefs, humans), why


def test_always_confirms_even_against_the_computer():
    always = (PlayerPrefs(auto_confirm="always"), PlayerPrefs())
    assert confirms_by_itself(a_finished_move("uzun"), 0, always, humans=(0,))
    unfinished = Game(TAVLA, [START.mover, START.mover], phase=Phase.ROLL)
    unfinished.roll(0, FixedDice([(3, 1)]))
    assert not confirms_by_itself(unfinished, 0, always, humans=(0,))  # nothing played yet


async def test_by_default_a_tavla_move_is_handed_over_with_an_undo(service_env):
    """Two people, a centred cube: no Confirm press; the opponent's Roll and Double come
    with the mover's Undo, which works until the opponent presses."""
    service, _ = service_env
    current = board(await start_game(service, "3"))
    for _ in range(200):
        _, game = await game_of(service, current)
        if game.phase is Phase.ROLL and game.may_take_back(1 - game.turn):
            break
        assert not find(current, A.CONFIRM) or not game.may_double(1 - game.turn)
        current = await press_once(service, current)
    else:
        raise AssertionError("no move was handed over by itself")
    mover = 1 - game.turn
    assert find(current, A.ROLL)
    assert find(current, A.DOUBLE)
    assert find(current, A.UNDO)
    actors = {0: ALI, 1: VELI}  # Ali challenged: seat 0
    back = board(await service.press(actors[mover], GROUP, find(current, A.UNDO)))
    _, game = await game_of(service, back)
    assert game.turn == mover
    assert game.phase is Phase.MOVE
    assert game.current_turn.done == []
