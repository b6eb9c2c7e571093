"""Tests of ``python -m core legal`` (design.md, "Outside interfaces")."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.__main__ import main
from core.gnubg import position_from_id, position_id
from core.position import CHECKERS
from core.variants import variant_by_name

ROOT = Path(__file__).resolve().parent.parent
SHARED_CASES = Path("/work/shared/positions/tavla-gnubg.json")
TAVLA_START = "4HPwATDgc/ABMA"
UZUN_START = "AACA/z8AAID/Pw"
DANCE = "27Y5AADg8+ADQA"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "core", "legal", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def shared_cases() -> list[dict]:
    if not SHARED_CASES.exists():
        pytest.skip("shared gnubg positions not available")
    return json.loads(SHARED_CASES.read_text())["cases"]


def _check_after(pid: str, variant: str = "tavla") -> None:
    position = position_from_id(pid)
    variant_by_name(variant).validate(position)
    assert position_id(position) == pid


# -- subprocess (the real contract) ------------------------------------------------------


def test_subprocess_backgammon_start_3_1():
    proc = run("--variant", "tavla", "--position", TAVLA_START, "--dice", "3", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 16
    plays = set()
    for line in lines:
        play, pid = line.split("\t")
        plays.add(play)
        _check_after(pid)
    assert "8/5 6/5" in plays
    assert len(plays) == 16


def test_subprocess_uzun_first_turn_6_6():
    proc = run("--variant", "uzun", "--position", UZUN_START, "--dice", "6", "6", "--first-turn")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["24/18(2)"]
    after = position_from_id(lines[0].split("\t")[1])
    assert after.mover[18] == 2
    assert after.mover[24] == 13


def test_subprocess_dance_prints_nothing():
    proc = run("--position", DANCE, "--dice", "6", "6")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""


def test_subprocess_jsonl_shared_cases_in_order_with_bad_line():
    cases = shared_cases()
    lines = [json.dumps({"position": c["position"], "dice": c["dice"]}) for c in cases]
    lines.insert(3, "this is not json")
    lines.append(json.dumps({"position": TAVLA_START, "dice": [3, 1], "first_turn": False}))
    proc = run("--variant", "tavla", "--jsonl", stdin="\n".join(lines) + "\n")
    out = proc.stdout.splitlines()
    assert len(out) == len(lines)
    answers = [json.loads(line) for line in out]
    bad = answers.pop(3)
    assert "error" in bad
    assert bad["input"] == "this is not json"
    for case, answer in zip(cases, answers[:-1], strict=True):
        assert answer["position"] == case["position"]
        assert answer["dice"] == case["dice"]
        assert len(answer["plays"]) == case["results"], case["name"]
        if "plays" in case:
            assert sorted(p["play"] for p in answer["plays"]) == sorted(case["plays"])
        for play in answer["plays"]:
            _check_after(play["position"])
    assert len(answers[-1]["plays"]) == 16
    assert proc.returncode == 1  # a bad line is reported in the exit status


def test_subprocess_bad_position_is_an_error():
    proc = run("--position", "not-an-id", "--dice", "3", "1")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error:")


# -- in process (fast) ----------------------------------------------------------------------


def _main(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["legal", *args])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(
    ("dice", "count"),
    [((3, 1), 16), ((1, 3), 16), ((6, 6), None), ((5, 2), None)],
)
def test_main_tavla_start(capsys, dice, count):
    code, lines = _main(capsys, "--position", TAVLA_START, "--dice", *map(str, dice))
    assert code == 0
    if count is not None:
        assert len(lines) == count
    assert lines
    pids = [line.split("\t")[1] for line in lines]
    assert len(set(pids)) == len(pids)  # one line per distinct board
    for pid in pids:
        _check_after(pid)
        after = position_from_id(pid)
        assert sum(after.mover) == CHECKERS


def test_main_shared_cases(capsys):
    for case in shared_cases():
        code, lines = _main(
            capsys, "--position", case["position"], "--dice", *map(str, case["dice"])
        )
        assert code == 0
        assert len(lines) == case["results"], case["name"]
        if "plays" in case:
            assert sorted(line.split("\t")[0] for line in lines) == sorted(case["plays"])


def test_main_uzun_without_first_turn_plays_one_head_checker(capsys):
    """U-4 without --first-turn: 6-6 from the start is only 24/18."""
    code, lines = _main(capsys, "--variant", "uzun", "--position", UZUN_START, "--dice", "6", "6")
    assert code == 0
    # U-4: one head checker only, and the opponent's head (our 12) blocks it after 24/18.
    assert [line.split("\t")[0] for line in lines] == ["24/18"]


@pytest.mark.parametrize(("dice", "expected"), [((6, 6), "24/18(2)"), ((4, 4), "24/16(2)")])
def test_main_uzun_first_turn_doubles(capsys, dice, expected):
    """U-5: the starter's 6-6 and 4-4 take two checkers from the head."""
    code, lines = _main(
        capsys,
        "--variant",
        "uzun",
        "--position",
        UZUN_START,
        "--dice",
        *map(str, dice),
        "--first-turn",
    )
    assert code == 0
    assert [line.split("\t")[0] for line in lines] == [expected]


def test_main_jsonl_in_process(capsys, monkeypatch):
    requests = [
        json.dumps({"position": TAVLA_START, "dice": [3, 1]}),
        "",
        json.dumps({"position": DANCE, "dice": [6, 6]}),
        json.dumps({"position": UZUN_START, "dice": [6, 6], "first_turn": True}),
        json.dumps({"position": TAVLA_START}),  # no dice
        json.dumps({"position": TAVLA_START, "dice": [7, 1]}),
        json.dumps([1, 2]),
        json.dumps({"position": TAVLA_START, "dice": [True, 2]}),  # JSON true is no die
        json.dumps({"position": "fn8AAwD/PwAAIA", "dice": [6, 5]}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(requests) + "\n"))
    code = main(["legal", "--variant", "tavla", "--jsonl"])
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert len(answers) == 8  # the blank line is skipped
    assert len(answers[0]["plays"]) == 16
    assert answers[1] == {"position": DANCE, "dice": [6, 6], "plays": []}
    # The uzun start read as a Tavla position is still a legal board here.
    assert "plays" in answers[2] or "error" in answers[2]
    assert all("error" in a for a in answers[3:7])
    assert [p["play"] for p in answers[7]["plays"]] == ["24/18"]


def test_main_needs_position_and_dice(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["legal", "--position", TAVLA_START])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["legal", "--variant", "tavla", "--block-needs-home", "--jsonl"])
    capsys.readouterr()


def test_main_block_needs_home_option_for_uzun(capsys):
    code, lines = _main(
        capsys,
        "--variant",
        "uzun",
        "--block-needs-home",
        "--position",
        UZUN_START,
        "--dice",
        "6",
        "6",
        "--first-turn",
    )
    assert code == 0
    assert [line.split("\t")[0] for line in lines] == ["24/18(2)"]
