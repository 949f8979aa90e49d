"""What a query costs at scale: warm latency, view build, cold ``ask``, memory, and the notebook's design.

Two stores:

* **synthetic** (default): written here straight through the store API (``SQLiteStore.write_document``
  with :class:`DocumentWrite` records), deterministic (``--seed``): at ``--scale 1`` 100,000 entities,
  500,000 relations and 1,000,000 sentences, in passages of 5 sentences (one document each, all
  public). Entity frequencies are Zipf-like (the r-th most frequent is mentioned ∝ 1/r, every entity at
  least once); a sentence names 1–3 entities, and half the sentences assert one relation between two
  entities they name. Vectors are random unit vectors (dim 384): the query path is what is measured,
  not the embedder. Questions are random unit vectors too, one fixed per question text (a stand-in
  embedder under MiniLM's name, so the store also opens with ``citegraph ask --embedder minilm``).
  The store is kept at ``--store`` and reused when it was built with the same scale and seed.
* **real** (``--real``): the HotpotQA-100 store of ``citegraph eval retrieval`` (1,000 passages, built
  here with spaCy and MiniLM when missing), with its 100 questions embedded by MiniLM.

Measured, for each of ``--modes`` (default ``bridge-embedded``, the default mode, and ``bfs``), without a
language model: the view build (the caller's graph read from the store, first query's structures
included), warm ``Retriever.retrieve`` p50/p95 over the questions, and, with ``--ask``, a cold
``citegraph ask --no-verify --json`` in a new process (wall time and peak resident memory, from
``wait4``). When the retriever uses an approximate index, its recall@10 against exact search is
reported, and, with ``--exact-check``, how often the approximate ranking's first ``--limit`` spans
equal the exact one's.

The seed notebook's design runs on the same store in the same process, as the figure to beat: a
NetworkX ``DiGraph`` of entities with one edge per ordered pair (the last relation read wins), one
source sentence per entity (the last mention read wins), brute-force entity search with numpy over
the entity vectors, 3 seeds, and a 2-hop BFS along outgoing edges sharing one visited set across the
seeds; its context is the reached entities' source sentences. Targets (issue 9): warm p50 ≤ 50 ms and
p95 ≤ 150 ms at scale 1 on a 2-core machine, ≥ 10× faster than the notebook design, peak memory
under 4 GB.

    python bench/query.py --scale 0.01 --store /tmp/q001.db                    # a quick run
    python bench/query.py --scale 1 --store /tmp/q1m.db --ask --json-out docs/results/DATE/query.json
    python bench/query.py --real --store eval-results/hotpotqa_distractor_sample100.db --ask
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from citegraph.embed.base import Embedder, ExactIndex
from common import environment, load_before_run, load_figures, write_figures

err = Console(stderr=True)
ROOT = Path(__file__).resolve().parents[1]
HOTPOT = ROOT.parent / "shared" / "data" / "hotpotqa_distractor_sample100" / "hotpotqa_distractor_sample100.json"
DIM = 384
FULL = {"entities": 100_000, "relations": 500_000, "sentences": 1_000_000}
PER_PASSAGE = 5
P50_TARGET_MS, P95_TARGET_MS, RATIO_TARGET, MEMORY_TARGET_MB = 50.0, 150.0, 10.0, 4096.0
MINILM_NAME = "all-MiniLM-L6-v2-onnx-int8"  # what MiniLMEmbedder stores, so `ask --embedder minilm` opens it
RELATION_TYPES = ["uses", "owns", "follows", "replaces", "funds", "hosts", "names", "joins", "cites", "meets", "sells", "builds"]


# -- the synthetic store -------------------------------------------------------------------------------
def _unit(rng: np.random.Generator, rows: int) -> np.ndarray:
    out = rng.standard_normal((rows, DIM), dtype=np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _unit_rows(vector: np.ndarray) -> np.ndarray:
    return (vector / max(float(np.linalg.norm(vector)), 1e-12)).astype(np.float32)


def _names(n: int) -> list[str]:
    """``n`` distinct pronounceable names ("Kavilo", "Tesuma"), in a fixed order."""
    onsets, vowels = "bdfgklmnprstvz", "aeiou"
    syllables = [c + v for c in onsets for v in vowels]  # 70
    out = []
    for i in range(n):
        parts, x = [], i
        while True:
            parts.append(syllables[x % len(syllables)])
            x //= len(syllables)
            if x == 0:
                break
        word = "".join(reversed(parts)) + "n"
        out.append(word.capitalize())
    return out


class FixedEmbedder(Embedder):
    """A stand-in embedder: one fixed random unit vector per text (blake2b of the text seeds it), or
    the vector ``planted`` for that text."""

    def __init__(self, name: str = MINILM_NAME, dim: int = DIM, planted: dict[str, np.ndarray] | None = None) -> None:
        self.name, self.dim = name, dim
        self.planted = planted or {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            rows.append(self.planted[text] if text in self.planted else _unit(np.random.default_rng(seed), 1)[0])
        return np.stack(rows) if rows else np.zeros((0, self.dim), np.float32)


def _noisy(rng: np.random.Generator, base: np.ndarray, noise: float) -> np.ndarray:
    """Unit vectors near ``base`` rows: ``base + noise · g`` with ``|g| ≈ 1``, normalised."""
    out = base + noise * rng.standard_normal(base.shape, dtype=np.float32) / np.sqrt(base.shape[1])
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def planted_questions(path: Path, n: int, seed: int) -> dict[str, np.ndarray]:
    """For a topical store: question i is a vector near two sentences of one random passage (as a
    real question resembles its answer's passage), one fixed vector per question text."""
    con = sqlite3.connect(path)
    total = con.execute("SELECT max(id) FROM spans").fetchone()[0]
    rng = np.random.default_rng(seed + 1)
    out = {}
    for i in range(n):
        first = int(rng.integers(1, total - PER_PASSAGE)) // PER_PASSAGE * PER_PASSAGE + 1
        rows = con.execute("SELECT vector FROM spans WHERE id BETWEEN ? AND ? ORDER BY id", (first, first + PER_PASSAGE - 1)).fetchall()
        picked = [np.frombuffer(rows[int(j)][0], dtype=np.float32) for j in rng.choice(len(rows), size=2, replace=False)]
        out[f"synthetic question {i}"] = _noisy(rng, (picked[0] + picked[1])[None, :], 0.8)[0]
    con.close()
    return out


def _marker(store: Path) -> Path:
    return store.with_name(store.name + ".bench.json")


def build_synthetic(path: Path, scale: float, seed: int, vectors_kind: str = "random") -> dict[str, Any]:
    """Write the synthetic store through the store API (reused when built with the same scale and seed).

    ``vectors_kind``: ``random`` (independent random unit vectors, the brief) or ``topical`` (each
    passage near one of 2,000 themes, its sentences near the passage: the structure real sentence
    embeddings have, without which no approximate index can find true neighbours)."""
    from citegraph.models import Document, ExtractedRelation, Span
    from citegraph.pipeline import content_version
    from citegraph.store.base import DocumentWrite, MentionRow
    from citegraph.store.sqlite import SQLiteStore

    sizes = {k: max(1, round(v * scale)) for k, v in FULL.items()}
    spec = {
        "scale": scale,
        "seed": seed,
        **sizes,
        **({"vectors": vectors_kind} if vectors_kind != "random" else {}),
        "passage_vectors": True,  # schema 5: each passage's vector stored with it, as ingest stores it
    }
    marker = _marker(path)
    if path.exists() and marker.exists() and json.loads(marker.read_text())["spec"] == spec:
        return json.loads(marker.read_text())
    for p in path.parent.glob(path.name + "*"):
        p.unlink()
    rng = np.random.default_rng(seed)
    n_e, n_s, n_r = sizes["entities"], sizes["sentences"], sizes["relations"]
    names = _names(n_e)
    rng.shuffle(names)  # the most frequent entities are not the alphabetically first
    keys = [n.casefold() for n in names]
    key_index = {k: i for i, k in enumerate(keys)}
    key_vectors = _unit(rng, n_e)
    # Entities per sentence: 1, 2 or 3; entity of each mention slot: a permutation first (every entity
    # is mentioned), then Zipf by rank. Entities within a sentence are distinct.
    per_sentence = rng.choice([1, 2, 3], size=n_s, p=[0.3, 0.4, 0.3])
    slots = int(per_sentence.sum())
    weights = 1.0 / np.arange(1, n_e + 1)
    drawn = rng.choice(n_e, size=slots, p=weights / weights.sum())
    drawn[: min(n_e, slots)] = rng.permutation(n_e)[: min(n_e, slots)]
    rng.shuffle(drawn)
    bounds = np.concatenate([[0], np.cumsum(per_sentence)])
    multi = np.flatnonzero(per_sentence >= 2)
    related = set(rng.choice(multi, size=min(n_r, len(multi)), replace=False).tolist())
    words = [w.lower() for w in _names(3000)[1000:]]
    store = SQLiteStore(path)
    store.db.execute("PRAGMA cache_size = -262144")  # 256 MB while loading
    store.set_embedder_name(MINILM_NAME)
    started = time.perf_counter()
    relations = mentions = 0
    n_docs = (n_s + PER_PASSAGE - 1) // PER_PASSAGE
    chunk = 2000
    themes = np.zeros((0, DIM), dtype=np.float32)
    for first_doc in range(0, n_docs, chunk):
        doc_range = range(first_doc, min(n_docs, first_doc + chunk))
        if vectors_kind == "topical":
            themes = themes if first_doc else _unit(rng, 2000)
            topics = _noisy(rng, themes[rng.integers(0, len(themes), size=len(doc_range))], 0.8)
            vectors = _noisy(rng, np.repeat(topics, PER_PASSAGE, axis=0), 1.0)
        else:
            vectors = _unit(rng, PER_PASSAGE * len(doc_range))
        filler = rng.integers(0, len(words), size=(PER_PASSAGE * len(doc_range), 12))
        types = rng.integers(0, len(RELATION_TYPES), size=PER_PASSAGE * len(doc_range))
        for d in doc_range:
            doc_id = f"p{d:07d}.txt"
            sentences = range(d * PER_PASSAGE, min(n_s, (d + 1) * PER_PASSAGE))
            texts, ents = [], []
            for s in sentences:
                row = (s - first_doc * PER_PASSAGE) % len(filler)
                es = list(dict.fromkeys(int(e) for e in drawn[bounds[s] : bounds[s + 1]]))
                while len(es) < per_sentence[s]:  # a repeat drawn in one sentence: take the next entity instead
                    es.append(next(e % n_e for e in range(es[-1] + 1, es[-1] + 5) if e % n_e not in es))
                w = [words[int(i)] for i in filler[row]]
                parts = [names[es[0]], w[0], w[1], "the", w[2], w[3]]
                for e, k in zip(es[1:], (4, 7), strict=False):
                    parts += ["with", names[e], w[k], w[k + 1], w[k + 2]]
                texts.append(" ".join(parts) + ".")
                ents.append(es)
            text = " ".join(texts)
            version = content_version(text)
            spans, m_rows, r_rows = [], [], []
            at = 0
            for s, sentence, es in zip(sentences, texts, ents, strict=True):
                span = Span(doc_id, version, at, at + len(sentence), sentence)
                spans.append((span, "sentence"))
                for e in es:
                    where = sentence.find(names[e])
                    m_rows.append(MentionRow(keys[e], span, names[e], "CONCEPT", at + where, at + where + len(names[e])))
                if s in related:
                    a, b = es[0], es[1]
                    if rng.random() < 0.5:
                        a, b = b, a
                    row = (s - first_doc * PER_PASSAGE) % len(types)
                    r_rows.append(ExtractedRelation(keys[a], keys[b], RELATION_TYPES[int(types[row])], span, names[a], names[b]))
                at += len(sentence) + 1
            offset = (d - first_doc) * PER_PASSAGE
            doc = Document(doc_id, version, text, f"synthetic:{doc_id}", ("public",), ingested_at="2026-11-30T00:00:00Z")
            used = {m.key for m in m_rows}
            write = DocumentWrite(
                doc,
                "ok",
                "synthetic",
                tuple(spans),
                vectors[offset : offset + len(spans)],
                tuple(m_rows),
                tuple(r_rows),
                {k: key_vectors[key_index[k]] for k in used},
                # the passage's own vector (a real ingest embeds its whole text): its theme, or the
                # mean of its sentences for independent random vectors
                passage_vector=_unit_rows(
                    topics[d - first_doc] if vectors_kind == "topical" else vectors[offset : offset + len(spans)].mean(0)
                ),
            )
            relations += store.write_document(write).relations
            mentions += len(m_rows)
        done = min(n_docs, first_doc + chunk)
        err.print(f"  {done:,}/{n_docs:,} passages written ({time.perf_counter() - started:.0f} s)", end="\r")
    err.print()
    store.purge()
    store.close()
    info = {
        "spec": spec,
        "passages": n_docs,
        "entities": n_e,
        "sentences": n_s,
        "relations": relations,
        "mentions": mentions,
        "write_s": round(time.perf_counter() - started, 1),
        "store_mb": round(sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.suffix != ".json") / 1e6, 1),
    }
    marker.write_text(json.dumps(info, indent=2) + "\n")
    return info


