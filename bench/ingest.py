"""Whole-ingest throughput on HotpotQA paragraphs, against the embedding-only floor.

What is measured
----------------
Every unique context paragraph of a HotpotQA distractor sample (title -> ``"".join(sentences)``)
is written as one ``.txt`` file into a temporary folder, and the folder is ingested exactly as
``citegraph ingest FOLDER`` does it: ``CiteGraph.open(db, "minilm")`` then ``graph.ingest([folder],
progress=...)`` behind a rich progress bar on stderr. The timed region is that one ``ingest`` call,
so it covers everything a user waits for: file discovery and loading, spaCy (sentence boundaries,
tagging, parsing, NER), extraction of entities and relations, embedding of sentences and of new
entity keys, and the SQLite writes (one transaction per document).

Then, in the same process, a fresh ``MiniLMEmbedder`` embeds the very sentences that ingest stored,
in one ``embed`` call (the embedder batches internally). That is the *embedding-only* time.

Why the embedder is the floor
-----------------------------
Every stored sentence must get a vector: no ingest design can avoid one MiniLM forward pass per
sentence, so embedding those sentences alone is the least work a whole ingest can do. Everything
else (spaCy, extraction, entity-key vectors, SQLite) is overhead on top of it, and
``whole-ingest / embedding-only`` says how large that overhead is. The target is a ratio below 2.

Since schema 5 ingest also embeds each document version's whole text (the passage vector
``bridge-embedded`` and ``dense-passage`` read), about as many tokens again as its sentences. A
second floor embeds the stored sentences and those passage texts in one call, and the ratio over it
is printed beside the first: the work no ingest that keeps both vectors can avoid.

Fairness: model loading is kept out of both timings. A tiny throwaway document is first ingested
into a separate temporary store (this loads spaCy, which is cached process-wide, and runs the ONNX
session once), and every embedder instance that is timed gets one small warm-up ``embed`` call
after it is built and before its clock starts.

Wall time is what the target is about, but on a small shared machine other processes skew it. The
process CPU time of both regions (all threads) and the 1-minute load average before and after the
run are reported too, so that a skewed run can be recognised; rerun on an idle machine.

Stage breakdown
---------------
Two views, both without touching ``src/``:

* *in-run*: the ingest's own splitter, extractor, embedder and store get thin timing wrappers on
  their instances (``split_many``, ``extract``, ``embed``, ``write_document``); what is left of the
  whole-ingest time is "other" (discovery, file loading, hashing, look-ups, progress, bookkeeping).
  The wrappers cost two ``perf_counter`` calls per call, i.e. microseconds in total.
* *standalone*: after the main run, ``SentenceSplitter().split_many`` and ``SpacyExtractor().extract``
  are re-run alone on the stored texts, and the new entity keys are embedded alone.

Usage::

    python bench/ingest.py --data PATH/hotpotqa_distractor_sample100.json [--limit N] [--workers 1,2] [--ray 2] [--db PATH] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from citegraph.embed.minilm import MiniLMEmbedder
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.models import Document, DocumentStatus
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.sentences import SentenceSplitter, passage_text
from common import environment, load_before_run, load_figures, read_questions, write_figures

TARGET_RATIO = 2.0
INGEST_BATCH = 32  # CiteGraph.ingest's default batch_size; the standalone split mirrors it
SPLIT, EXTRACT, EMBED, WRITE = "spaCy split+parse", "extract", "embed sentences+keys", "SQLite write"  # stage names
WARMUP_TEXT = "Ada Lovelace wrote the first published program. It was meant for the Analytical Engine of Charles Babbage."


# -- data ---------------------------------------------------------------------------------------
def load_paragraphs(path: Path, limit: int | None) -> tuple[list[tuple[str, str]], int, int]:
    """``(title, text)`` of each unique paragraph (first wins), the question count, the paragraph count."""
    questions = read_questions(path)
    if limit is not None:
        questions = questions[:limit]
    unique: dict[str, str] = {}
    total = 0
    for q in questions:
        context = q["context"]
        for title, sentences in zip(context["title"], context["sentences"], strict=True):
            total += 1
            unique.setdefault(title, "".join(sentences))
    return list(unique.items()), len(questions), total


def file_name(title: str) -> str:
    """A safe, readable file name for a title; the hash keeps titles that slug alike apart."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-") or "untitled"
    return f"{slug}-{hashlib.sha1(title.encode('utf-8')).hexdigest()[:10]}.txt"


