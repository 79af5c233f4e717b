"""``tessera admin backup`` / ``restore`` (issue 42): 'back up under load, restore, every acknowledged
move there' — a short drill of ``benchmarks/backup_drill.py`` on both databases — and the refusals
that keep a restore from mixing into live data."""

from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path
from types import ModuleType

import pytest
import sqlalchemy as sa

from tessera.server.store.backup import BackupError, backup, restore
from tessera.server.store.storage import Storage

ROOT = Path(__file__).resolve().parents[2]


def drill_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("backup_drill", ROOT / "benchmarks" / "backup_drill.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def empty_database_beside(url: str, tmp_path: Path) -> str:
    """A new, empty database of the same kind as ``url``."""
    if url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / ('restored-' + uuid.uuid4().hex[:6] + '.db')}"
    name = "r_" + uuid.uuid4().hex[:12]
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        c.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return url.rsplit("/", 1)[0] + "/" + name


def test_backup_under_load_restores_every_acknowledged_move(db_url: str, tmp_path: Path) -> None:
    """Moves stream into a real server while ``tessera admin backup`` runs; after ``tessera admin restore``
    into a fresh database every move acknowledged before the backup began is there, and nothing else
    than acknowledged moves, in their order."""
    result = drill_module().drill(
        db_url,
        empty_database_beside(db_url, tmp_path),
        tmp_path,
        clients=3,
        warm=0.5,
        after=0.5,
        game="nume(size=3)",
        warm_moves=60,
    )
    assert result["load_errors"] == []
    assert result["moves_acknowledged_before_backup"] > 20, result  # there was load to back up
    assert result["missing"] == [] and result["foreign"] == [], result
    assert result["moves_restored"] >= result["moves_acknowledged_before_backup"]


def test_restore_refuses_a_database_that_holds_data(db_url: str, tmp_path: Path) -> None:
    """A restore never writes into a database with tables; a backup never overwrites a file."""
    Storage(db_url).dispose()  # the schema
    made = backup(db_url, tmp_path / "b")
    with pytest.raises(BackupError, match="never overwrites"):
        backup(db_url, tmp_path / "b")
    with pytest.raises(BackupError, match="already"):
        restore(made.path, db_url)


def test_restore_refuses_a_backup_of_the_other_kind_or_no_backup(tmp_path: Path) -> None:
    """An SQLite backup is not loaded into PostgreSQL, and a file that is no backup is named as such."""
    url = f"sqlite:///{tmp_path / 'a.db'}"
    Storage(url).dispose()
    made = backup(url, tmp_path / "a.backup")
    with pytest.raises(BackupError, match="cannot be restored into postgresql"):
        restore(made.path, "postgresql+psycopg://nobody@127.0.0.1:1/none")
    (tmp_path / "junk").write_text("hello")
    with pytest.raises(BackupError, match="not a tessera backup"):
        restore(tmp_path / "junk", f"sqlite:///{tmp_path / 'new.db'}")
