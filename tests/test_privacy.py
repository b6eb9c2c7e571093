"""``/privacy`` and ``/forget`` (docs/operating.md, "Privacy"), on SQLite and PostgreSQL: a
player's data is deleted after a confirmation; games others played with them keep the moves
under an anonymous name, and the others' ratings and statistics do not change."""

from __future__ import annotations

import pytest
from telegram import Bot as PtbBot
from telegram.error import BadRequest

from bot.i18n import translate, translate_lines
from bot.service import actions as A
from bot.service.privacy import CONFIRM_WITHIN, FORGOTTEN_NAME, PRIVACY_LINES
from bot.service.service import Actor, Place
from bot.storage.base import GameStatus
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from core.match import Match
from tests.factory import Clock, actions_of, make_service
from tests.fakes.telegram import FakeRequest, FakeTelegram

ALI = Actor("telegram", "11", "Ali", "ali", "tr")
VELI = Actor("telegram", "22", "Veli", "veli", "en")
CAN = Actor("telegram", "33", "Can", "can", "ru")
GROUP = Place("telegram", "-100", title="Kahve")
PREFERENCE = (A.TAKE, A.RESIGN_DECLINE, A.CONFIRM, A.MOVE, A.SELECT, A.ROLL)


def private(actor: Actor) -> Place:
    return Place("telegram", actor.user_id, private=True)


@pytest.fixture(params=["sqlite", "postgres"])
async def env(request: pytest.FixtureRequest, tmp_path):
    if request.param == "sqlite":
        storage = SqliteStorage(str(tmp_path / "p.db"))
    else:
        dsn, schema = request.getfixturevalue("postgres_schema")
        storage = PostgresStorage(dsn, server_settings={"search_path": schema})
    await storage.open()
    clock = Clock()
    service = make_service(storage, clock=clock, render_images=False, burst_actions=10**6)
    yield service, clock
    await storage.close()


async def play_out(service, a: Actor, b: Actor, place: Place = GROUP) -> int:
    """A 1-point game of ``a`` against ``b``, challenged, accepted and played to its end."""
    views = await service.command(a, place, "tavla", "")
    await service.press(b, place, actions_of(views)[A.ACCEPT])
    storage = service.storage
    players = {a.user_id: a, b.user_id: b}
    game_id = None
    for _ in range(5000):
        games = await storage.games_in_chat(place.platform, place.chat_id, (GameStatus.ACTIVE,))
        if not games:
            break
        record = games[0]
        game_id = record.id
        user = await storage.get_user(record.seats[Match.from_dict(record.match).game.awaiting])
        actor = players[user.platform_id]
        codes = actions_of(await service.command(actor, place, "board", ""))
        data = next(codes[c] for c in PREFERENCE if c in codes)
        views = await service.press(actor, place, data)
        assert not any(v.notice for v in views)
    assert game_id is not None
    return game_id


async def confirmation(service, actor: Actor) -> dict[str, str]:
    (view,) = await service.command(actor, private(actor), "forget", "")
    assert not view.notice
    return {b.action.rsplit(":", 1)[1]: b.action for row in view.buttons for b in row}


async def test_forget_keeps_the_others_games_ratings_and_statistics(env):
    service, _clock = env
    storage = service.storage
    first = await play_out(service, ALI, VELI)
    second = await play_out(service, VELI, ALI)
    # A challenge Ali left open to anyone: withdrawn when Ali is forgotten.
    await service.command(ALI, GROUP, "uzun", "")
    ali = await storage.find_user("telegram", "ali")
    veli = await storage.find_user("telegram", "veli")
    veli_results = await storage.results_of_user(veli.id)
    veli_rating = await service.info.rating(veli.id, "tavla")
    veli_history = await storage.rating_history(veli.id, "global", "tavla")
    events = {g: await storage.events(g) for g in (first, second)}
    assert len(veli_results) == 2
    assert (await service.info.rating(ali.id, "tavla"))[1] == 2

    # In a group, /forget points to the private chat; in private it asks first.
    (refused,) = await service.command(ALI, GROUP, "forget", "")
    assert refused.notice
    assert "private" in translate_lines(refused.lines, "en")
    buttons = await confirmation(service, ALI)
    assert set(buttons) == {"yes", "no"}
    (kept,) = await service.press(ALI, private(ALI), buttons["no"])
    assert translate_lines(kept.lines, "en") == "Nothing was deleted."
    assert (await storage.get_user(ali.id)).name == "Ali"
    (stranger,) = await service.press(VELI, private(VELI), buttons["yes"])
    assert stranger.notice
    assert (await storage.get_user(ali.id)).name == "Ali"

    (done,) = await service.press(ALI, private(ALI), buttons["yes"])
    assert not done.notice
    assert done.lang == "tr"
    assert translate_lines(done.lines, "en").startswith("Done: I have forgotten you.")

    gone = await storage.get_user(ali.id)
    assert (gone.name, gone.lang, gone.platform_lang) == (FORGOTTEN_NAME, None, None)
    assert gone.platform_id == f"forgotten:{ali.id}"
    assert await storage.find_user("telegram", "ali") is None
    assert await storage.find_user("telegram", "11") is None
    assert await storage.rating_history(ali.id, "global", "tavla") == []
    assert ali.id not in {u.id for u, _ in await storage.top("global", "tavla")}
    assert (await service.info.rating(ali.id, "tavla"))[1] == 0
    # The others: their games, moves, results and ratings as they were.
    for game_id in (first, second):
        record = await storage.get_game(game_id)
        assert record.status is GameStatus.FINISHED
        names = list(record.settings.names)
        assert "Ali" not in names
        assert FORGOTTEN_NAME in names
        assert "Veli" in names
        assert await storage.events(game_id) == events[game_id]
    assert await storage.results_of_user(veli.id) == veli_results
    assert await service.info.rating(veli.id, "tavla") == veli_rating
    assert await storage.rating_history(veli.id, "global", "tavla") == veli_history
    assert veli.id in {u.id for u, _ in await storage.top("global", "tavla")}
    assert not await storage.games_in_chat("telegram", GROUP.chat_id, (GameStatus.CHALLENGE,))

    # Writing again starts afresh, as a new player.
    (_view,) = await service.command(ALI, private(ALI), "stats", "")
    again = await storage.find_user("telegram", "ali")
    assert again.id != ali.id
    assert (await service.info.rating(again.id, "tavla"))[1] == 0


