"""The anchor for the analysis: GNU Backgammon's own ``analyse match`` on a ``.mat`` file.

Runs Debian's ``gnubg`` headless (``gnubg -t -p script``) on a match, reads every analysed
decision back through gnubg's Python interface and its per-player statistics, and compares
them with a :class:`core.analysis.MatchAnalysis` of the same match. Used by
``bench/analysis.py`` and by the test that is skipped when gnubg is absent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from core.ai import player_for
from core.analysis import MatchAnalysis
from core.analysis.scoring import BAD, DOUBTFUL, VERY_BAD
from core.analysis.selfplay import play_match
from core.dice import RandomDice
from core.export import export_games
from core.variants import variant_by_name

_SCRIPT = """
import gnubg, json
gnubg.command("set analysis threshold doubtful {doubtful}")
gnubg.command("set analysis threshold bad {bad}")
gnubg.command("set analysis threshold verybad {very_bad}")
gnubg.command("set analysis chequerplay evaluation plies {plies}")
gnubg.command("set analysis cubedecision evaluation plies {plies}")
gnubg.command("import mat {mat}")
gnubg.command("analyse match")

def plain(o):
    if isinstance(o, dict):
        return {{str(k): plain(v) for k, v in o.items()}}
    if isinstance(o, (list, tuple)):
        return [plain(v) for v in o]
    return o if isinstance(o, (int, float, str, type(None), bool)) else str(o)

with open({out!r}, "w") as f:
    json.dump(plain(gnubg.match()), f)
print("=====STATS")
gnubg.command("show statistics match")
"""
_RATE = re.compile(r"^Error rate mEMG[^-+\d]*([-+]?\d+\.\d+)[^\s]*\s.*?\s{2,}([-+]?\d+\.\d+)")
_UNFORCED = re.compile(r"^Unforced moves\s+(\d+)\s+(\d+)")


#: The pairings of the anchor matches, in turn.
PAIRINGS = (("beginner", "club"), ("beginner", "expert"), ("club", "expert"))


def seeded_matches(count: int, length: int, seed: int = 2026):
    """``count`` seeded Tavla matches between the computer's levels, with their .mat text."""
    variant = variant_by_name("tavla")
    for m in range(count):
        a, b = PAIRINGS[m % len(PAIRINGS)]
        players = [player_for("tavla", a, seed + m), player_for("tavla", b, seed + m)]
        _, histories = play_match(variant, players, RandomDice(seed + m), length=length)
        names = (a, b)
        yield names, histories, export_games(list(names), length, histories)


