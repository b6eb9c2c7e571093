"""``python -m renderers`` (a contract in design.md) and the gallery script."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from PIL import Image

from core.gnubg import MatchIdInfo, match_id, position_id
from core.variants import variant_by_name
from renderers.__main__ import build_parser, view_from_args
from renderers.gallery import write_gallery
from renderers.view import BLACK, WHITE

ROOT = Path(__file__).resolve().parent.parent
OPENING = position_id(variant_by_name("tavla").start_position())


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "renderers", *args], cwd=ROOT, capture_output=True, timeout=60
    )


def test_cli_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "board.png"
    result = run("--variant", "tavla", "--position", OPENING, "--dice", "3", "1", "--out", str(out))
    assert result.returncode == 0, result.stderr.decode()
    image = Image.open(out)
    image.load()
    assert image.format == "PNG"
    assert image.width == 1000


def test_cli_png_to_stdout_and_text() -> None:
    uzun = position_id(variant_by_name("uzun").start_position())
    result = run("--variant", "uzun", "--position", uzun, "--out", "-", "--theme", "dark")
    assert result.returncode == 0
    assert Image.open(io.BytesIO(result.stdout)).format == "PNG"
    result = run("--variant", "uzun", "--position", uzun, "--text")
    assert result.returncode == 0
    assert "pips 360" in result.stdout.decode()


def test_cli_rejects_a_bad_position() -> None:
    result = run("--variant", "tavla", "--position", "not-an-id")
    assert result.returncode == 2
    assert b"Position ID" in result.stderr


def test_match_id_gives_cube_score_and_dice() -> None:
    info = MatchIdInfo(
        cube_value=8,
        cube_owner=1,
        on_roll=0,
        crawford=False,
        dice=(6, 5),
        match_length=7,
        score=(3, 1),
    )
    args = build_parser().parse_args(
        [
            "--variant",
            "tavla",
            "--position",
            OPENING,
            "--match-id",
            match_id(info),
            "--viewer",
            "opponent",
        ]
    )
    view = view_from_args(args)
    # gnubg's player on roll (0) is our mover, White; the cube is on Black's side.
    assert view.to_move == WHITE
    assert view.viewer == BLACK
    assert (view.cube_value, view.cube_owner) == (8, BLACK)
    assert dict(view.score) == {WHITE: 3, BLACK: 1}
    assert view.match_length == 7
    assert view.dice == (6, 5)


def test_gallery_writes_the_review_set(tmp_path: Path) -> None:
    files = write_gallery(tmp_path, themes=["contrast"], width=500, replay=False)
    names = {f.name for f in files}
    assert "contrast-tavla-hit-on-bar.png" in names
    assert "contrast-tavla-cube-8-black.png" in names
    assert "contrast-uzun-both-heads.png" in names
    assert "contrast-uzun-six-block.png" in names
    for f in files:
        assert f.stat().st_size > 0


def test_cli_draws_the_home_on_the_left() -> None:
    args = build_parser().parse_args(["--variant", "tavla", "--position", OPENING])
    assert view_from_args(args).home == "right"
    args = build_parser().parse_args(
        ["--variant", "tavla", "--position", OPENING, "--home", "left"]
    )
    assert view_from_args(args).home == "left"
    result = run("--variant", "tavla", "--position", OPENING, "--home", "up", "--text")
    assert result.returncode == 2


def test_gallery_with_the_home_on_the_left(tmp_path: Path) -> None:
    files = write_gallery(tmp_path, themes=["dark"], width=400, replay=False, home="left")
    opening = (tmp_path / "tavla-opening.txt").read_text(encoding="utf-8").splitlines()
    # The bottom row of point numbers runs 1..12 from the left.
    assert opening[14][:43].split() == [str(p) for p in range(1, 13)]
    assert tmp_path / "dark-uzun-both-heads.png" in files