def write_corpus(paragraphs: list[tuple[str, str]], folder: Path) -> None:
    for title, text in paragraphs:
        path = folder / file_name(title)
        if path.exists():
            raise SystemExit(f"file name collision for title {title!r}: {path.name}")
        path.write_text(text, encoding="utf-8")


# -- timing helpers -----------------------------------------------------------------------------
class StageTimers:
    """Accumulates wall time spent inside wrapped methods of particular instances."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.items: Counter[str] = Counter()  #: for methods whose first argument is a list of work items

    def wrap(self, obj: Any, method: str, stage: str) -> None:
        original: Callable[..., Any] = getattr(obj, method)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[stage] += perf_counter() - start
                self.calls[stage] += 1
                if args and isinstance(args[0], list):
                    self.items[stage] += len(args[0])

        setattr(obj, method, timed)  # on this instance only; the class is untouched


def timed_call(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``, its wall seconds, and the CPU seconds this process (all its threads) spent on it."""
    start, cpu = perf_counter(), process_time()
    result = fn()
    return result, perf_counter() - start, process_time() - cpu


# -- the benchmark ------------------------------------------------------------------------------
def warm_up(workdir: Path) -> None:
    """Load spaCy (cached for the process) and run the ONNX model once, in a throwaway store."""
    with CiteGraph.open(workdir / "warmup.db", "minilm") as warm:
        warm.ingest_texts([TextInput("warmup.txt", WARMUP_TEXT)])