async def test_forget_waits_for_a_game_under_way(env):
    service, _clock = env
    views = await service.command(ALI, GROUP, "tavla", "")
    await service.press(VELI, GROUP, actions_of(views)[A.ACCEPT])
    buttons = await confirmation(service, ALI)
    (refused,) = await service.press(ALI, private(ALI), buttons["yes"])
    assert refused.notice
    assert "/resign" in translate_lines(refused.lines, "en")
    assert (await service.storage.find_user("telegram", "ali")).name == "Ali"


async def test_an_old_confirmation_is_refused(env):
    service, clock = env
    buttons = await confirmation(service, ALI)
    clock.now += CONFIRM_WITHIN + 1
    (refused,) = await service.press(ALI, private(ALI), buttons["yes"])
    assert refused.notice
    assert "/forget" in translate_lines(refused.lines, "en")
    assert (await service.storage.find_user("telegram", "ali")).name == "Ali"


async def test_privacy_says_what_is_kept_in_each_language(env):
    service, _ = env
    for actor, lang in ((ALI, "tr"), (VELI, "en"), (CAN, "ru")):
        (view,) = await service.command(actor, private(actor), "privacy", "")
        assert view.lang == lang
        assert list(view.lines) == list(PRIVACY_LINES)
    english = translate_lines(list(PRIVACY_LINES), "en")
    assert "/forget" in english
    assert "How long" in english
    for lang in ("tr", "ru"):
        assert translate_lines(list(PRIVACY_LINES), lang) != english


async def test_the_fake_bot_api_checks_the_descriptions_strictly():
    fake = FakeTelegram()
    request = FakeRequest(fake)
    bot = PtbBot("123:ABC", request=request, get_updates_request=FakeRequest(fake))
    async with bot:
        assert await bot.set_my_description("Tavla", language_code="tr")
        assert await bot.set_my_short_description("Tavla!")
        assert (await bot.get_my_description(language_code="tr")).description == "Tavla"
        assert (await bot.get_my_short_description("ru")).short_description == "Tavla!"
        with pytest.raises(BadRequest):
            await bot.set_my_description("x" * 513)
        with pytest.raises(BadRequest):
            await bot.set_my_short_description("x" * 121)
        with pytest.raises(BadRequest):
            await bot.set_my_description("Tavla", language_code="turkish")


async def test_telegram_sets_its_descriptions_in_three_languages(tmp_path):
    from bot.i18n import translate
    from bot.service.privacy import DESCRIPTION, SHORT_DESCRIPTION
    from tests.fakes.telegram import FakeBotAPI
    from tests.test_telegram import Bot

    async with FakeBotAPI(flood=None) as fake:
        bot = Bot(fake, tmp_path / "t.db", seed=1)
        await bot.start()
        await bot.stop()
    for field, text in (("description", DESCRIPTION), ("short_description", SHORT_DESCRIPTION)):
        shown = {lang: fake.profile_texts[(field, code)] for lang, code in CODES}
        assert shown == {lang: translate(text, lang) for lang, _ in CODES}
        assert len(set(shown.values())) == 3


CODES = (("en", ""), ("tr", "tr"), ("ru", "ru"))