def _run_gnubg(binary: str, script: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """gnubg without a window running the Python ``script`` (its folder is gnubg's HOME)."""
    return subprocess.run(
        [binary, "-t", "-q", "-r", "-p", str(script)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "HOME": str(script.parent)},
        check=False,
    )


def gnubg_binary() -> str | None:
    """The path of the gnubg program, or None."""
    return shutil.which("gnubg") or (
        "/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None
    )


@dataclass
class GnubgAnalysis:
    """What gnubg found: very bad decisions by key, and per-player figures (mEMG)."""

    very_bad: set[tuple] = field(default_factory=set)
    checker_keys: set[tuple] = field(default_factory=set)
    checker_rate: tuple[float, float] = (0.0, 0.0)
    overall_rate: tuple[float, float] = (0.0, 0.0)
    unforced: tuple[int, int] = (0, 0)


def gnubg_analyse(mat_text: str, plies: int = 2, timeout: float = 1800) -> GnubgAnalysis:
    """Run gnubg's ``analyse match`` on ``mat_text`` (seat 0 is gnubg's player X).

    gnubg labels decisions at the project's thresholds (0.04, 0.08, 0.16): gnubg 1.07's own
    defaults are lower (0.03, 0.06, 0.12), which would compare two different things.
    """
    binary = gnubg_binary()
    if binary is None:
        raise RuntimeError("gnubg is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp, "match.mat")
        mat.write_text(mat_text)
        out = Path(tmp, "match.json")
        script = Path(tmp, "analyse.py")
        script.write_text(
            _SCRIPT.format(
                plies=plies,
                mat=mat,
                out=str(out),
                doubtful=DOUBTFUL,
                bad=BAD,
                very_bad=VERY_BAD,
            )
        )
        done = _run_gnubg(binary, script, timeout)
        if not out.exists():
            raise RuntimeError(f"gnubg failed: {done.stderr[-2000:]}")
        data = json.loads(out.read_text())
    result = GnubgAnalysis()
    _read_decisions(data, result)
    _read_stats(done.stdout.split("=====STATS", 1)[-1], result)
    return result


_IMPORT_SCRIPT = """
import gnubg
gnubg.command("import mat {mat}")
print("=====COUNTS", [len(g["game"]) for g in gnubg.match()["games"]])
"""


def gnubg_import(mat_text: str, timeout: float = 120) -> tuple[list[int], str]:
    """Import ``mat_text`` into gnubg: the number of records in each game it read, and what
    gnubg printed on the way (its warnings about lines it did not understand)."""
    binary = gnubg_binary()
    if binary is None:
        raise RuntimeError("gnubg is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp, "match.mat")
        mat.write_text(mat_text)
        script = Path(tmp, "import.py")
        script.write_text(_IMPORT_SCRIPT.format(mat=mat))
        done = _run_gnubg(binary, script, timeout)
    printed = done.stdout + done.stderr
    counts = re.search(r"=====COUNTS \[([\d, ]*)\]", printed)
    if counts is None:
        raise RuntimeError(f"gnubg failed: {printed[-2000:]}")
    return [int(n) for n in counts.group(1).split(",") if n.strip()], printed


_READ_SCRIPT = """
import gnubg, json
gnubg.command("import mat {mat}")
match = gnubg.match()
with open({out!r}, "w", encoding="utf-8") as f:
    json.dump({{
        "names": [match["match-info"][side]["name"] for side in ("X", "O")],
        "games": [
            [[e["player"], list(e["dice"])] for e in g["game"] if e.get("action") == "move"]
            for g in match["games"]
        ],
    }}, f, ensure_ascii=False)
"""


def _gnubg_json(mat_text: str, template: str, timeout: float, **fields: object) -> dict:
    """Run gnubg on ``mat_text`` with the Python ``template`` (given ``mat``, ``out`` and
    ``fields``), which writes JSON to ``out``; that JSON."""
    binary = gnubg_binary()
    if binary is None:
        raise RuntimeError("gnubg is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp, "match.mat")
        mat.write_text(mat_text, encoding="utf-8")
        out = Path(tmp, "out.json")
        script = Path(tmp, "script.py")
        script.write_text(template.format(mat=mat, out=str(out), **fields))
        done = _run_gnubg(binary, script, timeout)
        if not out.exists():
            raise RuntimeError(f"gnubg failed: {(done.stdout + done.stderr)[-2000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def gnubg_read(mat_text: str, timeout: float = 120) -> tuple[list[str], list[list[tuple]]]:
    """Import ``mat_text`` into gnubg and read back what it took: the players' names (X, O)
    and each game's moves as (seat, dice) in order (seat 0 is X)."""
    data = _gnubg_json(mat_text, _READ_SCRIPT, timeout)
    games = [
        [({"X": 0, "O": 1}[player], tuple(sorted(dice))) for player, dice in game]
        for game in data["games"]
    ]
    return data["names"], games


_RESULT_SCRIPT = """
import gnubg, json
for command in {commands!r}:
    gnubg.command(command)
gnubg.command("import mat {mat}")
match = gnubg.match()
with open({out!r}, "w", encoding="utf-8") as f:
    json.dump({{
        "length": match["match-info"]["match-length"],
        "rules": list(match["match-info"].get("rules", ())),
        "games": [
            {{
                "winner": g["info"]["winner"],
                "points": g["info"]["points-won"],
                "cube": [[e["player"], e["action"]] for e in g["game"]
                         if e.get("action") in ("double", "take", "drop")],
            }}
            for g in match["games"]
        ],
    }}, f)
"""


def gnubg_results(
    mat_text: str, commands: tuple[str, ...] = (), timeout: float = 120
) -> dict[str, object]:
    """Import ``mat_text`` into gnubg after ``commands`` (``set jacoby off``, say) and read
    what gnubg scored: the match length, its rules, and each game's winner (seat), points
    and cube actions as (seat, action)."""
    data = _gnubg_json(mat_text, _RESULT_SCRIPT, timeout, commands=commands)
    seat = {"X": 0, "O": 1}
    for game in data["games"]:
        game["winner"] = seat.get(game["winner"])
        game["cube"] = [(seat[player], action) for player, action in game["cube"]]
    return data


def _read_decisions(data: dict, result: GnubgAnalysis) -> None:
    seat = {"X": 0, "O": 1}
    for number, game in enumerate(data["games"], 1):
        last_double = ""
        for entry in game["game"]:
            analysis = entry.get("analysis") or {}
            player = seat.get(entry.get("player"), -1)
            action = entry.get("action")
            key: tuple | None = None
            if action == "move" and len(analysis.get("moves", [])) > 1:
                dice = tuple(sorted(entry["dice"]))
                key = (number, player, "play", entry["board"], dice)
                result.checker_keys.add(key)
            elif action == "double":
                last_double = entry.get("board", "")
                key = (number, player, "cube", last_double, "double")
            elif action in ("take", "drop"):
                key = (number, player, "cube", last_double, "take" if action == "take" else "pass")
            if key is not None and analysis.get("skill") == "very bad":
                result.very_bad.add(key)


def _read_stats(text: str, result: GnubgAnalysis) -> None:
    rates: list[tuple[float, float]] = []
    for line in text.splitlines():
        if m := _UNFORCED.match(line):
            result.unforced = (int(m.group(1)), int(m.group(2)))
        if line.startswith("Error rate mEMG"):
            numbers = re.findall(r"[-+]?\d+\.\d+", line)
            # "-53.6 ( -1.830%)  -8.6 ( -0.278%)": the mEMG figure of each player.
            values = [float(n) for n in numbers if not n.endswith("%")]
            if len(numbers) >= 4:
                rates.append((abs(float(numbers[0])), abs(float(numbers[2]))))
            elif len(values) >= 2:
                rates.append((abs(values[0]), abs(values[1])))
    if rates:
        result.checker_rate = rates[0]
        result.overall_rate = rates[-1]


def project_keys(analysis: MatchAnalysis) -> tuple[set[tuple], set[tuple]]:
    """The project's decisions as gnubg keys: (all checker plays, very bad decisions)."""
    checker: set[tuple] = set()
    very_bad: set[tuple] = set()
    for d in analysis.decisions:
        if d.kind == "play":
            key: tuple = (d.game, d.player, "play", d.position, tuple(sorted(d.dice or ())))
            checker.add(key)
        else:
            key = (d.game, d.player, "cube", d.position, d.played)
        if d.skill.value == "very_bad":
            very_bad.add(key)
    return checker, very_bad


@dataclass
class Comparison:
    """The project against gnubg on the same matches."""

    gnubg_very_bad: int
    project_very_bad: int
    both_very_bad: int
    matched_plays: int
    gnubg_plays: int
    rates: list[tuple[float, float]]  # (project, gnubg) error per decision, per player

    @property
    def overlap(self) -> float:
        """Share of gnubg's very bad decisions the project calls very bad too."""
        return self.both_very_bad / self.gnubg_very_bad if self.gnubg_very_bad else 1.0

    @property
    def mean_rate_gap(self) -> float:
        """The mean relative gap of the players' error per decision from gnubg's."""
        gaps = [abs(p - g) / g for p, g in self.rates if g > 0]
        return sum(gaps) / len(gaps) if gaps else 0.0

    @property
    def worst_rate_gap(self) -> float:
        """The largest relative gap of a player's error per decision from gnubg's."""
        return max((abs(p - g) / g for p, g in self.rates if g > 0), default=0.0)


def compare(pairs: list[tuple[MatchAnalysis, GnubgAnalysis]]) -> Comparison:
    """Pool the very bad decisions of several matches and compare each player's rate."""
    g_vb = p_vb = both = matched = g_plays = 0
    rates: list[tuple[float, float]] = []
    for ours, theirs in pairs:
        checker, very_bad = project_keys(ours)
        g_vb += len(theirs.very_bad)
        p_vb += len(very_bad)
        both += len(theirs.very_bad & very_bad)
        matched += len(theirs.checker_keys & checker)
        g_plays += len(theirs.checker_keys)
        for seat in (0, 1):
            rates.append((ours.players[seat].error_per_decision, theirs.overall_rate[seat]))
    return Comparison(g_vb, p_vb, both, matched, g_plays, rates)
