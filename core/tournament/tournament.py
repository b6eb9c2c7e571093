"""A tournament as a state machine: entries, start, pairings, results, standings, winner.

The bot drives it and stores it as JSON (:meth:`Tournament.to_dict`). A typical life::

    t = Tournament.open(Settings(Format.SWISS, rounds=4), organiser=1, now=clock())
    t.join(1, "Ayşe", 1612.0, now)  ...          # Join / Leave buttons
    t.start(now, by=1)                            # or t.start_if_due(now) on a timer
    for pairing in t.ready():                     # start a match for each, then
        t.attach(pairing.key, match_id)           #   remember which match it is
    t.record(key, winner, now, score={a: 3, b: 1})  # a finished match
    t.timeout(key, loser, now)                    # a match lost on time
    t.award(key, winner, now, by=organiser)       # the organiser decides
    t.withdraw(player, now)                       # someone leaves mid-event
    t.standings(), t.winner, t.stage

After every change, :meth:`ready` lists the pairings waiting for a match (new rounds appear
there by themselves); every mutating call returns the pairings it decided, byes and
forfeits included, so the bot can post them and stop any match that no longer counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import (
    Entrant,
    Format,
    Outcome,
    Pairing,
    PlayerId,
    Result,
    Settings,
    Stage,
    Standing,
    TournamentError,
)
from .pairing import berger_rounds, bracket_size, knockout_first_round, swiss_pairs
from .standings import standings as compute_standings

#: Version of the JSON form written by :meth:`Tournament.to_dict`.
FORMAT_VERSION = 1


@dataclass
class Tournament:
    """One tournament: its settings, entrants, pairings and where it stands."""

    settings: Settings
    organiser: PlayerId
    created_at: float
    stage: Stage = Stage.OPEN
    entrants: list[Entrant] = field(default_factory=list)
    pairings: list[Pairing] = field(default_factory=list)
    #: Rounds to be played (fixed at the start; a Swiss may end earlier, see ``ended_early``).
    rounds: int = 0
    #: The round being played (0 before the start).
    current_round: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    #: A Swiss that stopped before its rounds because no valid pairing was left.
    ended_early: bool = False

    # -- entries ---------------------------------------------------------------------

    @classmethod
    def open(cls, settings: Settings, organiser: PlayerId, now: float) -> Tournament:
        """A new tournament taking entries."""
        return cls(settings=settings, organiser=organiser, created_at=now)

    @property
    def format(self) -> Format:
        return self.settings.format

    def entrant(self, player: PlayerId) -> Entrant:
        for e in self.entrants:
            if e.player == player:
                return e
        raise TournamentError("not in the tournament", "tournament_not_joined")

    def has(self, player: PlayerId) -> bool:
        return any(e.player == player for e in self.entrants)

    def join(self, player: PlayerId, name: str, rating: float, now: float) -> Entrant:
        """Enter ``player`` (before the start, while there is room)."""
        self._require(Stage.OPEN)
        if self.has(player):
            raise TournamentError("already in", "tournament_already_joined")
        if len(self.entrants) >= self.settings.max_players:
            raise TournamentError("full", "tournament_full", max=self.settings.max_players)
        entrant = Entrant(player=player, name=name, rating=float(rating), joined_at=now)
        self.entrants.append(entrant)
        return entrant

    def leave(self, player: PlayerId, now: float) -> list[Pairing]:
        """Leave: before the start the entry is removed; after it, see :meth:`withdraw`."""
        if self.stage is Stage.OPEN:
            self.entrants.remove(self.entrant(player))
            return []
        return self.withdraw(player, now)

    # -- start and end ---------------------------------------------------------------

    def can_manage(self, by: PlayerId | None, admin: bool = False) -> bool:
        """Whether ``by`` may start, cancel or award: the organiser or a chat admin."""
        return admin or by == self.organiser

    def start(
        self,
        now: float,
        by: PlayerId | None = None,
        admin: bool = False,
        ratings: Mapping[PlayerId, float] | None = None,
    ) -> list[Pairing]:
        """Start with the players entered: seed them, make the first round.

        ``by`` None is the start time arriving (no permission needed); otherwise only the
        organiser or a chat admin may start. ``ratings`` refreshes the seeding ratings.
        """
        self._require(Stage.OPEN)
        if by is not None and not self.can_manage(by, admin):
            raise TournamentError("only the organiser may start", "tournament_not_organiser")
        if len(self.entrants) < self.settings.min_players:
            raise TournamentError(
                "too few players", "tournament_too_few", min=self.settings.min_players
            )
        for e in self.entrants:
            if ratings and e.player in ratings:
                e.rating = float(ratings[e.player])
        order = sorted(
            range(len(self.entrants)),
            key=lambda i: (-self.entrants[i].rating, self.entrants[i].joined_at, i),
        )
        self.entrants = [self.entrants[i] for i in order]
        for seed, e in enumerate(self.entrants, start=1):
            e.seed = seed
        self.stage = Stage.RUNNING
        self.started_at = now
        seeded = [e.player for e in self.entrants]
        n = len(seeded)
        if self.format is Format.KNOCKOUT:
            size = bracket_size(n)
            self.rounds = size.bit_length() - 1
            for table, (home, away) in enumerate(knockout_first_round(seeded), start=1):
                self.pairings.append(Pairing(1, table, home, away, bye=away is None))
            for r in range(2, self.rounds + 1):
                for table in range(1, (size >> r) + 1):
                    self.pairings.append(Pairing(r, table))
        elif self.format is Format.ROUND_ROBIN:
            schedule = berger_rounds(seeded)
            self.rounds = len(schedule)
            for r, pairs in enumerate(schedule, start=1):
                for table, (home, away) in enumerate(pairs, start=1):
                    self.pairings.append(Pairing(r, table, home, away, bye=away is None))
        else:
            assert self.settings.rounds is not None
            # Beyond n-1 rounds (n with an odd count, one bye each) someone would meet twice.
            self.rounds = min(self.settings.rounds, n if n % 2 else n - 1)
        return self._open_round(1, now)

    def start_if_due(self, now: float) -> bool:
        """At the set start time: start, or cancel with too few players. True if it acted."""
        starts_at = self.settings.starts_at
        if self.stage is not Stage.OPEN or starts_at is None or now < starts_at:
            return False
        if len(self.entrants) >= self.settings.min_players:
            self.start(now)
        else:
            self.stage = Stage.CANCELLED
            self.finished_at = now
        return True

    def cancel(self, now: float, by: PlayerId, admin: bool = False) -> None:
        """Call the tournament off (the organiser or a chat admin)."""
        if self.stage not in (Stage.OPEN, Stage.RUNNING):
            raise TournamentError("already over", "tournament_over")
        if not self.can_manage(by, admin):
            raise TournamentError("only the organiser may cancel", "tournament_not_organiser")
        self.stage = Stage.CANCELLED
        self.finished_at = now

    @property
    def winner(self) -> PlayerId | None:
        """The winner once finished (None before, or if every finalist had left)."""
        if self.stage is not Stage.FINISHED:
            return None
        if self.format is Format.KNOCKOUT:
            final = self.pairing(f"{self.rounds}.1")
            return final.result.winner if final.result else None
        table = self.standings()
        return table[0].player if table else None

    # -- pairings --------------------------------------------------------------------

    def pairing(self, key: str) -> Pairing:
        """The pairing with ``key`` (``"round.table"``)."""
        for p in self.pairings:
            if p.key == key:
                return p
        raise TournamentError("no such pairing", "tournament_unknown_pairing", key=key)

    def pairing_for_match(self, match_ref: str) -> Pairing | None:
        """The pairing whose match is ``match_ref`` (see :meth:`attach`)."""
        return next((p for p in self.pairings if p.match_ref == match_ref), None)

    def round_pairings(self, round_: int) -> list[Pairing]:
        return [p for p in self.pairings if p.round == round_]

    def ready(self) -> list[Pairing]:
        """Pairings with both players known, undecided and without a match yet."""
        if self.stage is not Stage.RUNNING:
            return []
        return [
            p
            for p in self.pairings
            if self._is_open(p) and p.complete and not p.bye and p.match_ref is None
        ]

    def in_play(self) -> list[Pairing]:
        """Pairings being played: a match attached, no result yet."""
        return [p for p in self.pairings if p.match_ref is not None and p.result is None]

    def attach(self, key: str, match_ref: str) -> Pairing:
        """Remember that the bot started match ``match_ref`` for pairing ``key``."""
        pairing = self._decidable(key)
        if pairing.match_ref is not None and pairing.match_ref != match_ref:
            raise TournamentError("the pairing has a match", "tournament_pairing_started")
        pairing.match_ref = match_ref
        return pairing

    # -- results ---------------------------------------------------------------------

    def record(
        self,
        key: str,
        winner: PlayerId,
        now: float,
        score: Mapping[PlayerId, float] | None = None,
    ) -> list[Pairing]:
        """A match played to its end: ``winner`` and optionally each player's points."""
        return self._decide(key, winner, Outcome.PLAYED, now, score)

    def timeout(
        self,
        key: str,
        loser: PlayerId,
        now: float,
        score: Mapping[PlayerId, float] | None = None,
    ) -> list[Pairing]:
        """``loser``'s clock ran out: the match is lost; after ``timeouts_to_withdraw`` such
        losses the player is withdrawn and forfeits the rest."""
        pairing = self._decidable(key)
        if loser not in pairing.players:
            raise TournamentError("not in this pairing", "tournament_not_in_pairing")
        winner = pairing.opponent(loser)
        assert winner is not None
        entrant = self.entrant(loser)
        entrant.timeouts += 1
        limit = self.settings.timeouts_to_withdraw
        if limit and entrant.timeouts >= limit and not entrant.withdrawn:
            # Withdrawn before the result settles, so no new round pairs them again.
            entrant.withdrawn_at = now
        return self._decide(key, winner, Outcome.TIMEOUT, now, score)

    def award(
        self,
        key: str,
        winner: PlayerId,
        now: float,
        by: PlayerId,
        admin: bool = False,
        score: Mapping[PlayerId, float] | None = None,
    ) -> list[Pairing]:
        """The organiser (or a chat admin) decides a pairing for ``winner``."""
        if not self.can_manage(by, admin):
            raise TournamentError("only the organiser may award", "tournament_not_organiser")
        return self._decide(key, winner, Outcome.AWARD, now, score)

    def withdraw(self, player: PlayerId, now: float) -> list[Pairing]:
        """``player`` leaves a running tournament: the match they are in and all later ones
        are lost by forfeit (a Swiss simply stops pairing them)."""
        self._require(Stage.RUNNING)
        entrant = self.entrant(player)
        if entrant.withdrawn:
            return []
        entrant.withdrawn_at = now
        return self._settle(now)

    # -- standings -------------------------------------------------------------------

    def standings(self) -> list[Standing]:
        """The standings, best first (tie-breaks in :mod:`core.tournament.standings`)."""
        return compute_standings(self.format, self.entrants, self.pairings)

    # -- inside ----------------------------------------------------------------------

    def _require(self, stage: Stage) -> None:
        if self.stage is not stage:
            code = {
                Stage.OPEN: "tournament_started",
                Stage.RUNNING: "tournament_not_running",
            }.get(stage, "tournament_over")
            if self.stage in (Stage.FINISHED, Stage.CANCELLED):
                code = "tournament_over"
            raise TournamentError(f"the tournament is {self.stage.value}", code)

    def _is_open(self, pairing: Pairing) -> bool:
        """Undecided and in a round that has begun (in a knockout, a pairing is played as
        soon as both its players are known, without waiting for the rest of the round)."""
        if pairing.result is not None:
            return False
        return self.format is Format.KNOCKOUT or pairing.round <= self.current_round

    def _decidable(self, key: str) -> Pairing:
        self._require(Stage.RUNNING)
        pairing = self.pairing(key)
        if pairing.result is not None:
            raise TournamentError("already decided", "tournament_pairing_decided", key=key)
        if not self._is_open(pairing) or not pairing.complete or pairing.bye:
            raise TournamentError("not ready to play", "tournament_pairing_not_ready", key=key)
        return pairing

    def _decide(
        self,
        key: str,
        winner: PlayerId,
        outcome: Outcome,
        now: float,
        score: Mapping[PlayerId, float] | None,
    ) -> list[Pairing]:
        pairing = self._decidable(key)
        if winner not in pairing.players:
            raise TournamentError("not in this pairing", "tournament_not_in_pairing")
        points = None
        if score is not None:
            home, away = pairing.players
            points = (float(score.get(home, 0)), float(score.get(away, 0)))
        pairing.result = Result(winner, outcome, points, now)
        return [pairing, *self._settle(now)]

    def _settle(self, now: float) -> list[Pairing]:
        """Decide what decides itself (byes, forfeits), move winners on, open new rounds."""
        decided: list[Pairing] = []
        while self.stage is Stage.RUNNING:
            changed = self._advance_knockout(now) if self.format is Format.KNOCKOUT else False
            for pairing in self.pairings:
                if not self._is_open(pairing) or not pairing.complete:
                    continue
                auto = self._automatic_result(pairing, now)
                if auto is not None:
                    pairing.result = auto
                    decided.append(pairing)
                    changed = True
            if not changed:
                if any(self._is_open(p) for p in self.round_pairings(self.current_round)):
                    break
                decided += self._open_round(self.current_round + 1, now)
                break
        return decided

    def _automatic_result(self, pairing: Pairing, now: float) -> Result | None:
        if pairing.bye:
            assert pairing.home is not None
            if self.entrant(pairing.home).withdrawn:
                return Result(None, Outcome.FORFEIT, None, now)  # no free win for the absent
            return Result(pairing.home, Outcome.BYE, None, now)
        gone = [p for p in pairing.players if self.entrant(p).withdrawn]
        if not gone:
            return None
        if len(gone) == 2:
            return Result(None, Outcome.FORFEIT, None, now)
        return Result(pairing.opponent(gone[0]), Outcome.FORFEIT, None, now)

    def _advance_knockout(self, now: float) -> bool:
        """Fill each later-round pairing from the two matches feeding it."""
        changed = False
        for pairing in self.pairings:
            if pairing.round == 1 or pairing.result is not None or pairing.complete:
                continue
            feeders = [self.pairing(f"{pairing.round - 1}.{2 * pairing.table - t}") for t in (1, 0)]
            sides = [f.result.winner if f.result else None for f in feeders]
            home, away = sides
            if (home, away) != (pairing.home, pairing.away):
                pairing.home, pairing.away = home, away
                changed = True
            if all(f.result is not None for f in feeders):
                # A side with no winner (both feeders' players had left) is an empty slot.
                if home is None and away is None:
                    pairing.result = Result(None, Outcome.FORFEIT, None, now)
                    changed = True
                elif home is None or away is None:
                    pairing.home, pairing.away, pairing.bye = home or away, None, True
                    changed = True
            if pairing.complete and pairing.created_at is None:
                pairing.created_at = now
        return changed

    def _open_round(self, round_: int, now: float) -> list[Pairing]:
        """Begin round ``round_``, or finish the tournament after its last round."""
        if round_ > self.rounds:
            self._finish(now)
            return []
        if self.format is Format.SWISS:
            pairs = self._swiss_round()
            if pairs is None:
                self.ended_early = True
                self._finish(now)
                return []
            for table, (home, away) in enumerate(pairs, start=1):
                self.pairings.append(Pairing(round_, table, home, away, bye=away is None))
        self.current_round = round_
        for pairing in self.round_pairings(round_):
            if pairing.created_at is None:
                pairing.created_at = now
        return self._settle(now)

    def _swiss_round(self) -> list[tuple[PlayerId, PlayerId | None]] | None:
        table = self.standings()
        active = [row.player for row in table if not row.withdrawn]
        if not active:
            return None
        scores = {row.player: row.score for row in table}
        met = {frozenset(p.players) for p in self.pairings if len(p.players) == 2}
        had_bye = {p.home for p in self.pairings if p.bye and p.home is not None}
        return swiss_pairs(active, scores, met, had_bye)

    def _finish(self, now: float) -> None:
        self.stage = Stage.FINISHED
        self.finished_at = now

    # -- JSON ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; :meth:`from_dict` gives the same tournament back."""
        return {
            "version": FORMAT_VERSION,
            "settings": self.settings.to_dict(),
            "organiser": self.organiser,
            "created_at": self.created_at,
            "stage": self.stage.value,
            "entrants": [e.to_dict() for e in self.entrants],
            "pairings": [p.to_dict() for p in self.pairings],
            "rounds": self.rounds,
            "current_round": self.current_round,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "ended_early": self.ended_early,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tournament:
        if data.get("version", FORMAT_VERSION) > FORMAT_VERSION:
            raise ValueError("a tournament saved by a newer version")
        return cls(
            settings=Settings.from_dict(data["settings"]),
            organiser=data["organiser"],
            created_at=data["created_at"],
            stage=Stage(data["stage"]),
            entrants=[Entrant.from_dict(e) for e in data["entrants"]],
            pairings=[Pairing.from_dict(p) for p in data["pairings"]],
            rounds=data["rounds"],
            current_round=data["current_round"],
            started_at=data.get("started_at"),
            finished_at=data.get("finished_at"),
            ended_early=data.get("ended_early", False),
        )