def build_real(path: Path, data: Path = HOTPOT) -> dict[str, Any]:
    """The HotpotQA-100 store of ``citegraph eval retrieval`` (built here, as eval does, when missing)."""
    from citegraph.eval.retrieval import load, prepare
    from citegraph.pipeline import CiteGraph

    if not path.exists():
        err.print(f"building {path} from {data} (spaCy + MiniLM; a few minutes) …")
        with CiteGraph.open(path, "minilm") as graph:
            prepare(load(data), graph)
    con = sqlite3.connect(path)
    count = lambda table: con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
    info = {
        "passages": count("documents"),
        "entities": count("entities"),
        "sentences": count("spans"),
        "relations": count("relations"),
        "mentions": count("mentions"),
    }
    con.close()
    return info


# -- measuring -----------------------------------------------------------------------------------------
def peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] if ordered else 0.0


def timings(seconds: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(1000 * pct(seconds, 0.5), 2),
        "p95_ms": round(1000 * pct(seconds, 0.95), 2),
        "mean_ms": round(1000 * statistics.fmean(seconds), 2),
    }


def approximate_indexes(view: Any) -> dict[str, Any]:
    """The approximate vector indexes a view holds, by name (none in an exact view or older code)."""
    indexes = getattr(view, "vector_indexes", None)
    if indexes is None:
        return {}
    return {name: index for name, index in indexes().items() if getattr(index, "approximate", False)}