async def test_forget_through_telegram_replaces_the_question_with_the_answer(tmp_path):
    from tests.fakes.telegram import FakeBotAPI
    from tests.test_telegram import Bot

    async with FakeBotAPI(flood=None) as fake:
        bot = Bot(fake, tmp_path / "t.db", seed=1)
        await bot.start()
        try:
            ali = fake.user(11, "Ali", username="ali", language_code="en")
            chat = fake.private_chat(ali)
            await fake.send_text(ali, chat, "/forget")
            question = await fake.wait_for(lambda: fake.messages(chat) or None, 10)
            (yes,) = [
                b["callback_data"]
                for row in question[-1]["reply_markup"]["inline_keyboard"]
                for b in row
                if b["callback_data"].endswith(":yes")
            ]
            query = await fake.press(ali, chat, question[-1]["message_id"], yes)
            await fake.wait_for(lambda: query in fake.callback_answers, 10)
            answered = await fake.wait_for(
                lambda: (
                    (m := fake.message(chat, question[-1]["message_id"]))
                    and m["text"].startswith("Done")
                    and m
                ),
                10,
            )
            assert "reply_markup" not in answered
            assert len(fake.messages(chat)) == 1
            assert await bot.storage.find_user("telegram", "ali") is None
        finally:
            await bot.stop()


async def test_privacy_tells_of_the_puzzle_tries_and_open_puzzles(env):
    """/privacy says what the puzzles keep (each try, and the puzzle open in a chat for typed
    plays), why and for how long, in each language."""
    from bot.storage.puzzles import OPEN_FOR

    service, _ = env
    (view,) = await service.command(VELI, private(VELI), "privacy", "")
    minutes = f"{round(OPEN_FOR / 60)}"
    for lang, tries, opened in (
        ("en", "Your puzzle tries", f"{minutes} minutes at most"),
        ("tr", "Bulmaca denemelerin", f"en çok {minutes} dakika"),
        ("ru", "Ваши попытки решить задачи", f"не дольше {minutes} минут"),
    ):
        said = translate_lines(view.lines, lang)
        assert tries in said, said
        assert opened in said, said
    english = translate_lines(view.lines, "en")
    assert "the play you chose, whether it was right, and when" in english
    assert "so that a play you type there answers it" in english
    assert "/forget deletes what identifies you, your ratings, your puzzle tries" in english


@pytest.mark.parametrize(
    ("n", "en", "ru"),
    [
        (1, "1 minute at most", "не дольше 1 минуты."),
        (21, "21 minutes at most", "не дольше 21 минуты."),
        (3, "3 minutes at most", "не дольше 3 минут."),
        (30, "30 minutes at most", "не дольше 30 минут."),
    ],
)
def test_the_open_puzzles_time_takes_each_languages_plural(n, en, ru):
    """The open puzzle's longest life is said with the number's plural form in each
    language, whatever the number is set to (Russian: 1 and 21 минуты, 3 and 30 минут)."""
    line = next(text for text in PRIVACY_LINES if text.plural and "puzzle" in text.msgid)
    told = line.with_args({"n": n})
    assert en in translate(told, "en")
    assert ru in translate(told, "ru")
    assert f"en çok {n} dakika" in translate(told, "tr")


async def test_forget_deletes_the_puzzle_tries_and_open_puzzles(env):
    """/forget takes a player's puzzle tries (private and in a group's puzzle of the day),
    their puzzle rating and the puzzle they have open; the others' tries stay."""
    from dataclasses import replace

    from bot.service.daily import scope_of
    from bot.service.zones import day_and_hour

    service, clock = env
    storage = service.storage
    await service.press(replace(ALI, admin=True), GROUP, A.encode(0, 0, A.SETTING, "gp1"))
    clock.now += 3600  # the puzzle of the day's hour
    (posted,) = [v for v in await service.tick() if v.buttons]
    daily = A.decode(posted.buttons[0][0].action).game_id
    for actor in (ALI, VELI):
        (ack,) = await service.press(actor, GROUP, A.encode(daily, 0, A.PUZZLE, 0))
        assert ack.notice
    here = private(ALI)
    (shown,) = await service.command(ALI, here, "puzzle", "")
    pid = A.decode(shown.buttons[0][0].action).game_id
    await service.press(ALI, here, A.encode(pid, 0, A.PUZZLE, 0))
    await service.command(ALI, here, "puzzle", "")  # left open
    ali = await storage.find_user("telegram", "11")
    veli = await storage.find_user("telegram", "22")
    scope = scope_of("telegram", GROUP.chat_id, day_and_hour(clock.now)[0])
    assert (await storage.puzzles.player(ali.id)).attempts == 1
    assert ali.id in {u for u, _, _ in await storage.puzzles.attempts("")}
    assert {u for u, _, _ in await storage.puzzles.attempts(scope)} == {ali.id, veli.id}
    assert await storage.puzzles.opened(ali.id, "telegram", here.chat_id, clock.now) is not None

    buttons = await confirmation(service, ALI)
    (done,) = await service.press(ALI, here, buttons["yes"])
    assert translate_lines(done.lines, "en").startswith("Done: I have forgotten you.")
    assert (await storage.puzzles.player(ali.id)).attempts == 0
    assert ali.id not in {u for u, _, _ in await storage.puzzles.attempts("")}
    assert {u for u, _, _ in await storage.puzzles.attempts(scope)} == {veli.id}
    assert await storage.puzzles.opened(ali.id, "telegram", here.chat_id, clock.now) is None
