"""Dependencies point one way (design.md, docs/architecture.md): every import of
every module, also those inside functions, is checked against what its layer may import.

No adapter (Telegram, Discord, the console, the web board) imports storage or reads it
through the service's ``storage``: they ask the service. Only the module that builds the
application (``bot/__main__.py``) opens storage and hands it to the service."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Chat and network libraries, and asyncio: the async world, which core and renderers are not.
ASYNC_WORLD = ("asyncio", "telegram", "discord", "aiohttp", "aiosqlite", "asyncpg")
ADAPTERS = ("bot.telegram", "bot.discord", "bot.console")
#: Everything that talks to people: the chat adapters and the web board.
FRONTS = (*ADAPTERS, "bot.web")
#: The one module that builds the application: storage, the service over it, the adapters.
COMPOSITION_ROOT = "bot.__main__"
#: The operator's ``tavla`` command opens storage too (migrate, backup, check), and the
#: configuration reads DATABASE_URL with the storage's own URL parser (no storage opened).
OPERATOR_ROOTS = {"bot.cli": None, "bot.config": "bot.storage.factory"}
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
    ("bot.web", ("bot.storage", "bot.discord", "bot.console", *OUTSIDE)),
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


def storage_reads(package: str) -> list[str]:
    """Where modules of ``package`` reach for a ``storage`` attribute (``service.storage``)."""
    folder = ROOT.joinpath(*package.split("."))
    found = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "storage":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} reads .storage")
    return found


@pytest.mark.parametrize(("package", "forbidden"), RULES, ids=[r[0] for r in RULES])
def test_layers_import_only_downwards(package: str, forbidden: tuple[str, ...]):
    assert violations(package, forbidden) == []


@pytest.mark.parametrize("package", FRONTS)
def test_no_adapter_reads_storage_through_the_service(package: str):
    assert storage_reads(package) == []


def test_only_the_composition_root_imports_storage():
    # Outside storage and the service, one module of bot/ opens storage: the one that
    # builds the application and hands the storage to the service.
    importers = set()
    for path in sorted((ROOT / "bot").rglob("*.py")):
        name = module_name(path)
        if within(name, "bot.storage") or within(name, "bot.service"):
            continue
        storage = {i for i in imports_of(path) if within(i, "bot.storage")}
        allowed = OPERATOR_ROOTS.get(name)
        if allowed is not None:
            storage = {i for i in storage if not within(i, allowed)}
        if storage:
            importers.add(name)
    assert importers == {COMPOSITION_ROOT, "bot.cli"}


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


def test_the_checker_sees_storage_read_through_the_service(tmp_path, monkeypatch):
    (tmp_path / "bot" / "web").mkdir(parents=True)
    (tmp_path / "bot" / "web" / "page.py").write_text(
        "async def f(service):\n    return await service.storage.get_game(1)\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert storage_reads("bot.web") == ["bot/web/page.py:2 reads .storage"]