def recall_at(index: Any, queries: np.ndarray, k: int = 10) -> float:
    """Mean |approximate top k ∩ exact top k| / k over the query vectors."""
    exact = ExactIndex(index.vectors)
    hits = [len({i for i, _ in index.search(q, k)} & {i for i, _ in exact.search(q, k)}) / k for q in queries]
    return round(statistics.fmean(hits), 4)


def mode_runs(graph: Any, questions: list[str], modes: list[str], limit: int | None, exact_check: bool) -> dict[str, Any]:
    retriever = graph.retriever
    out: dict[str, Any] = {}
    for mode in modes:
        retriever.clear_cache()
        started = time.perf_counter()
        retriever.view(["public"])
        view_s = time.perf_counter() - started
        started = time.perf_counter()
        retriever.retrieve(questions[0], ["public"], mode=mode, limit=limit)
        first_s = time.perf_counter() - started
        seconds, ranked, sizes, nodes = [], [], [], []
        for q in questions:
            started = time.perf_counter()
            retrieval = retriever.retrieve(q, ["public"], mode=mode, limit=limit)
            seconds.append(time.perf_counter() - started)
            ranked.append([(e.span.document, e.span.start) for e in retrieval.evidence])
            started = time.perf_counter()  # what ask adds: every reached entity with its route (made when read)
            sizes.append(len(retrieval.nodes))
            nodes.append(time.perf_counter() - started)
            del retrieval  # freeing a hundred thousand nodes takes tens of ms: not inside the next query's time
        entry: dict[str, Any] = {
            "view_s": round(view_s, 2),
            "first_query_s": round(first_s, 2),
            "warm": timings(seconds),
            "reached_nodes_mean": round(statistics.fmean(sizes), 1),
            "nodes_read": timings(nodes),
            "peak_mb_so_far": peak_mb(),
        }
        approximate = approximate_indexes(retriever.view(["public"]))
        if approximate:
            vectors = graph.embedder.embed(questions)
            entry["recall_at_10"] = {name: recall_at(index, vectors) for name, index in approximate.items()}
            if exact_check:
                entry["same_as_exact"] = same_as_exact(graph, questions, mode, limit, ranked)
        out[mode] = entry
        err.print(f"  {mode}: view {view_s:.2f} s, first query {first_s:.2f} s, warm p50 {entry['warm']['p50_ms']} ms")
    return out


