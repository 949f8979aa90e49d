"""The embedded default store: one SQLite file, WAL mode, versioned schema migrations.

Why this file is long (~530 lines): it is one backend's whole contract in SQLite's SQL (its reads,
its writes under one file lock, purge, check and the saved views of a store's file); what is
shared with PostgreSQL is :mod:`~citegraph.store.sql`.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import tempfile
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citegraph.errors import StaleWrite, StoreError, StoreLocked, UserError, store_error
from citegraph.models import Document
from citegraph.settings import DEFAULTS
from citegraph.store.base import Problem, StoredDocument, WritePart, graph_problems, only_held_labels, read_migrations, vector_problems
from citegraph.store.connections import sqlite_connection
from citegraph.store.snapshots import ViewCache
from citegraph.store.sql import DOCUMENT_COUNTS, SQLStore
from citegraph.store.urls import redact_url

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]


def _migrations() -> list[tuple[int, str]]:
    return read_migrations("migrations")


SCHEMA_VERSION = _migrations()[-1][0]

# Documents the caller may read: current ones (or all versions), and, unless the caller is
# unrestricted (labels NULL), only those carrying at least one of the caller's labels.
# A supersession hides the old document only from a caller who may read the replacement: for any
# other caller nothing about the replacement exists, and the old document stays current.
_READABLE = """(d.current = 1 OR :superseded)
      AND (:superseded OR NOT EXISTS (
          SELECT 1 FROM supersessions s WHERE s.old_id = d.doc_id AND (:labels IS NULL OR EXISTS (
              SELECT 1 FROM document_access n WHERE n.doc_id = s.new_id AND n.label IN (SELECT value FROM json_each(:labels))))))
      AND (:labels IS NULL OR EXISTS (
          SELECT 1 FROM document_access a
          WHERE a.doc_id = d.doc_id AND a.version = d.version
            AND a.label IN (SELECT value FROM json_each(:labels))))"""
_VISIBLE = f"""
WITH visible(doc_id, version) AS MATERIALIZED (  -- checked once per document, not once per row joined to it
    SELECT d.doc_id, d.version FROM documents d
    WHERE {_READABLE}
)
"""
_ROWS = 16384  # rows fetched at a time by the columnar read: bounded memory for the Python row objects
#: sentences up to which an ingest reads back every record before it writes (refuse_if_damaged)
RECORDS_CHECKED_UP_TO = 50_000


def _statements(script: str) -> list[str]:
    """A migration script cut into single statements, so they can run inside one transaction
    (``executescript`` would commit first)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not all(line.strip().startswith("--") or not line.strip() for line in buffer.splitlines()):
        raise StoreError(f"incomplete statement at the end of a migration: {buffer.strip()[:80]!r}")
    return statements


