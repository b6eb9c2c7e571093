# ruff: noqa: F811  (the fake and bot fixtures come from tests/test_discord.py)
"""Fewer taps end to end on Discord: the real discord.py client and the bot's
Discord adapter against the local fake.

A whole Uzun Tavla game where nobody presses Roll (there is no cube), picks that change only
the message's components (no new attachment), and the board's keyboard within Discord's
five rows of five.
"""

from __future__ import annotations

from bot.discord.buttons import PREFIX
from bot.service import actions as A
from bot.service.keypad import KeypadLimits
from bot.storage.base import GameStatus, PlayerPrefs
from core.game import Phase
from core.match import Match
from tests.test_discord import (  # noqa: F401  (fixtures)
    CHANNEL,
    GUILD,
    Bot,
    awaiting,
    board_message,
    bot,
    custom_ids,
    fake,
    find,
    game_record,
    open_game,
)

ORDER = (A.TAKE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


def update_data(exchange) -> dict:
    """The message data of the interaction's "update message" answer (callback type 7)."""
    (call,) = [c for c in exchange.calls if c.kind == "callback" and c.payload["type"] == 7]
    return call.payload.get("data") or {}


async def test_an_uzun_game_needs_no_roll_press_and_picks_change_only_the_buttons(fake, bot):
    ali = fake.user(11, "Ali", locale="tr")
    veli = fake.user(22, "Veli", locale="en-US")
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    await fake.slash(bot.client, ali, channel, "uzun", opponent=veli, points=1)
    challenge = next(m for m in fake.channel_messages(channel) if find(m, A.ACCEPT))
    await fake.press(bot.client, veli, challenge, find(challenge, A.ACCEPT))
    users = {"11": ali, "22": veli}
    # Checkers are picked first whenever a roll has more than a few plays (as when there are
    # too many moves to show), so picks happen in this game.
    bot.service.settings.keypad["discord"] = KeypadLimits(plays=12, moves=0)
    picks = 0
    for _ in range(3000):
        record = await game_record(bot)
        if record.status is not GameStatus.ACTIVE:
            break
        message = board_message(fake)
        assert find(message, A.ROLL) is None  # no cube: the bot rolls
        rows = message.get("components", [])
        assert len(rows) <= 5
        assert all(len(row["components"]) <= 5 for row in rows)
        code = next(c for c in ORDER if find(message, c))
        exchange = await fake.press(
            bot.client, await awaiting(bot, users), message, find(message, code)
        )
        assert exchange.acks == 1, exchange.kinds()
        assert exchange.ephemeral() == [], exchange.ephemeral()
        if code == A.SELECT and find(board_message(fake), A.BACK):
            picks += 1
            data = update_data(exchange)
            # Only the buttons changed: no new picture, no new text.
            assert "components" in data
            assert "attachments" not in data
            assert "content" not in data
    record = await game_record(bot)
    assert record.status is GameStatus.FINISHED
    assert custom_ids(board_message(fake))  # the finished board offers a rematch
    assert picks > 0


async def test_settings_in_a_direct_message_are_edited_in_place(fake, tmp_path):
    bot = await Bot(fake, tmp_path / "dm.db", seed=2).start(guild_id=None)
    ali = fake.user(11, "Ali", locale="en-US")
    # In a server, settings are private: a private pointer, nothing public.
    channel = fake.channel(CHANNEL, GUILD, "kahvehane")
    exchange = await fake.slash(bot.client, ali, channel, "settings")
    assert exchange.ephemeral()
    assert not [m for m in fake.channel_messages(channel) if custom_ids(m)]
    dm = fake.channel(9001, None)
    await fake.slash(bot.client, ali, dm, "settings")
    (shown,) = [m for m in fake.channel_messages(dm) if custom_ids(m)]
    toggle = next(c for c in custom_ids(shown) if A.decode(c.removeprefix(PREFIX)).arg == "cnever")
    exchange = await fake.press(bot.client, ali, shown, toggle)
    assert exchange.callback_types() == [7]  # the settings message itself is updated
    edited = fake.messages[int(shown["id"])]
    chosen = next(
        b for row in edited["components"] for b in row["components"] if "cnever" in b["custom_id"]
    )
    assert chosen["label"].startswith("•")  # the choice is marked
    assert len([m for m in fake.channel_messages(dm) if custom_ids(m)]) == 1
    user = await bot.storage.find_user("discord", "11")
    assert user.prefs.auto_confirm == "never"
    await bot.stop()


async def test_a_confirm_keeps_the_picture_on_discord(fake, bot):
    """Tavla with a cube to turn: Confirm only hands the turn over, so the board's text and
    buttons change and its picture stays (no new attachment)."""
    ali, veli, _channel = await open_game(fake, bot)
    users = {"11": ali, "22": veli}
    for uid in users:  # both ask to confirm every move themselves (/settings)
        user = await bot.storage.find_user("discord", uid)
        await bot.storage.set_user_prefs(user.id, PlayerPrefs(auto_confirm="never"))
    for _ in range(200):
        message = board_message(fake)
        if find(message, A.CONFIRM):
            break
        code = next(c for c in ORDER if find(message, c))
        await fake.press(bot.client, await awaiting(bot, users), message, find(message, code))
    exchange = await fake.press(
        bot.client, await awaiting(bot, users), message, find(message, A.CONFIRM)
    )
    data = update_data(exchange)
    assert "attachments" not in data
    assert "content" in data
    assert find(board_message(fake), A.ROLL)
    assert board_message(fake)["attachments"]  # the picture is still there


async def test_a_move_is_handed_over_with_an_undo_until_the_opponent_presses(fake, bot):
    """The default "confirm by itself if undoable": with a centred cube the opponent must
    press Roll or Double anyway, so the mover presses no Confirm; their "↩ Undo my move" works
    until the opponent presses."""
    ali, veli, _channel = await open_game(fake, bot, points=3)
    users = {"11": ali, "22": veli}
    for _ in range(300):
        record = await game_record(bot)
        game = Match.from_dict(record.match).game
        if game.phase is Phase.ROLL and game.may_take_back(1 - game.turn):
            break
        message = board_message(fake)
        if game.may_double(1 - game.turn) and game.phase is Phase.MOVE:
            assert find(message, A.CONFIRM) is None  # never asked to confirm
        code = next(c for c in ORDER if find(message, c))
        await fake.press(bot.client, await awaiting(bot, users), message, find(message, code))
    else:
        raise AssertionError("no move was handed over by itself")
    message = board_message(fake)
    assert find(message, A.ROLL)
    assert find(message, A.DOUBLE)
    mover_id = record.seats[1 - game.turn]
    mover_user = await bot.storage.get_user(mover_id)
    mover = users[mover_user.platform_id]
    await fake.press(bot.client, mover, message, find(message, A.UNDO))
    record = await game_record(bot)
    game = Match.from_dict(record.match).game
    assert game.phase is Phase.MOVE
    assert record.seats[game.turn] == mover_id
    assert find(board_message(fake), A.ROLL) is None  # the mover plays the roll again