def same_as_exact(graph: Any, questions: list[str], mode: str, limit: int | None, ranked: list[list[tuple[str, int]]]) -> dict[str, float]:
    """How far the approximate ranking is from the exact path's: identical lists, and top-``limit`` overlap."""
    retriever = graph.retriever
    threshold = retriever.approximate_above
    retriever.approximate_above = sys.maxsize
    retriever.clear_cache()
    try:
        exact = [
            [(e.span.document, e.span.start) for e in retriever.retrieve(q, ["public"], mode=mode, limit=limit).evidence] for q in questions
        ]
    finally:
        retriever.approximate_above = threshold
        retriever.clear_cache()
    return {
        "identical": round(statistics.fmean(float(a == b) for a, b in zip(ranked, exact, strict=True)), 4),
        "overlap": round(statistics.fmean(len(set(a) & set(b)) / max(len(b), 1) for a, b in zip(ranked, exact, strict=True)), 4),
    }


# -- the seed notebook's design --------------------------------------------------------------------------
class NotebookDesign:
    """The seed lesson's retrieval, as the notebook wrote it, over the same store (see the module doc)."""

    def __init__(self, path: Path) -> None:
        import networkx as nx

        con = sqlite3.connect(path)
        rows = con.execute("SELECT id, key, key_vector FROM entities ORDER BY id").fetchall()
        self.ids = [r[0] for r in rows]
        self.keys = [r[1] for r in rows]
        self.vectors = np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(self.ids)
        for src, dst, type_, span in con.execute("SELECT source_id, target_id, type, span_id FROM relations ORDER BY id"):
            self.graph.add_edge(src, dst, relation=type_, span=span)  # one edge per ordered pair: the last one wins
        source: dict[int, int] = {}
        for entity, span in con.execute("SELECT entity_id, span_id FROM mentions ORDER BY id"):
            source[entity] = span  # one source per entity: the last mention wins
        texts = dict(con.execute("SELECT id, text FROM spans"))
        self.source = {e: texts[s] for e, s in source.items()}
        con.close()

    def retrieve(self, vector: np.ndarray) -> list[str]:
        scores = self.vectors @ vector
        seeds = [self.ids[i] for i in np.argsort(-scores)[:3]]
        visited: set[int] = set()
        reached: list[int] = []
        for seed in seeds:
            if seed in visited:
                continue
            visited.add(seed)
            reached.append(seed)
            frontier = [seed]
            for _depth in (1, 2):
                found = []
                for node in frontier:
                    for nxt in self.graph.successors(node):
                        if nxt not in visited:
                            visited.add(nxt)
                            found.append(nxt)
                            reached.append(nxt)
                frontier = found
        return [self.source[e] for e in reached if e in self.source]


