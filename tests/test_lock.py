"""The dependencies: floors past the published advisories, and requirements.lock (what CI and
the container install, with hashes) holding every dependency pyproject.toml asks for."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
#: The newest release of each package with a published advisory (fixed in the next one).
LAST_VULNERABLE = {"aiohttp": "3.14.3", "pillow": "12.3.0"}


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = [*project["dependencies"], *extras["dev"], *extras["gnubg"], *extras["browser"]]
    return [Requirement(line) for line in wanted]


def locked(name: str = "requirements.lock") -> dict[str, tuple[Version, list[str]]]:
    """Each package of a lock: its pinned version and its hashes."""
    text = (ROOT / name).read_text()
    pins: dict[str, tuple[Version, list[str]]] = {}
    for block in re.split(r"\n(?=[a-z0-9])", text):
        first = block.split("\\", 1)[0].strip()
        if not first or first.startswith("#"):
            continue
        name, _, version = first.partition("==")
        assert version, f"not pinned: {first}"
        pins[canonicalize_name(name)] = (
            Version(version.split(";")[0].strip()),
            re.findall(r"--hash=sha256:([0-9a-f]{64})", block),
        )
    return pins


def test_floors_leave_out_the_releases_with_advisories():
    specs = {canonicalize_name(r.name): r.specifier for r in requirements()}
    for name, version in LAST_VULNERABLE.items():
        assert version not in specs[name], (name, str(specs[name]))


def test_the_lock_pins_every_dependency_within_pyproject_with_hashes():
    pins = locked()
    assert len(pins) > 20
    assert all(hashes for _, hashes in pins.values())
    for requirement in requirements():
        version, _ = pins[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)


def test_ci_installs_from_the_lock_with_hashes():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install --quiet --require-hashes -r requirements.lock" in ci
    assert "pip install --quiet --no-deps -e ." in ci


def test_the_runtime_lock_is_the_bots_part_of_the_lock():
    """requirements.runtime.lock (the container image's) pins what the bot runs with, each
    as requirements.lock pins it, and nothing of the test and lint tools."""
    everything = locked()
    runtime = locked("requirements.runtime.lock")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for line in [*project["dependencies"], *project["optional-dependencies"]["gnubg"]]:
        assert canonicalize_name(Requirement(line).name) in runtime, line
    for name, (version, hashes) in runtime.items():
        assert everything[name] == (version, hashes), name
    assert not {"pytest", "mypy", "ruff", "playwright"} & set(runtime)