class SQLiteStore(SQLStore):
    _VISIBLE = _VISIBLE  #: the versions a caller may read, as a WITH clause

    def __init__(self, path: str | Path = ":memory:", *, create: bool = True, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        """Open the store at ``path``; with ``create=False`` (what read commands use) a missing store is
        an error rather than a new empty one. A write waits up to ``lock_timeout`` seconds for another
        process's write lock, then raises :class:`StoreLocked`."""
        self.path = str(path)
        self.lock_timeout = lock_timeout
        if "://" in self.path:  # never a file name: say so without echoing a password
            raise UserError(f"{redact_url(self.path)}: a URL, not a SQLite file (citegraph.store.open_store opens postgresql:// stores)")
        if self.path != ":memory:":
            if not create and not Path(self.path).is_file():
                raise UserError(f"no store at {self.path}; ingest documents first or check --db")
            parent = Path(self.path).parent
            if not parent.is_dir():
                raise UserError(f"{self.path}: folder {parent} does not exist (create it or choose another --db)")
        if create and self.path != ":memory:" and not Path(self.path).exists():
            self._create_file()
        try:
            self.db = sqlite_connection(self.path, timeout=lock_timeout)
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc) from exc
        try:
            # Opening an existing, current store writes nothing and takes no lock: these three pragmas
            # set this connection alone, the journal mode is only read (a new store is made in WAL mode
            # by _create_file), and the migration check is one SELECT. So a reader opening the store
            # while a writer holds its write lock starts at once, on the last committed state.
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute(f"PRAGMA busy_timeout = {int(lock_timeout * 1000)}")
            # Deleted rows are overwritten with zeros, so a removed document's text does not linger in
            # free pages of the file (``rm`` also checkpoints the WAL).
            self.db.execute("PRAGMA secure_delete = ON")
            if self.path != ":memory:":
                self.db.execute("PRAGMA synchronous = NORMAL")
            if not create and self.path != ":memory:" and self._schema_version_or_0() == 0:
                raise UserError(f"{self.path}: not a citegraph store (it has no citegraph schema); ingest documents first or check --db")
            if self.path != ":memory:" and self.db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                self.db.execute("PRAGMA journal_mode = WAL")  # a store made before stores were made in WAL mode: once
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise store_error(self.path, exc, waited=lock_timeout) from exc
        except BaseException:
            self.db.close()
            raise

    def _create_file(self) -> None:
        """Make a new store at ``path`` whole or not at all: the schema is written to a private file
        beside it, which is then linked into place only if nothing is there yet. A reader never opens
        a half-made store (one with no schema yet), and of two processes creating one store at once,
        one file wins and the other's is dropped unread."""
        target = Path(self.path)
        try:
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".new", dir=target.parent)
        except OSError as exc:
            raise UserError(
                f"{self.path}: cannot create the store ({exc.strerror or exc}); make the folder writable, or choose another --db"
            ) from exc
        os.close(fd)
        draft = Path(name)
        try:
            db = sqlite3.connect(name, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                self.db = db
                self._migrate()
            finally:
                db.close()  # the last connection: folds the WAL in and removes it
            try:
                os.link(draft, target)  # fails if another process created the store meanwhile: theirs stands
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links: a rename, unless the store appeared meanwhile
                if not target.exists():
                    os.replace(draft, target)
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc) from exc
        finally:
            for leftover in (draft, Path(name + "-wal"), Path(name + "-shm")):
                leftover.unlink(missing_ok=True)

    # -- schema -----------------------------------------------------------------------------------
    def _migrations(self) -> list[tuple[int, str]]:
        return _migrations()

    def _run_script(self, script: str) -> None:
        for statement in _statements(script):  # one at a time: executescript would commit first
            self.db.execute(statement)

    def _schema_version_or_0(self) -> int:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.OperationalError:  # no meta table yet: a new store
            return 0
        return int(row[0]) if row else 0

    def schema_version(self) -> int:
        return int(self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])

    def close(self) -> None:
        self.db.close()

    def change_token(self) -> object:
        return (self.db.execute("PRAGMA data_version").fetchone()[0], self.db.total_changes)

    def _changed(self) -> None:
        # The store's generation, raised last in every write transaction: what names a saved graph.
        # With it a random token, new at every write: a counter alone repeats when a backup is
        # restored and written to again (or a new store is made at an old path), and a saved graph
        # of the other contents would then be served under the same name.
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES ('generation', '1')"
            " ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
        )
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation_token', ?)", (secrets.token_hex(12),))

    def generation(self) -> str | None:
        rows = dict(self.db.execute("SELECT key, value FROM meta WHERE key IN ('generation', 'generation_token')").fetchall())
        if "generation_token" not in rows:  # never written, or last written by a citegraph without tokens
            return None
        return f"{int(rows.get('generation', 0))}-{rows['generation_token']}"

    def view_cache(self) -> ViewCache | None:
        return None if self.path == ":memory:" else ViewCache(Path(self.path + ".views"))

    def embedder_name(self) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        return row[0] if row else None

    def set_embedder_name(self, name: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embedder', ?)", (name,))

    # -- documents --------------------------------------------------------------------------------
    def _document(self, row: sqlite3.Row | tuple) -> Document:
        doc_id, version, label, source, media_type, ingested_at, text, current, dated, superseded_by = row
        access = tuple(
            r[0]
            for r in self.db.execute("SELECT label FROM document_access WHERE doc_id = ? AND version = ? ORDER BY label", (doc_id, version))
        )
        return Document(
            doc_id, version, text, source, access, label, ingested_at, bool(current), media_type, dated, superseded_by=superseded_by
        )

    _DOC_COLUMNS = (
        "d.doc_id, d.version, d.label, d.source, d.media_type, d.ingested_at, d.text, d.current, d.dated, "
        "(SELECT s.new_id FROM supersessions s WHERE s.old_id = d.doc_id)"
    )
    _DOC_WIDTH = 10

    def get_document(self, doc_id: str, version: str | None = None) -> Document | None:
        with self._reading():
            return self._get_document(doc_id, version)

    def _get_document(self, doc_id: str, version: str | None) -> Document | None:
        if version is None:
            row = self.db.execute(f"SELECT {self._DOC_COLUMNS} FROM documents d WHERE d.doc_id = ? AND d.current = 1", (doc_id,)).fetchone()
        else:
            row = self.db.execute(
                f"SELECT {self._DOC_COLUMNS} FROM documents d WHERE d.doc_id = ? AND d.version = ?", (doc_id, version)
            ).fetchone()
        return self._document(row) if row else None

    def document_status(self, doc_id: str, version: str) -> str | None:
        row = self.db.execute("SELECT status FROM documents WHERE doc_id = ? AND version = ?", (doc_id, version)).fetchone()
        return row[0] if row else None

    def document_access(self, doc_id: str) -> tuple[str, ...] | None:
        return self._document_access(doc_id)

    def _set_access(self, doc_id: str, access: Sequence[str]) -> None:
        # Labels are the document's, not one version's: an old version must not stay readable to
        # callers the current labels exclude (nor tell them a newer version exists).
        self.db.execute("DELETE FROM document_access WHERE doc_id = ?", (doc_id,))
        self.db.executemany(
            "INSERT INTO document_access (doc_id, version, label) SELECT doc_id, version, ? FROM documents WHERE doc_id = ?",
            [(label, doc_id) for label in sorted(set(access))],
        )

    def _writing(self) -> _Transaction:
        return _Transaction(self)

    def _execute(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        return self.db.execute(sql, params)

    def _execute_many(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self.db.executemany(sql, rows)

    # -- writes -----------------------------------------------------------------------------------
    def _stored_keys(self, keys: list[str]) -> set[str]:
        return {
            r[0] for r in self.db.execute("SELECT key FROM entities WHERE key IN (SELECT value FROM json_each(?))", (json.dumps(keys),))
        }

    def _write_part(self, doc: Document, extractor: str, part: WritePart) -> int:
        """Insert one part's rows; returns the relation rows stored."""
        span_ids: dict[tuple[int, int], int] = {}
        for (span, kind), vector in zip(part.spans, part.span_vectors, strict=True):
            if doc.text[span.start : span.end] != span.text:
                raise StoreError(f"{doc.id}: span {span.start}-{span.end} does not slice to its text")
            cur = self.db.execute(
                "INSERT INTO spans (doc_id, version, start_char, end_char, text, kind, vector, frame) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (doc.id, doc.version, span.start, span.end, span.text, kind, np.asarray(vector, np.float32).tobytes(), span.frame),
            )
            span_ids[(span.start, span.end)] = int(cur.lastrowid or 0)
        keys = {m.key for m in part.mentions} | {k for r in part.relations for k in (r.source_key, r.target_key)}
        for key in sorted(self.missing_keys(keys)):
            vector = part.key_vectors.get(key)
            if vector is None:
                raise StaleWrite(doc.id, key)  # deemed stored when indexed, removed since
            self.db.execute("INSERT INTO entities (key, key_vector) VALUES (?, ?)", (key, np.asarray(vector, np.float32).tobytes()))
        entity_ids = dict(
            self.db.execute("SELECT key, id FROM entities WHERE key IN (SELECT value FROM json_each(?))", (json.dumps(sorted(keys)),))
        )
        self.db.executemany(
            "INSERT INTO mentions (entity_id, span_id, start_char, end_char, surface, type, description, inferred, extractor)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    entity_ids[m.key],
                    span_ids[(m.span.start, m.span.end)],
                    m.start,
                    m.end,
                    m.surface,
                    m.type,
                    m.description,
                    int(m.inferred),
                    extractor,
                )
                for m in part.mentions
            ],
        )
        before = self.db.total_changes
        self.db.executemany(
            "INSERT OR IGNORE INTO relations (source_id, target_id, type, span_id, source_name, target_name, description, extractor)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    entity_ids[r.source_key],
                    entity_ids[r.target_key],
                    r.type,
                    span_ids[(r.sentence.start, r.sentence.end)],
                    r.source_name,
                    r.target_name,
                    r.description,
                    extractor,
                )
                for r in part.relations
            ],
        )
        return self.db.total_changes - before

    def _drop_orphans(self, candidates: Collection[int]) -> int:
        """Delete those of ``candidates`` that no mention supports any more. Returns how many went."""
        if not candidates:
            return 0
        before = self.db.total_changes
        self.db.execute(
            "DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))"
            " AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = entities.id)"
            " AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.source_id = entities.id OR r.target_id = entities.id)",
            (json.dumps(sorted(candidates)),),
        )
        return self.db.total_changes - before

    def purge(self, wait_ms: int = 5000) -> bool:
        """Fold the WAL into the main file and truncate it, so deleted text (zeroed by secure_delete
        in the new pages) is not left in old page images. False if another connection's open read
        kept the checkpoint from finishing within ``wait_ms``; the next purge finishes the job. Saved
        caller graphs (``STORE.views/``) are removed too."""
        if self.path == ":memory:":
            return True
        cache = self.view_cache()
        if cache is not None:
            cache.clear()  # saved graphs of earlier generations may hold the deleted text
        self.db.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            busy, log_frames, _done = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            self.db.execute(f"PRAGMA busy_timeout = {int(self.lock_timeout * 1000)}")
        return busy == 0 and log_frames in (0, -1)

    def check(self) -> list[Problem]:
        problems: list[Problem] = []
        try:
            self._check(problems)
        except (sqlite3.DatabaseError, StoreError) as exc:  # raw, or as the read transaction translated it
            cause = exc.__cause__ if isinstance(exc, StoreError) and exc.__cause__ is not None else exc
            if isinstance(exc, StoreLocked) or str(getattr(cause, "sqlite_errorname", "")).startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
                raise  # a lock is not damage
            # A damaged page is a finding, not a crash; the checks that ran before it keep their findings.
            problems.append(
                Problem(
                    "sqlite",
                    f"{self.path}: the file cannot be read ({cause}); restore it from a backup, or recover what is "
                    f"readable with: sqlite3 {self.path} .recover",
                )
            )
        return problems

    def refuse_if_damaged(self) -> None:
        # SQLite's quick_check reads every page once (no index-to-table cross-check): about a second
        # per gigabyte, paid once per ingest run. Damage inside a record (bytes overwritten within a
        # vector or a sentence) passes it: the records themselves are read back too, all of them in
        # a store of up to RECORDS_CHECKED_UP_TO sentences (a fraction of a second); in a larger one,
        # the write path checks the stored rows it reuses (stored_vectors).
        if self.path == ":memory:":
            return
        try:
            with self._reading():
                findings = [r[0] for r in self.db.execute("PRAGMA quick_check") if r[0] != "ok"]
                if not findings and self._count("SELECT count(*) FROM spans", ()) <= RECORDS_CHECKED_UP_TO:
                    findings = [p.detail for p in self._record_problems()]
        except sqlite3.DatabaseError as exc:  # the damage stopped the check itself
            findings = [str(exc)]
        except StoreError as exc:
            if isinstance(exc, StoreLocked):
                raise
            findings = [str(exc.__cause__ or exc)]
        if findings:
            raise self.damaged(findings[0])

    def _check(self, problems: list[Problem]) -> list[Problem]:
        with self._reading():
            problems += [Problem("sqlite", r[0]) for r in self.db.execute("PRAGMA integrity_check") if r[0] != "ok"]
            problems += [
                Problem("dangling_reference", f"{table} row {rowid} points at a missing {parent} row")
                for table, rowid, parent, _fk in self.db.execute("PRAGMA foreign_key_check")
            ]
            problems += [
                Problem("no_current_version", f"document {d!r} has versions but none is current")
                for (d,) in self.db.execute("SELECT doc_id FROM documents GROUP BY doc_id HAVING sum(current) != 1")
            ]
            problems += self._record_problems()
            problems += graph_problems(self.db.execute)
        return problems

    def _record_problems(self) -> list[Problem]:
        """What the records hold that a page check cannot see: a sentence that does not slice out of
        its document, a vector that is not finite and unit-length, vectors of different sizes."""
        problems: list[Problem] = []
        dims: set[int] = set()
        held, document = None, ""  # spans come grouped by document: hold one document's text at a time
        for sid, doc_id, version, start, end, text, vector in self.db.execute(
            "SELECT id, doc_id, version, start_char, end_char, text, vector FROM spans ORDER BY doc_id, version"
        ):
            if held != (doc_id, version):
                held = (doc_id, version)
                row = self.db.execute("SELECT text FROM documents WHERE doc_id = ? AND version = ?", held).fetchone()
                document = row[0] if row else ""
            if document[start:end] != text:
                problems.append(Problem("offsets", f"span {sid} ({doc_id}@{version} {start}-{end}) does not slice to its sentence"))
            problems += vector_problems(f"span {sid}", vector, dims)
        for key, vector in self.db.execute("SELECT key, key_vector FROM entities"):
            problems += vector_problems(f"entity {key!r}", vector, dims)
        if len(dims) > 1:
            problems.append(Problem("vector", f"vectors of different sizes in one store: {sorted(dims)}"))
        return problems

    def _reading(self) -> _Transaction:
        """One read transaction: every SELECT inside sees the same snapshot, whatever a writer commits.
        Inside :meth:`snapshot` (or any open transaction) it joins that one."""
        return _Transaction(self, "BEGIN", join=True)

    def snapshot(self) -> _Transaction:
        """``with store.snapshot():`` makes several reads (documents, graph, check) see one state."""
        return self._reading()

    # -- reads ------------------------------------------------------------------------------------
    @staticmethod
    def _params(labels: Collection[str] | None, include_superseded: bool) -> dict[str, Any]:
        return {"labels": None if labels is None else json.dumps(sorted(labels)), "superseded": int(include_superseded)}

    def documents(self, labels: Collection[str] | None, include_superseded: bool = True, doc_id: str | None = None) -> list[StoredDocument]:
        with self._reading():
            return self._documents(labels, include_superseded, doc_id)

    def _documents(self, labels: Collection[str] | None, include_superseded: bool, doc_id: str | None) -> list[StoredDocument]:
        rows = self.db.execute(
            _VISIBLE
            + f"""
            SELECT {self._DOC_COLUMNS}, d.status, d.extractor,
                {DOCUMENT_COUNTS}
            FROM documents d JOIN visible v ON v.doc_id = d.doc_id AND v.version = d.version
            WHERE :doc_id IS NULL OR d.doc_id = :doc_id
            ORDER BY d.doc_id, d.current DESC, d.rowid DESC  -- newest ingest first (ingested_at has 1 s resolution)
            """,
            {**self._params(labels, include_superseded), "doc_id": doc_id},
        ).fetchall()
        w = self._DOC_WIDTH
        out = [StoredDocument(self._document(r[:w]), *r[w : w + 6]) for r in rows]
        return only_held_labels(out, labels, self._replacement_access())

    def visible(self, labels: Collection[str] | None, include_superseded: bool = False) -> set[tuple[str, str]]:
        rows = self.db.execute(_VISIBLE + "SELECT doc_id, version FROM visible", self._params(labels, include_superseded))
        return {(r[0], r[1]) for r in rows}

    def visible_among(
        self, labels: Collection[str] | None, include_superseded: bool, versions: Collection[tuple[str, str]]
    ) -> set[tuple[str, str]]:
        """Those of ``versions`` (``(document id, version)``) the caller may read: :meth:`visible`'s
        check for the few versions one answer cites, without listing every readable version."""
        if not versions:
            return set()
        rows = self.db.execute(
            f"""SELECT d.doc_id, d.version FROM json_each(:wanted) w
            JOIN documents d ON d.doc_id = json_extract(w.value, '$[0]') AND d.version = json_extract(w.value, '$[1]')
            WHERE {_READABLE}""",
            {**self._params(labels, include_superseded), "wanted": json.dumps(sorted(set(versions)))},
        )
        return {(r[0], r[1]) for r in rows}

    def _batches(self, sql: str, params: dict[str, Any]) -> Iterator[list[tuple[Any, ...]]]:
        cursor = self.db.execute(sql, params)  # runs its query when first read
        while rows := cursor.fetchmany(_ROWS):
            yield rows

    def _entity_rows(self, ids: list[int]) -> dict[int, tuple[str, bytes]]:
        rows = self.db.execute("SELECT id, key, key_vector FROM entities WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
        return {r[0]: (r[1], r[2]) for r in rows}


class _Transaction:
    """``BEGIN IMMEDIATE`` (or another BEGIN) ... ``COMMIT``, rolled back on any exception. A SQLite
    error inside (a lock held elsewhere, a read-only file, a damaged page, a full disk) leaves as the
    citegraph error its user can act on, naming the store, for the Python API as for the CLI."""

    def __init__(self, store: SQLiteStore, begin: str = "BEGIN IMMEDIATE", *, join: bool = False) -> None:
        self.store = store
        self.db = store.db
        self.begin = begin
        self.join = join
        self.owner = True

    def __enter__(self) -> None:
        self.owner = not (self.join and self.db.in_transaction)
        if self.owner:
            try:
                self.db.execute(self.begin)
            except sqlite3.Error as exc:
                raise store_error(self.store.path, exc, waited=self.store.lock_timeout) from exc

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        if not self.owner:
            return
        try:
            if exc_type is None:
                self.db.execute("COMMIT")
            elif self.db.in_transaction:  # SQLite may already have rolled back (disk full, I/O error)
                self.db.execute("ROLLBACK")
        except sqlite3.Error as error:
            raise store_error(self.store.path, error, waited=self.store.lock_timeout) from error
        if isinstance(exc, sqlite3.Error):
            raise store_error(self.store.path, exc, waited=self.store.lock_timeout) from exc