def notebook_runs(path: Path, embedder: Any, questions: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    design = NotebookDesign(path)
    build_s = time.perf_counter() - started
    design.retrieve(embedder.embed([questions[0]])[0])
    seconds, sizes = [], []
    for q in questions:
        started = time.perf_counter()
        context = design.retrieve(embedder.embed([q])[0])
        seconds.append(time.perf_counter() - started)
        sizes.append(len(context))
    return {"build_s": round(build_s, 2), "warm": timings(seconds), "context_mean": round(statistics.fmean(sizes), 1)}


# -- cold ask in a new process ----------------------------------------------------------------------------
# Linux carries a process's peak RSS across fork and exec: a child of this (large) process would report
# at least this process's size. A small launcher starts the command, so its peak is its own.
LAUNCHER = """
import json, os, subprocess, sys, time
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    started = time.perf_counter()
    proc = subprocess.Popen(sys.argv[3:], stdout=out, stderr=err)
    _pid, status, usage = os.wait4(proc.pid, 0)
print(json.dumps({"seconds": time.perf_counter() - started, "peak_mb": usage.ru_maxrss / 1024, "exit": os.waitstatus_to_exitcode(status)}))
"""


def measure_alone(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``command`` from a small launcher; wall seconds, its own peak resident MB, exit code, output."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out, errors = Path(tmp) / "out", Path(tmp) / "err"
        launched = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(out), str(errors), *command], env=env, capture_output=True, text=True
        )
        figures = json.loads(launched.stdout)
        return {
            "seconds": round(figures["seconds"], 2),
            "peak_mb": round(figures["peak_mb"], 1),
            "exit": figures["exit"],
            "stdout": out.read_text(encoding="utf-8", errors="replace"),
            "stderr": errors.read_text(encoding="utf-8", errors="replace")[-2000:],
        }


