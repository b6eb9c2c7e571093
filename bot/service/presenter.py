"""How a game looks: the board view, the caption and the buttons for its current state.

Nothing here decides a rule: legal steps and cube rights come from core.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.i18n import Text, t, tn
from core.dice import dice_name_tr, larger_first
from core.events import EventType
from core.game import Game, Phase, ResultKind, ResultReason
from core.match import Match
from core.turn import Turn
from renderers.view import BLACK, WHITE, BoardView

from . import actions as A
from .keypad import DEFAULT_LIMITS, KeypadLimits, move_rows
from .views import Button

VARIANT_NAMES = {
    "tavla": t("Tavla"),
    "turkish": t("Turkish tavla"),
    "uzun": t("Uzun Tavla"),
}

#: The computer's strengths by the word /bot takes (core.ai.LEVELS), as players read them.
LEVEL_NAMES = {
    "random": t("random"),
    "beginner": t("beginner"),
    "club": t("club"),
    "expert": t("expert"),
    "master": t("master"),
}

#: A player's name as shown: a person's own, or the computer's (translated: its level).
Name = str | Text


def computer_name(level: str | None) -> Text:
    """The computer's name with its strength, in the reader's words ("Tavla Bot (uzman)")."""
    word = LEVEL_NAMES.get(level or "random", LEVEL_NAMES["random"])
    return t("Tavla Bot ({level})", level=word)


KIND_NAMES = {
    ResultKind.SINGLE: t("a single game"),
    ResultKind.GAMMON: t("a gammon (mars)"),
    ResultKind.BACKGAMMON: t("a backgammon"),
    ResultKind.DRAW: t("a draw"),
}


def seat_color(game: Game, seat: int) -> str:
    """The colour a seat plays (White is the seat that starts in Uzun Tavla)."""
    return WHITE if seat == game.white else BLACK


def dice_used_flags(turn: Turn) -> tuple[bool, ...]:
    """Which of the dice a board shows (larger first; a double as four) the steps made so
    far have used."""
    all_dice = larger_first(turn.all_dice)
    flags = [False] * len(all_dice)
    for _, die in turn.done:
        for i, d in enumerate(all_dice):
            if d == die and not flags[i]:
                flags[i] = True
                break
    return tuple(flags)


def board_view(
    match: Match,
    names: Sequence[Name],
    *,
    viewer: int | None = None,
    computer: int | None = None,
    selected: int | None = None,
    theme: str = "classic",
    lang: str = "en",
    home: str = "right",
) -> BoardView:
    """The picture of the match's current game, seen by ``viewer`` (default: the seat the
    board is shown for, :func:`shown_seat`; ``computer`` is the computer's seat, if any),
    with the viewer's home board on the ``home`` side ("right" or "left"). A finished game
    names its winner and says how it ended under the board.

    The words written on the picture are in ``lang``.
    """
    from bot.i18n import translate

    labels = picture_labels(lang)
    game = match.game
    assert game is not None
    seat = shown_seat(game, computer) if viewer is None else viewer
    turn = game.current_turn
    dice: tuple[int, ...] = ()
    used: tuple[bool, ...] = ()
    ended = game.result.reason if game.over and game.result else None
    # A game resigned, passed or lost on time ends with its roll unplayed: no dice drawn.
    if game.dice and ended in (None, ResultReason.BEAR_OFF):
        dice = larger_first(game.dice)  # as the caption names the roll
        if turn is not None:
            all_dice = list(larger_first(turn.all_dice))
            used = dice_used_flags(turn)
            dice = tuple(all_dice) if len(all_dice) == 4 else dice
    highlights: tuple[int, ...] = ()
    if selected is not None and turn is not None and seat == game.turn:
        highlights = tuple(step.dest for step, _ in turn.targets(selected))
    last_steps, last_color = _last_play(game)
    colors = {seat_color(game, s): s for s in (0, 1)}
    cube_owner = None
    if game.cube_owner is not None:
        cube_owner = seat_color(game, game.cube_owner)
    winner = game.result.winner if game.over and game.result else None
    ending = translate(result_line(game, names), lang) if game.over else None
    return BoardView.from_position(
        game.variant,
        game.position(seat),
        mover_color=seat_color(game, seat),
        to_move=None if game.over else seat_color(game, game.awaiting),
        winner=None if winner is None else seat_color(game, winner),
        caption=ending,
        dice=dice,
        dice_used=used,
        dice_color=seat_color(game, game.turn) if dice else None,
        cube_value=game.cube_value if game.variant.cube else None,
        cube_owner=cube_owner,
        names={c: translate(names[s], lang) for c, s in colors.items()},
        score={c: int(match.score[s]) for c, s in colors.items()},
        match_length=match.length,
        crawford=game.crawford,
        last_play=last_steps,
        last_play_color=last_color,
        highlights=highlights,
        selected=selected,
        theme=theme,
        home=home,
        labels=labels,
    )


def picture_labels(lang: str) -> dict[str, str]:
    """The words written on a board picture, in ``lang``."""
    from bot.i18n import LANGUAGES, catalog

    # Translated without formatting: the renderer fills in ``{n}`` itself.
    words = catalog(lang if lang in LANGUAGES else "en")
    labels = {
        key: words.gettext(text.msgid)
        for key, text in {
            "pips": t("pips"),
            "to_move": t("to move"),
            "match_to": t("Match to {n}"),
            "money": t("Money game"),
            "crawford": t("Crawford"),
            "off": t("off"),
            "white": t("white"),
            "black": t("black"),
            "score": t("score"),
            "bar": t("bar"),
            "cube": t("Cube"),
            "centred": t("centred"),
            "dice": t("Dice"),
            "used": t("used"),
            "played": t("played"),
            "heads": t("Heads"),
            "can_reach": t("Can reach"),
            "winner": t("winner"),
        }.items()
    }
    return labels


def _last_play(game: Game) -> tuple[tuple, str | None]:
    for event in reversed(game.history):
        if event["type"] == EventType.PLAY:
            steps = tuple((s[0], s[1], bool(s[2])) for s in event["steps"])
            return steps, seat_color(game, event["seat"])
        if event["type"] == EventType.START:
            break
    return (), None


#: At most this many plays are told under a board (both closed out, passes can run long).
MOST_PLAYS_TOLD = 3


#: What the caption tells, and what counts as a choice of the player now to act.
_TOLD = (EventType.PLAY, EventType.PASS, EventType.TAKE, EventType.RESIGN_DECLINE)
_CHOICES = (EventType.PLAY, EventType.TAKE, EventType.DOUBLE, EventType.RESIGN)


def recent_play_lines(game: Game, names: Sequence[Name]) -> list[Text]:
    """``Ali played 6-5: 24/13``, oldest first, for every play, pass, take and declined
    resignation since the player now to act last chose (a move, a double, a take, an offer
    to resign): the opponent's answer and what was done for them meanwhile (an only move
    made, a roll that could not be played), at most :data:`MOST_PLAYS_TOLD`. When the game
    is over, its last play alone."""
    awaited = None if game.over else game.awaiting
    lines: list[Text] = []
    for index in range(len(game.history) - 1, -1, -1):
        event = game.history[index]
        kind = event["type"]
        if kind == EventType.START:
            break
        own = awaited is not None and event.get("seat") == awaited
        if own and kind in _CHOICES and not event.get("forced"):
            if not lines and kind == EventType.PLAY:
                lines.append(_play_line(game, names, index))  # asked to take: own last play
            break
        if kind not in _TOLD:
            continue  # a double or an offer to resign: the line under the board asks
        if awaited is None and kind == EventType.RESIGN_DECLINE:
            continue  # "play goes on" is stale once a later resignation ended the game
        lines.append(_play_line(game, names, index))
        if awaited is None or len(lines) == MOST_PLAYS_TOLD:
            break
    return lines[::-1]


def play_lines(game: Game, names: Sequence[Name], most: int) -> list[Text]:
    """The game's last ``most`` plays, passes, takes and declined resignations, oldest first,
    told as under the board (the web page lists them where a phone has room)."""
    lines: list[Text] = []
    for index in range(len(game.history) - 1, -1, -1):
        kind = game.history[index]["type"]
        if kind == EventType.START or len(lines) == most:
            break
        if kind in _TOLD:
            lines.append(_play_line(game, names, index))
    return lines[::-1]


def _play_line(game: Game, names: Sequence[Name], index: int) -> Text:
    """The line for the play, pass, take or declined resignation at ``game.history[index]``
    (a play's and a pass's with the roll before it)."""
    event = game.history[index]
    seat = event["seat"]
    if event["type"] == EventType.RESIGN_DECLINE:
        return t("{name} declined the resignation: play goes on.", name=names[seat])
    if event["type"] == EventType.TAKE:
        return t(
            "{name} took the double: the cube is at {value}.",
            name=names[seat],
            value=event["value"],
        )
    roll = None
    for earlier in reversed(game.history[:index]):
        if earlier["type"] == EventType.ROLL and earlier["seat"] == seat:
            roll = earlier["dice"]
            break
    rolled = "-".join(map(str, larger_first(roll))) if roll else ""
    if event["type"] == EventType.PASS:
        return t("{name} rolled {dice} and cannot move.", name=names[seat], dice=rolled)
    if event.get("forced"):
        return t(
            "{name} rolled {dice}: the only move, {play}, was made.",
            name=names[seat],
            dice=rolled,
            play=event["play"],
        )
    return t("{name} played {dice}: {play}", name=names[seat], dice=rolled, play=event["play"])


def caption(match: Match, names: Sequence[Name], variant_name: str) -> list[Text | str]:
    """The lines under the board: players, score, last play, roll, pips, who acts."""
    game = match.game
    assert game is not None
    white, black = game.white, 1 - game.white
    lines: list[Text | str] = []
    title = VARIANT_NAMES.get(variant_name, t(variant_name))
    if match.money:
        contest: Text = t("money play")
    elif match.length == 1:
        contest = t("one game")
    else:
        contest = t("match to {n}", n=match.length)
    lines.append(
        t(
            "⚪ {white} {ws} – {bs} {black} ⚫ · {title}, {contest}",
            white=names[white],
            black=names[black],
            ws=_score(match.score[white]),
            bs=_score(match.score[black]),
            title=title,
            contest=contest,
        )
    )
    if game.crawford:
        lines.append(t("Crawford game: no doubling."))
    lines.extend(recent_play_lines(game, names))
    pips = game.pips()
    lines.append(t("Pips: ⚪ {w} · ⚫ {b}", w=pips[white], b=pips[black]))
    lines.append(action_line(game, names))
    return lines


def _score(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def action_line(game: Game, names: Sequence[Name]) -> Text:
    """What the game waits for, and from whom."""
    if game.over:
        return result_line(game, names)
    who = names[game.awaiting]
    if game.resign_offer:
        seat, kind = game.resign_offer
        return t(
            "{name} offers to resign {kind}. {other}, accept or decline?",
            name=names[seat],
            kind=KIND_NAMES[kind],
            other=names[1 - seat],
        )
    if game.phase is Phase.DOUBLED:
        return t(
            "{name} doubles to {value}. {other}, take or pass?",
            name=names[game.turn],
            value=game.cube_value * 2,
            other=who,
        )
    if game.phase is Phase.ROLL:
        if game.last_roll:
            return t("{name}, your last roll: bear off everything for a draw.", name=who)
        return t("{name} to roll.", name=who)
    assert game.dice is not None
    a, b = larger_first(game.dice)
    turn = game.current_turn
    left = turn.remaining_dice if turn else []
    return t(
        "{name} to play {a}-{b} ({tr}). Dice left: {left}",
        name=who,
        a=a,
        b=b,
        tr=dice_name_tr(a, b),
        left=" ".join(map(str, sorted(left, reverse=True))) or "—",
    )


def result_line(game: Game, names: Sequence[Name]) -> Text:
    """How a finished game ended, naming who resigned, passed or ran out of time."""
    result = game.result
    assert result is not None
    if result.winner is None:
        return t("The game is a draw.")
    winner, loser = names[result.winner], names[1 - result.winner]
    kind, points = KIND_NAMES[result.kind], result.points
    if result.reason is ResultReason.RESIGN:
        return tn(
            "{loser} resigned {kind}: {name} wins {n} point.",
            "{loser} resigned {kind}: {name} wins {n} points.",
            points,
            loser=loser,
            kind=kind,
            name=winner,
        )
    if result.reason is ResultReason.PASS:
        return tn(
            "{loser} passed the double: {name} wins {n} point.",
            "{loser} passed the double: {name} wins {n} points.",
            points,
            loser=loser,
            name=winner,
        )
    if result.reason is ResultReason.TIMEOUT:
        return tn(
            "{loser} ran out of time: {name} wins {kind}: {n} point.",
            "{loser} ran out of time: {name} wins {kind}: {n} points.",
            points,
            loser=loser,
            kind=kind,
            name=winner,
        )
    return tn(
        "{name} wins {kind}: {n} point.",
        "{name} wins {kind}: {n} points.",
        points,
        name=winner,
        kind=kind,
    )


def shown_seat(game: Game, computer: int | None = None) -> int:
    """The seat a game's board is drawn for: in a game against the computer always the
    person's (the computer's double is answered on the person's own side); else the seat to
    act while the game goes on, and once it is over the seat that acted last (who bore off,
    passed the double, accepted the resignation), so that the final picture does not turn
    round."""
    if computer is not None:
        return 1 - computer
    if not game.over:
        return game.turn
    for event in reversed(game.history):
        if "seat" in event:
            return int(event["seat"])
    return game.turn


#: The digit a resignation's level goes by in a "Yes, resign" button (as ``/resign 2``).
RESIGN_DIGITS = {ResultKind.SINGLE: "1", ResultKind.GAMMON: "2", ResultKind.BACKGAMMON: "3"}


def resign_question(names: Sequence[Name], seat: int, kind: ResultKind) -> Text:
    """The line that asks ``seat`` to confirm a resignation at ``kind`` before it is offered."""
    return t("{name}: resign {kind}?", name=names[seat], kind=KIND_NAMES[kind])


def resign_buttons(game_id: int, version: int, seat: int, kind: ResultKind) -> list[list[Button]]:
    """ "Yes, resign" (offers the resignation of ``seat`` at ``kind``) and "No"."""
    arg = f"{seat}{RESIGN_DIGITS[kind]}"
    return [
        [
            Button(t("Yes, resign"), A.encode(game_id, version, A.RESIGN, arg)),
            Button(t("No, play on"), A.encode(game_id, version, A.RESIGN_CANCEL)),
        ]
    ]


#: The question /abort puts in a game against oneself (one keyboard, both seats).
ABANDON_QUESTION = t("Abandon this game? It ends here, unrated.")
#: How a game called off ended: by the one person who held both seats, or agreed.
ABANDONED = t("The game was abandoned. It is not rated.")
CALLED_OFF = t("The game was called off by agreement. It is not rated.")


def abandon_buttons(game_id: int, version: int) -> list[list[Button]]:
    """ "Yes, abandon" (calls off a game against oneself) and "No"."""
    return [
        [
            Button(t("Yes, abandon"), A.encode(game_id, version, A.ABANDON)),
            Button(t("No, play on"), A.encode(game_id, version, A.RESIGN_CANCEL)),
        ]
    ]


def finished_buttons(game_id: int, version: int) -> list[list[Button]]:
    """Under a finished game's board: a rematch and the game's analysis."""
    return [
        [
            Button(t("Rematch"), A.encode(game_id, version, A.REMATCH)),
            Button(t("🔍 Analyse"), A.encode(game_id, version, A.ANALYSE)),
        ]
    ]


def own_roll_buttons(
    game_id: int, version: int, game: Game, names: Sequence[Name], humans: Collection[int]
) -> list[list[Button]]:
    """In a busy chat, where the bot rolls for everyone: a button for each player who could
    double before their next roll, to roll themselves in this game (and so keep the cube)."""
    return [
        [
            Button(
                t("🎲 {name}: let me double", name=names[seat]),
                A.encode(game_id, version, A.OWN_ROLLS, seat),
            )
        ]
        for seat in sorted(humans)
        if game.cube_open_to(seat) and not (game.phase is Phase.ROLL and game.turn == seat)
    ]


def game_buttons(
    game_id: int,
    version: int,
    game: Game,
    selected: int | None = None,
    limits: KeypadLimits = DEFAULT_LIMITS,
    hint: bool = False,
    moves: bool = True,
) -> list[list[Button]]:
    """Buttons for the seat the game waits for; only legal choices are offered (the moves of
    a turn as :mod:`bot.service.keypad` lays them out). ``hint``: a 💡 button too where the
    seat has a decision to make (a game whose players may ask for hints). ``moves=False``:
    without the buttons that make steps (the web page offers its moves itself)."""
    rows = _game_buttons(game_id, version, game, selected, limits, moves)
    if hint and not game.over and not game.resign_offer and _has_decision(game):
        rows = [*rows[:-1], [*rows[-1], Button("💡", A.encode(game_id, version, A.HINT))]]
    return rows


def _has_decision(game: Game) -> bool:
    """Whether the seat the game waits for has a choice a hint can help with."""
    if game.phase is Phase.DOUBLED:
        return True
    if game.phase is Phase.ROLL:
        return game.may_double(game.turn)
    return len(game.legal_plays()) > 1


def _game_buttons(
    game_id: int,
    version: int,
    game: Game,
    selected: int | None,
    limits: KeypadLimits,
    moves: bool = True,
) -> list[list[Button]]:
    enc = A.encode
    rows: list[list[Button]] = []
    if game.over:
        return finished_buttons(game_id, version)
    if game.resign_offer:
        return [
            [
                Button(t("Accept resignation"), enc(game_id, version, A.RESIGN_ACCEPT)),
                Button(t("Play on"), enc(game_id, version, A.RESIGN_DECLINE)),
            ]
        ]
    if game.phase is Phase.DOUBLED:
        return [
            [
                Button(t("Take"), enc(game_id, version, A.TAKE)),
                Button(t("Pass"), enc(game_id, version, A.DROP)),
            ]
        ]
    if game.phase is Phase.ROLL:
        row = [Button(t("🎲 Roll"), enc(game_id, version, A.ROLL))]
        if game.may_double(game.turn):
            row.append(
                Button(t("Double to {n}", n=game.cube_value * 2), enc(game_id, version, A.DOUBLE))
            )
        rows = [row]
        if game.may_take_back(1 - game.turn):  # a move confirmed by itself
            rows.append([Button(t("↩ Undo my move"), enc(game_id, version, A.UNDO))])
        return rows
    turn = game.current_turn
    assert turn is not None
    if moves:
        rows.extend(move_rows(game_id, version, turn, selected, limits))
    tail: list[Button] = []
    if turn.done:
        tail.append(Button(t("↩ Undo"), enc(game_id, version, A.UNDO)))
    if turn.complete:
        tail.append(Button(t("✅ Confirm"), enc(game_id, version, A.CONFIRM)))
    if tail:
        rows.append(tail)
    return rows
