"""Shared fixtures: a PostgreSQL database for the storage tests, when one is configured.

Set ``TAVLA_TEST_POSTGRES_URL`` (e.g. ``postgresql://tavla:tavla@127.0.0.1:5432/tavla_test``)
to run the storage tests against PostgreSQL as well as SQLite; ``.ci/run`` starts a local
server and sets it. Without it, the PostgreSQL cases are skipped.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

POSTGRES_URL_VARIABLE = "TAVLA_TEST_POSTGRES_URL"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test database's URL, or a skip when none is configured."""
    url = os.environ.get(POSTGRES_URL_VARIABLE, "").strip()
    if not url:
        pytest.skip(
            f"PostgreSQL tests need {POSTGRES_URL_VARIABLE}, e.g. "
            "postgresql://tavla:tavla@127.0.0.1:5432/tavla_test (.ci/run starts a server)"
        )
    return url


def _run_sql(url: str, sql: str) -> None:
    """Run one statement on its own connection, in a thread with its own event loop (so the
    test's event loop is not touched)."""

    async def run() -> None:
        import asyncpg

        conn = await asyncpg.connect(url, timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[tuple[str, str]]:
    """``(url, schema)``: a fresh, empty schema in the test database, dropped afterwards.

    Connect with ``server_settings={"search_path": schema}`` so that every table is created
    in it: each test gets a database of its own.
    """
    schema = f"tavla_test_{uuid.uuid4().hex[:16]}"
    _run_sql(postgres_url, f'CREATE SCHEMA "{schema}"')
    try:
        yield postgres_url, schema
    finally:
        _run_sql(postgres_url, f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