def ask_command(path: Path, question: str, mode: str) -> list[str]:
    """A cold ``citegraph ask`` of ``question`` on the store at ``path`` in ``mode``, unchecked, as JSON."""
    return [
        sys.executable,
        "-m",
        "citegraph.cli",
        "ask",
        question,
        "--db",
        str(path),
        "--embedder",
        "minilm",
        "--retrieval",
        mode,
        "--no-verify",
        "--json",
    ]


def cold_asks(path: Path, question: str, modes: list[str]) -> dict[str, Any]:
    """A cold ``citegraph ask`` per mode, twice: the first process after a write (no saved graph:
    it reads the store and saves the caller's graph beside it) and a later one (maps the saved graph)."""
    out: dict[str, Any] = {}
    for mode in modes:
        shutil.rmtree(str(path) + ".views", ignore_errors=True)
        for when in ("first", "again"):
            run = measure_alone(ask_command(path, question, mode), {**os.environ})
            answer = json.loads(run["stdout"]) if run["stdout"].startswith("{") else {}
            out[mode if when == "first" else f"{mode} (graph saved)"] = {
                "seconds": run["seconds"],
                "peak_mb": run["peak_mb"],
                "exit": run["exit"],
                "context": [f"{c.get('document')}:{c.get('start')}-{c.get('end')}" for c in answer.get("context", [])],
                "reached_nodes": len(answer.get("retrieval", {}).get("nodes", [])),
                "stdout_kb": round(len(run["stdout"]) / 1000, 1),
                "error": run["stderr"] if run["exit"] != 0 else "",
            }
            err.print(f"  cold ask ({mode}, {when}): {run['seconds']} s, peak {run['peak_mb']} MB, exit {run['exit']}")
        same = out[mode]["context"] == out[f"{mode} (graph saved)"]["context"]
        out[f"{mode} (graph saved)"]["same_context"] = same
    return out


