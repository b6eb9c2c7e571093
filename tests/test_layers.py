"""Dependencies point one way (design.md, the README's contributor section): every import of
every module, also those inside functions, is checked against what its layer may import."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Chat and network libraries, and asyncio: the async world, which core and renderers are not.
ASYNC_WORLD = ("asyncio", "telegram", "discord", "aiohttp", "aiosqlite", "asyncpg")
ADAPTERS = ("bot.telegram", "bot.discord", "bot.console")
OUTSIDE = ("tests", "bench", "tools")

#: (package, what its modules must not import). A name forbids itself and everything below it.
RULES: list[tuple[str, tuple[str, ...]]] = [
    ("core", ("bot", "renderers", "PIL", *ASYNC_WORLD, *OUTSIDE)),
    ("renderers", ("bot", *ASYNC_WORLD, *OUTSIDE)),
    ("bot.storage", ("bot.service", "bot.web", "renderers", *ADAPTERS, *OUTSIDE)),
    ("bot.service", ("bot.web", *ADAPTERS, *OUTSIDE)),
    ("bot.telegram", ("bot.storage", "bot.discord", "bot.console", *OUTSIDE)),
    ("bot.discord", ("bot.storage", "bot.telegram", "bot.console", *OUTSIDE)),
    ("bot.console", ("bot.storage", "bot.telegram", "bot.discord", *OUTSIDE)),
    ("bot.web", ("bot.discord", "bot.console", *OUTSIDE)),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.add(module)
            # ``from . import actions`` imports a module too.
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(package: str, forbidden: tuple[str, ...]) -> list[str]:
    folder = ROOT.joinpath(*package.split("."))
    found = []
    for path in sorted(folder.rglob("*.py")):
        for name in sorted(imports_of(path)):
            for prefix in forbidden:
                if within(name, prefix) and not within(name, package):
                    found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


@pytest.mark.parametrize(("package", "forbidden"), RULES, ids=[r[0] for r in RULES])
def test_layers_import_only_downwards(package: str, forbidden: tuple[str, ...]):
    assert violations(package, forbidden) == []


def test_the_checker_sees_a_forbidden_import(tmp_path, monkeypatch):
    # The check itself can fail: a core module that imports the service is caught.
    fake_root = tmp_path
    (fake_root / "core").mkdir()
    (fake_root / "core" / "__init__.py").write_text("")
    (fake_root / "core" / "bad.py").write_text(
        "def f():\n    from bot.service import views\n    from . import good\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    assert violations("core", ("bot",)) == [
        "core/bad.py imports bot.service",
        "core/bad.py imports bot.service.views",
    ]