def run_ingest(
    db: Path | str, corpus: Path, expected: int, err: Console, workers: int = 1, executor: str = "process"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The timed whole ingest. Returns (figures, material for the later measurements). With
    ``workers`` > 1 the splitting, extraction and embedding run in the worker processes (their
    start, model loading included, is inside the clock), so only the writes are timed by stage."""
    graph = CiteGraph.open(db, "minilm")
    graph.embedder.embed([WARMUP_TEXT])  # this instance's session warm-up, outside the clock
    graph.splitter.nlp(WARMUP_TEXT)
    timers = StageTimers()
    timers.wrap(graph.splitter, "split_many", SPLIT)
    timers.wrap(graph.extractor, "extract", EXTRACT)
    timers.wrap(graph.embedder, "embed", EMBED)
    timers.wrap(graph.store, "write_document", WRITE)

    with Progress(
        TextColumn("ingest"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=err,
        transient=False,
    ) as bar:
        task = bar.add_task("", total=expected)

        def progress(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, description=current)

        report, seconds, cpu_seconds = timed_call(lambda: graph.ingest([corpus], progress=progress, workers=workers, executor=executor))

    statuses = Counter(d.status.value for d in report.documents)
    data = graph.store.graph(None, include_superseded=True)
    stored = [s.document for s in graph.store.documents(None, include_superseded=True)]
    graph.close()

    sentences = sum(d.sentences for d in report.documents)
    in_run: dict[str, float] = {stage: round(spent, 3) for stage, spent in timers.seconds.items()}
    in_run["other (load, look-ups, ...)"] = round(seconds - sum(timers.seconds.values()), 3)
    figures = {
        "workers": workers,
        "executor": executor,
        "documents": len(report.documents),
        "status": {s.value: statuses.get(s.value, 0) for s in DocumentStatus},
        "failed_reasons": sorted({d.reason for d in report.documents if d.status == DocumentStatus.FAILED})[:5],
        "sentences": sentences,
        "stored_spans": len(data.spans),
        "entity_mentions": len(data.mentions),
        "unique_entity_keys": len(data.keys),
        "relations": sum(d.relations for d in report.documents),
        "whole_ingest_s": round(seconds, 3),
        "whole_ingest_cpu_s": round(cpu_seconds, 3),
        "sentences_per_s": round(sentences / seconds, 1) if seconds else None,
        "documents_per_s": round(len(report.documents) / seconds, 1) if seconds else None,
        "in_run_stages_s": in_run,
        "embed_calls": timers.calls[EMBED],
        "embedded_texts": timers.items[EMBED],
    }
    by_passage: dict[tuple[str, str], list[str]] = {}
    for span in data.spans:  # in (document, version, start) order
        by_passage.setdefault((span.document, span.version), []).append(span.text)
    material = {
        "span_texts": [s.text for s in data.spans],
        "passage_texts": [passage_text(texts) for texts in by_passage.values()],
        "keys": list(data.keys),
        "documents": stored,
    }
    return figures, material


def embedding_only(texts: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``embed`` call over ``texts`` on a fresh, warmed-up embedder."""
    embedder = MiniLMEmbedder()
    embedder.embed([WARMUP_TEXT])
    vectors, seconds, cpu_seconds = timed_call(lambda: embedder.embed(texts))
    assert vectors.shape == (len(texts), embedder.dim)
    return seconds, cpu_seconds


def standalone_stages(documents: list[Document], keys: list[str]) -> dict[str, float]:
    """split_many and extract alone on the stored texts, and the entity keys embedded alone."""
    splitter = SentenceSplitter()
    splitter.nlp(WARMUP_TEXT)
    extractor = SpacyExtractor(splitter)
    split: list[list[Any]] = []
    start = perf_counter()
    for at in range(0, len(documents), INGEST_BATCH):
        batch = documents[at : at + INGEST_BATCH]
        split.extend(splitter.split_many([(d.id, d.version, d.text, d.media_type) for d in batch]))
    split_s = perf_counter() - start
    start = perf_counter()
    for doc, sentences in zip(documents, split, strict=True):
        extractor.extract(doc, sentences)
    extract_s = perf_counter() - start
    keys_s = embedding_only(keys)[0] if keys else 0.0
    return {SPLIT: round(split_s, 3), EXTRACT: round(extract_s, 3), "embed keys only": round(keys_s, 3)}


# -- output -------------------------------------------------------------------------------------
def render(out: Console, r: dict[str, Any]) -> None:
    status = r["status"]
    ratio = r["ratio_whole_over_embedding"]
    verdict = (
        "n/a: nothing was embedded"
        if ratio is None
        else f"{ratio:.2f}  ({'meets' if ratio < TARGET_RATIO else 'misses'} target < {TARGET_RATIO:g})"
    )
    cpu_ratio = r["cpu_ratio_whole_over_embedding"]
    summary = Table(title="citegraph ingest benchmark", caption=r["data"], show_header=False)
    summary.add_column("figure")
    summary.add_column("value", justify="right")
    for label, value in [
        ("questions", r["questions"]),
        ("paragraphs (all / unique)", f"{r['paragraphs_total']} / {r['paragraphs_unique']}"),
        ("documents ok / partial / empty / failed", f"{status['ok']} / {status['partial']} / {status['empty']} / {status['failed']}"),
        ("documents skipped / unchanged", f"{status['skipped']} / {status['unchanged']}"),
        ("sentences", r["sentences"]),
        ("entity mentions", r["entity_mentions"]),
        ("unique entity keys", r["unique_entity_keys"]),
        ("relations", r["relations"]),
        ("whole ingest (s)", f"{r['whole_ingest_s']:.2f}"),
        ("whole ingest (sentences/s)", r["sentences_per_s"]),
        ("embedding-only, sentences (s)", f"{r['embedding_only_s']:.2f}"),
        ("embedding-only (sentences/s)", r["embedding_only_sentences_per_s"]),
        ("ratio whole / embedding-only", verdict),
        ("embedding-only, sentences and passages (s)", f"{r['embedding_only_with_passages_s']:.2f}"),
        ("ratio whole / that", f"{r['ratio_whole_over_embedding_with_passages']:.2f}"),
        ("process CPU s: whole / embedding-only", f"{r['whole_ingest_cpu_s']:.1f} / {r['embedding_only_cpu_s']:.1f}"),
        ("CPU-time ratio (less load-sensitive)", "n/a" if cpu_ratio is None else f"{cpu_ratio:.2f}"),
    ]:
        summary.add_row(label, str(value))
    out.print(summary)

    stages = Table(title="stage breakdown (seconds)")
    stages.add_column("stage")
    stages.add_column("in ingest", justify="right")
    stages.add_column("% ingest", justify="right")
    stages.add_column("alone", justify="right")
    whole = r["whole_ingest_s"]
    alone = r["standalone_stages_s"]
    rows: list[tuple[str, float | None, float | None]] = []
    for stage, seconds in r["in_run_stages_s"].items():
        if stage == EMBED:
            rows.append((stage, seconds, r["embedding_only_s"] + alone["embed keys only"]))
            rows.append(("  of which sentences", None, r["embedding_only_s"]))
            rows.append(("  of which entity keys", None, alone["embed keys only"]))
        else:
            rows.append((stage, seconds, alone.get(stage)))
    for stage, seconds, standalone in rows:
        share = "" if seconds is None else f"{100 * seconds / whole:.0f}%"
        stages.add_row(stage, "" if seconds is None else f"{seconds:.2f}", share, "" if standalone is None else f"{standalone:.2f}")
    stages.add_row("whole ingest", f"{whole:.2f}", "100%", "")
    out.print(stages)
    if r["other_worker_counts"]:
        workers = Table(title=f"worker processes (the main run: --workers {r['workers']})")
        for column in (
            "workers",
            "executor",
            "whole ingest (s)",
            "sentences/s",
            "documents/s",
            "speed-up",
            "ratio / embedding-only",
            "same counts",
        ):
            workers.add_column(column, justify="right")
        for w in r["other_worker_counts"]:
            workers.add_row(
                str(w["workers"]),
                w["executor"],
                f"{w['whole_ingest_s']:.2f}",
                str(w["sentences_per_s"]),
                str(w["documents_per_s"]),
                f"{w['speedup_over_first']:.2f}x",
                f"{w['ratio_whole_over_embedding']:.2f}",
                str(w["same_counts"]),
            )
        out.print(workers)
    if r["failed_reasons"]:
        out.print("failure reasons (first 5):", *r["failed_reasons"], sep="\n  ")
    load = r["load_average_1min"]
    out.print(f"[dim]{r['environment']}; 1-min load average {load['before']:.2f} before, {load['after']:.2f} after[/dim]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="hotpotqa_distractor_sample100.json (a JSON list of HotpotQA objects)")
    parser.add_argument("--limit", type=int, help="use only the first N questions (10 paragraphs each)")
    parser.add_argument(
        "--db",
        help="store to create (a new SQLite file, or an empty postgresql:// database); default: a temporary file, deleted afterwards",
    )
    parser.add_argument("--json-out", type=Path, help="also write the figures to this JSON file")
    parser.add_argument(
        "--ray", type=int, default=0, help="also one whole ingest on this many Ray actors (a local Ray started in the clock)"
    )
    parser.add_argument(
        "--workers",
        default="1",
        help="comma-separated worker counts, e.g. 1,2: one whole ingest each, into its own store (the first is the main run)",
    )
    args = parser.parse_args(argv)
    try:
        counts = [int(w) for w in args.workers.split(",")]
    except ValueError:
        parser.error(f"--workers {args.workers}: give whole numbers separated by commas, e.g. 1,2")
    if not counts or min(counts) < 1:
        parser.error("--workers: each count must be at least 1")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such file")
    if (
        args.db is not None
        and not args.db.startswith(("postgresql://", "postgres://"))
        and (Path(args.db).exists() or Path(f"{args.db}-wal").exists())
    ):
        parser.error(f"--db {args.db} already exists: ingest would be a no-op; remove it or choose another path")

    out, err = Console(), Console(stderr=True)
    paragraphs, questions, total = load_paragraphs(args.data, args.limit)
    with tempfile.TemporaryDirectory(prefix="citegraph-bench-") as tmp:
        workdir = Path(tmp)
        corpus = workdir / "paragraphs"
        corpus.mkdir()
        write_corpus(paragraphs, corpus)
        err.print(f"{questions} questions, {total} paragraphs, {len(paragraphs)} unique -> {corpus}")

        load_before = load_before_run(err)
        err.print("warming up (spaCy model, ONNX session) ...")
        warm_up(workdir)
        db = args.db or workdir / "bench.db"
        figures, material = run_ingest(db, corpus, len(paragraphs), err, counts[0])
        more = []
        for n in counts[1:]:
            err.print(f"whole ingest again with --workers {n} into its own store ...")
            more.append(run_ingest(workdir / f"bench-w{n}.db", corpus, len(paragraphs), err, n)[0])
        if args.ray:
            err.print(f"whole ingest again on {args.ray} Ray actors (a local Ray cluster) into its own store ...")
            more.append(run_ingest(workdir / "bench-ray.db", corpus, len(paragraphs), err, args.ray, "ray")[0])

        err.print(f"embedding-only: {len(material['span_texts'])} sentences in one embed() call ...")
        embed_s, embed_cpu_s = embedding_only(material["span_texts"])
        err.print(f"embedding-only: those sentences and {len(material['passage_texts'])} passages' whole texts in one embed() call ...")
        stored_s, _stored_cpu_s = embedding_only(material["span_texts"] + material["passage_texts"])
        err.print("standalone stages: split_many, extract, entity keys ...")
        standalone = standalone_stages(material["documents"], material["keys"])

    result = {
        "data": str(args.data),
        "limit": args.limit,
        "questions": questions,
        "paragraphs_total": total,
        "paragraphs_unique": len(paragraphs),
        **figures,
        "embedding_only_s": round(embed_s, 3),
        "embedding_only_sentences_per_s": round(len(material["span_texts"]) / embed_s, 1) if embed_s else None,
        "ratio_whole_over_embedding": round(figures["whole_ingest_s"] / embed_s, 3) if embed_s else None,
        "embedding_only_cpu_s": round(embed_cpu_s, 3),
        "embedding_only_with_passages_s": round(stored_s, 3),
        "ratio_whole_over_embedding_with_passages": round(figures["whole_ingest_s"] / stored_s, 3) if stored_s else None,
        "cpu_ratio_whole_over_embedding": round(figures["whole_ingest_cpu_s"] / embed_cpu_s, 3) if embed_cpu_s else None,
        "target_ratio": TARGET_RATIO,
        "standalone_stages_s": standalone,
        "other_worker_counts": [
            {
                "workers": f["workers"],
                "executor": f["executor"],
                "whole_ingest_s": f["whole_ingest_s"],
                "sentences_per_s": f["sentences_per_s"],
                "documents_per_s": f["documents_per_s"],
                "speedup_over_first": round(figures["whole_ingest_s"] / f["whole_ingest_s"], 2) if f["whole_ingest_s"] else None,
                "ratio_whole_over_embedding": round(f["whole_ingest_s"] / embed_s, 3) if embed_s else None,
                "same_counts": (f["sentences"], f["relations"], f["unique_entity_keys"])
                == (figures["sentences"], figures["relations"], figures["unique_entity_keys"]),
            }
            for f in more
        ],
        "load_average_1min": load_figures(load_before),
        "environment": environment(),
    }
    render(out, result)
    write_figures(args.json_out, result, err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
