"""A caller's graph, read once and kept beside the store: saved :class:`GraphColumns` a later
process maps from disk instead of reading a million rows again.

Reading a caller's graph from SQLite costs about a second per 100,000 sentences (every row becomes
Python values before it becomes an array); a cold ``citegraph ask`` on a large store paid that on
every start. The first process to read a large graph (at least :data:`SAVE_ABOVE` sentences)
writes its columns to ``STORE.views/``: every array as a ``.npy`` file, mapped on load (pages are
read when a query touches them), the sentences' text as one UTF-8 file with offsets, the lists as
JSON. A view of a saved graph keeps there what it makes of it (:class:`Derived`: the mention graph,
the inverted-file indexes, per-sentence and per-passage arrays), so a later process builds nothing:
a cold ``ask`` at a million sentences maps it all in under 4 seconds.

* **Keyed by what was read.** A saved graph is named by the store's generation (a counter every
  write transaction raises and a random token it writes anew, in the same transaction), by the
  caller's labels and by whether superseded versions were read. A write makes every saved graph
  stale; one caller's graph never serves another's labels, and holds only what that caller may read
  (the store filtered it). The token is what makes a name unrepeatable: a restored backup written to
  again, a new store made at an old path or a store copied from another machine reaches the same
  counter with other contents, never the same token, so the folder left beside it is never served.
  The generation is also written inside the folder and checked against the live store's on load.
* **Never half a snapshot.** Written in a temporary directory and renamed into place; a directory
  without its ``complete`` marker is not read. Every other generation is removed when one is
  written, and all of them when a document is deleted (:meth:`SQLiteStore.purge`), so deleted text
  does not outlive ``rm`` here either.
* **Only the owner reads it**, as with the store file: the folder is created ``0700``.

The generation and the columns are read in one read transaction, so a graph is never saved under a
generation other than its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np

from citegraph.store.columns import GraphColumns

__all__ = ["SAVE_ABOVE", "Derived", "NothingKept", "TextColumn", "ViewCache"]

#: Visible sentences from which a caller's graph is saved (below it, reading the store is quick).
SAVE_ABOVE = 100_000
#: Part of every saved graph's name: raise it when what a file holds changes (a column, or what a
#: view computes under a name), so a newer citegraph never maps an older one's arrays.
FORMAT = 3

_ARRAYS = (
    "passage_current",
    "span_passage",
    "span_start",
    "span_end",
    "span_vectors",
    "key_vectors",
    "mention_entity",
    "mention_span",
    "mention_surface",
    "mention_inferred",
    "relation_id",
    "relation_source",
    "relation_target",
    "relation_type",
    "relation_span",
)
_LISTS = ("keys", "surfaces", "types")
_COMPLETE = "complete"
_GENERATION = "generation"
_CALLER = "caller.json"  #: whose graph it is (labels, superseded flag): what a writer prepares again


class TextColumn(Sequence[str]):
    """Texts held as one UTF-8 buffer and their byte offsets: a text is decoded when it is read."""

    def __init__(self, data: bytes | np.ndarray, offsets: np.ndarray) -> None:
        self.data = data
        self.offsets = offsets

    @classmethod
    def of(cls, texts: Sequence[str]) -> TextColumn:
        encoded = [t.encode("utf-8", "surrogatepass") for t in texts]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        return cls(b"".join(encoded), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = int(i)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        return bytes(self.data[int(self.offsets[i]) : int(self.offsets[i + 1])]).decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        data, offsets = bytes(self.data), self.offsets.tolist()
        for a, b in itertools.pairwise(offsets):
            yield data[a:b].decode("utf-8", "surrogatepass")


class Derived:
    """What a view computes from a saved graph (its indexes, per-sentence and per-passage arrays),
    kept in the graph's folder the first time it is computed: every later process maps it instead.
    Each name is written to a temporary file and renamed into place; a folder removed meanwhile (a
    newer generation, ``rm``) only means it is computed again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, name: str) -> np.ndarray | None:
        try:
            return np.load(self.folder / f"derived-{name}.npy", mmap_mode="r")
        except (OSError, ValueError):
            return None

    def put(self, name: str, array: np.ndarray) -> None:
        with contextlib.suppress(OSError):
            handle, temporary = tempfile.mkstemp(prefix=".derived-", suffix=".npy", dir=self.folder)
            try:
                with os.fdopen(handle, "wb") as out:
                    np.save(out, np.ascontiguousarray(array))
                os.replace(temporary, self.folder / f"derived-{name}.npy")
            except OSError:
                Path(temporary).unlink(missing_ok=True)
                raise

    def get_many(self, prefix: str, names: Sequence[str]) -> dict[str, np.ndarray] | None:
        found = {n: self.get(f"{prefix}.{n}") for n in names}
        return None if any(v is None for v in found.values()) else {n: v for n, v in found.items() if v is not None}

    def put_many(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        for name, array in arrays.items():
            self.put(f"{prefix}.{name}", array)

    def get_texts(self, name: str) -> TextColumn | None:
        data, offsets = self.get(f"{name}.text"), self.get(f"{name}.offsets")
        return None if data is None or offsets is None else TextColumn(data, np.asarray(offsets))

    def put_texts(self, name: str, texts: Sequence[str]) -> None:
        column = TextColumn.of(texts)
        self.put(f"{name}.text", np.frombuffer(bytes(column.data), dtype=np.uint8))
        self.put(f"{name}.offsets", column.offsets)

    # -- what a view calls: kept, or made now (and kept for the next process) ---------------------
    def array(self, name: str, make: Callable[[], np.ndarray]) -> np.ndarray:
        found = self.get(name)
        if found is None:
            found = make()
            self.put(name, found)
        return found

    def arrays(self, prefix: str, names: Sequence[str], make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        found = self.get_many(prefix, names)
        if found is None:
            found = make()
            self.put_many(prefix, found)
        return found

    def texts(self, name: str, make: Callable[[], Sequence[str]]) -> Sequence[str]:
        found = self.get_texts(name)
        if found is not None:
            return found
        made = make()
        self.put_texts(name, made)
        return made


class NothingKept(Derived):
    """Where a view of a graph that is not saved keeps what it makes: nowhere (it makes it each time)."""

    def __init__(self) -> None:
        super().__init__(Path())

    def get(self, name: str) -> np.ndarray | None:
        return None

    def put(self, name: str, array: np.ndarray) -> None:
        pass


class ViewCache:
    """Saved caller graphs of one SQLite store, in ``root`` (``STORE.views/``)."""

    def __init__(self, root: Path, *, save_above: int | None = None) -> None:
        self.root = root
        self.save_above = SAVE_ABOVE if save_above is None else save_above

    @staticmethod
    def name(generation: str, labels: Collection[str] | None, include_superseded: bool) -> str:
        """``COUNT-TOKEN-DIGEST``: the store's generation (:meth:`Store.generation`), then the digest
        of :data:`FORMAT`, the label set (sorted; None: unrestricted) and the superseded flag."""
        who = json.dumps([FORMAT, None if labels is None else sorted(set(labels)), include_superseded])
        return f"{generation}-{hashlib.sha256(who.encode()).hexdigest()[:24]}"

    def _saved(self, generation: str, labels: Collection[str] | None, include_superseded: bool) -> Path | None:
        """The complete folder saved for exactly this generation, labels and flag, or None. The
        generation written inside must be the live store's too: a folder copied or renamed from
        another is not served."""
        folder = self.root / self.name(generation, labels, include_superseded)
        try:
            if (folder / _COMPLETE).exists() and (folder / _GENERATION).read_text(encoding="utf-8") == generation:
                return folder
        except OSError:
            pass
        return None

    def load(self, generation: str, labels: Collection[str] | None, include_superseded: bool) -> GraphColumns | None:
        """The saved graph of exactly this generation, labels and flag, or None."""
        folder = self._saved(generation, labels, include_superseded)
        if folder is None:
            return None
        try:
            arrays = {a: np.load(folder / f"{a}.npy", mmap_mode="r") for a in _ARRAYS}
            lists = json.loads((folder / "lists.json").read_text(encoding="utf-8"))
            text = np.load(folder / "span_text.npy", mmap_mode="r")
            offsets = np.load(folder / "span_text_offsets.npy")
            kept = (folder / "passage_vectors.npy").exists()
            passage_vectors = np.load(folder / "passage_vectors.npy", mmap_mode="r") if kept else None
            passage_vector_ptr = np.load(folder / "passage_vector_ptr.npy") if kept else None
        except (OSError, ValueError):
            return None  # removed meanwhile, or damaged: read the store instead
        return GraphColumns(
            passages=[(d, v) for d, v in lists["passages"]],
            span_text=TextColumn(text, offsets),
            passage_vectors=passage_vectors,
            passage_vector_ptr=passage_vector_ptr,
            **{k: lists[k] for k in _LISTS},
            **arrays,
        )

    def derived(self, generation: str, labels: Collection[str] | None, include_superseded: bool) -> Derived | None:
        """Where a view of that saved graph keeps what it computes (None: the graph is not saved)."""
        folder = self._saved(generation, labels, include_superseded)
        return None if folder is None else Derived(folder)

    def save(self, generation: str, labels: Collection[str] | None, include_superseded: bool, columns: GraphColumns) -> None:
        """Keep ``columns`` for later readers of this generation (at least ``save_above`` sentences);
        remove every other generation. Best effort: a full disk or a read-only folder only means the
        next reader reads the store."""
        if len(columns.span_text) < self.save_above:
            return
        with contextlib.suppress(OSError):
            self.root.mkdir(mode=0o700, exist_ok=True)
            final = self.root / self.name(generation, labels, include_superseded)
            if self._saved(generation, labels, include_superseded) is None:
                shutil.rmtree(final, ignore_errors=True)  # a folder of that name that does not prove its generation
                work = Path(tempfile.mkdtemp(prefix=".saving-", dir=self.root))
                try:
                    _write(work, columns)
                    (work / _GENERATION).write_text(generation, encoding="utf-8")
                    caller = {"labels": None if labels is None else sorted(set(labels)), "include_superseded": include_superseded}
                    (work / _CALLER).write_text(json.dumps(caller), encoding="utf-8")
                    (work / _COMPLETE).write_text("", encoding="utf-8")
                    os.replace(work, final)
                except OSError:
                    shutil.rmtree(work, ignore_errors=True)
                    raise
            self._remove_others(generation)

    def callers(self) -> list[tuple[tuple[str, ...] | None, bool]]:
        """The callers (labels, whether superseded versions were read) whose graph is saved here, at
        any generation: whom a writer prepares the next one for (:meth:`Lifecycle.prepare_views
        <citegraph.facade.Lifecycle.prepare_views>`). A folder saved before this was recorded names none."""
        found: set[tuple[tuple[str, ...] | None, bool]] = set()
        if not self.root.is_dir():
            return []
        for folder in self.root.iterdir():
            try:
                if not (folder / _COMPLETE).exists():
                    continue
                caller = json.loads((folder / _CALLER).read_text(encoding="utf-8"))
                labels = caller["labels"]
                found.add((None if labels is None else tuple(str(x) for x in labels), bool(caller["include_superseded"])))
            except (OSError, ValueError, KeyError, TypeError):
                continue  # unreadable, or saved before callers were recorded
        return sorted(found, key=lambda c: (c[0] is not None, c[0] or (), c[1]))

    def clear(self) -> None:
        """Remove every saved graph (a document was deleted: its text must not stay here)."""
        shutil.rmtree(self.root, ignore_errors=True)

    def _remove_others(self, generation: str) -> None:
        """Remove the saved graphs of every other generation: older ones, and those a restored backup
        or an earlier store at this path left (whatever their count, their token is not the store's).
        A reader still on an older state that saves late removes a newer one: it is saved again."""
        for entry in self.root.iterdir():
            if not entry.name.startswith((f"{generation}-", ".saving-")):
                shutil.rmtree(entry, ignore_errors=True)


def _write(folder: Path, columns: GraphColumns) -> None:
    for a in _ARRAYS:
        np.save(folder / f"{a}.npy", np.ascontiguousarray(getattr(columns, a)))
    texts = columns.span_text if isinstance(columns.span_text, TextColumn) else TextColumn.of(columns.span_text)
    np.save(folder / "span_text.npy", np.frombuffer(bytes(texts.data), dtype=np.uint8))
    np.save(folder / "span_text_offsets.npy", texts.offsets)
    if columns.passage_vectors is not None and columns.passage_vector_ptr is not None:
        np.save(folder / "passage_vectors.npy", np.ascontiguousarray(columns.passage_vectors))
        np.save(folder / "passage_vector_ptr.npy", np.ascontiguousarray(columns.passage_vector_ptr))
    lists: dict[str, Any] = {k: list(getattr(columns, k)) for k in _LISTS}
    lists["passages"] = [list(p) for p in columns.passages]
    (folder / "lists.json").write_text(json.dumps(lists), encoding="utf-8")  # ASCII: a lone surrogate in a key survives
