"""Fixtures: an app on SQLite and (marker ``postgres``) on a real PostgreSQL server."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the server extras are not installed: pip install -e '.[server]'")

from fastapi.testclient import TestClient

from tessera.server.http.app import create_app
from tessera.server.match.service import MatchService
from tessera.server.store.storage import Storage
from tests.server.pg import postgres_cluster

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server URL: ``TESSERA_TEST_POSTGRES_URL`` or a throwaway cluster."""
    try:
        with postgres_cluster() as url:
            yield url
    except (FileNotFoundError, RuntimeError) as e:
        if CI:
            pytest.fail(f"PostgreSQL tests must run under CI: {e}")
        pytest.skip(f"no PostgreSQL server: {e}")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('db') / 'tessera.db'}"
    base: str = request.getfixturevalue("postgres_url")
    import sqlalchemy as sa

    name = "t_" + uuid.uuid4().hex[:12]
    engine = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return base.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """A test client of an app whose AI thinks in a thread, briefly."""
    app = create_app(db_url, ai_mode="thread", ai_seconds=0.01)
    with TestClient(app) as c:
        yield c


@pytest.fixture
def services(db_url: str) -> Iterator[tuple[MatchService, MatchService]]:
    """Two services on one database: two server processes as far as the database can tell."""
    a, b = MatchService(Storage(db_url)), MatchService(Storage(db_url))
    yield a, b
    a.storage.dispose()
    b.storage.dispose()