def after_write(path: Path, question: str, mode: str) -> dict[str, Any]:
    """A write after the caller's graph was saved (``citegraph ingest`` of one small document, which
    prepares that caller's graph again: :func:`citegraph.cli.base.writing`), then the first cold
    ``citegraph ask`` after it. Both timed in their own process."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        note = Path(tmp) / "after-write-note.md"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")  # a new text each run: an unchanged document is no write
        note.write_text(
            f"# A note written after the store was built\n\nThe review meeting of {stamp} moved to Thursday.\n", encoding="utf-8"
        )
        command = [sys.executable, "-m", "citegraph.cli", "ingest", str(note), "--db", str(path), "--embedder", "minilm", "--quiet"]
        write = measure_alone(command, {**os.environ})
    err.print(f"  write (ingest one note, saved graphs prepared): {write['seconds']} s, exit {write['exit']}")
    ask = measure_alone(ask_command(path, question, mode), {**os.environ})
    err.print(f"  cold ask ({mode}), first after the write: {ask['seconds']} s, exit {ask['exit']}")
    return {
        "write_seconds": write["seconds"],
        "write_exit": write["exit"],
        "write_error": write["stderr"] if write["exit"] != 0 else "",
        "ask_seconds": ask["seconds"],
        "ask_peak_mb": ask["peak_mb"],
        "ask_exit": ask["exit"],
        "ask_error": ask["stderr"] if ask["exit"] != 0 else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic size: 1 = 100k entities, 500k relations, 1M sentences")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--vectors", choices=["random", "topical"], default="random", help="synthetic vectors (see build_synthetic)")
    parser.add_argument("--real", action="store_true", help="the HotpotQA-100 store instead of the synthetic one")
    parser.add_argument("--data", type=Path, default=HOTPOT, help="the HotpotQA file for --real")
    parser.add_argument("--store", type=Path, help="store file (kept and reused); default /tmp/citegraph-query-SCALE.db or the eval store")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--modes", default="bridge-embedded,bfs")
    parser.add_argument("--limit", type=int, default=None, help="evidence list length (default: the retriever's, as ask uses)")
    parser.add_argument("--ask", action="store_true", help="also time a cold `citegraph ask` per mode in a new process")
    parser.add_argument(
        "--after-write",
        action="store_true",
        help="with --ask: then ingest one note (the CLI prepares the saved graph) and time the first cold ask after that write",
    )
    parser.add_argument("--no-notebook", action="store_true")
    parser.add_argument("--exact-check", action="store_true", help="compare approximate rankings with the exact path's")
    parser.add_argument(
        "--approximate-above", type=int, help="override the retriever's threshold (visible sentences) for an approximate index"
    )
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    before = load_before_run(err)
    if args.real:
        store = args.store or ROOT / "eval-results" / "hotpotqa_distractor_sample100.db"
        info = build_real(store, args.data)
    else:
        store = args.store or Path(f"/tmp/citegraph-query-{args.scale:g}.db")
        err.print(f"synthetic store {store} at scale {args.scale:g} …")
        info = build_synthetic(store, args.scale, args.seed, args.vectors)
    from citegraph.pipeline import CiteGraph
    from citegraph.store.sqlite import SQLiteStore

    if args.real:
        from citegraph.eval.retrieval import load

        questions = [q.text for q in load(args.data).questions][: args.questions]
        graph = CiteGraph.open(store, "minilm", create=False)
    else:
        questions = [f"synthetic question {i}" for i in range(args.questions)]
        planted = planted_questions(store, args.questions, args.seed) if args.vectors == "topical" else None
        graph = CiteGraph(SQLiteStore(store, create=False), FixedEmbedder(planted=planted))
    if args.approximate_above is not None:
        graph.retriever.approximate_above = args.approximate_above
    err.print("warm queries …")
    runs = mode_runs(graph, questions, modes, args.limit, args.exact_check)
    graph.retriever.clear_cache()
    err.print("the notebook design …")
    notebook = None if args.no_notebook else notebook_runs(store, graph.embedder, questions)
    graph.close()
    asks = cold_asks(store, questions[0], modes) if args.ask else {}
    written = after_write(store, questions[0], modes[0]) if args.ask and args.after_write else None

    default = modes[0]
    ratio = round(notebook["warm"]["p50_ms"] / runs[default]["warm"]["p50_ms"], 1) if notebook else None
    table = Table(
        "mode",
        "view s",
        "first query s",
        "warm p50 ms",
        "p95 ms",
        "reached nodes",
        "nodes read p50 ms",
        "recall@10",
        "cold ask s",
        "ask peak MB",
    )
    for mode, r in runs.items():
        recall = ", ".join(f"{k} {v:.3f}" for k, v in r.get("recall_at_10", {}).items()) or "exact"
        ask = asks.get(mode, {})
        table.add_row(
            mode, f"{r['view_s']:.2f}", f"{r['first_query_s']:.2f}", f"{r['warm']['p50_ms']:.1f}", f"{r['warm']['p95_ms']:.1f}",
            f"{r['reached_nodes_mean']:.0f}", f"{r['nodes_read']['p50_ms']:.1f}", recall, str(ask.get("seconds", "–")), str(ask.get("peak_mb", "–")),
        )  # fmt: skip
    if notebook:
        table.add_row(
            "notebook design",
            f"{notebook['build_s']:.2f}",
            "",
            f"{notebook['warm']['p50_ms']:.1f}",
            f"{notebook['warm']['p95_ms']:.1f}",
            "",
            "",
            "",
            "",
            "",
        )
    Console(width=170).print(table)
    d = runs[default]["warm"]
    verdict = lambda ok: "met" if ok else "MISSED"  # noqa: E731
    Console().print(f"{default}: warm p50 {d['p50_ms']} ms (target ≤ {P50_TARGET_MS:g}): {verdict(d['p50_ms'] <= P50_TARGET_MS)}; "
                    f"p95 {d['p95_ms']} ms (target ≤ {P95_TARGET_MS:g}): {verdict(d['p95_ms'] <= P95_TARGET_MS)}")  # fmt: skip
    if ratio is not None:
        Console().print(f"notebook design p50 ÷ {default} p50 = {ratio}× (target ≥ {RATIO_TARGET:g}×): {verdict(ratio >= RATIO_TARGET)}")
    if asks:
        peak = max(a["peak_mb"] for a in asks.values())
        Console().print(f"cold ask peak memory {peak} MB (target < {MEMORY_TARGET_MB:g}): {verdict(peak < MEMORY_TARGET_MB)}")
    write_figures(
        args.json_out,
        {
            "command": " ".join(["python", "bench/query.py", *sys.argv[1:]]),
            "environment": environment(),
            "load_average_1min": load_figures(before),
            "store": {"path": str(store), "kind": "hotpotqa" if args.real else "synthetic", **info},
            "questions": len(questions),
            "approximate_above": getattr(graph.retriever, "approximate_above", None),
            "vectors": "minilm" if args.real else args.vectors,
            "modes": runs,
            "notebook_design": notebook,
            "notebook_ratio": ratio,
            "cold_ask": asks,
            "after_write": written,
            "peak_mb_in_process": peak_mb(),
            "targets": {"p50_ms": P50_TARGET_MS, "p95_ms": P95_TARGET_MS, "notebook_ratio": RATIO_TARGET, "memory_mb": MEMORY_TARGET_MB},
        },
        err,
    )


if __name__ == "__main__":
    main()
