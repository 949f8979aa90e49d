"""What the bench scripts share: reading the HotpotQA sample, describing the machine, writing figures."""

from __future__ import annotations

import json
import os
import platform
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console

__all__ = [
    "corpus_graphs",
    "corpus_store",
    "environment",
    "latency_figures",
    "load_before_run",
    "load_figures",
    "public_questions",
    "read_questions",
    "write_figures",
    "write_report",
]


def read_questions(path: Path) -> list[dict[str, Any]]:
    """The HotpotQA objects of ``path`` (a JSON list), or exit naming the file."""
    questions = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(questions, list):
        raise SystemExit(f"{path}: expected a JSON list of HotpotQA objects")
    return questions


def public_questions(corpus: Path) -> list[str]:
    """The questions of a development corpus (``corpus.json`` in the folder ``corpus``) asked by the public caller."""
    data = json.loads((corpus / "corpus.json").read_text(encoding="utf-8"))
    return [q["question"] for q in data["questions"] if q.get("caller", ["public"]) == ["public"]]


def corpus_store(db: Path, corpus: Path, err: Console) -> None:
    """Make the store ``db`` from the corpus's documents (``corpus/docs``) when it holds none yet."""
    from citegraph.pipeline import CiteGraph

    graph = CiteGraph.open(str(db))
    try:
        if not graph.store.documents(None):
            err.print(f"ingesting {corpus / 'docs'} into {db}")
            graph.ingest([corpus / "docs"])
    finally:
        graph.close()


def corpus_graphs(folders: list[Path], stores: Path) -> Iterator[tuple[Path, Any, Any]]:
    """Each development corpus (``corpora/NAME``) with its store ``stores/answers-NAME.db``, open: one an
    ``eval answers --out STORES`` run made is reused, a missing one is ingested with the default settings
    (``eval answers``' own grouping by access labels). Yields the folder, the loaded corpus and the graph."""
    from citegraph.eval.corpus import load_corpus, prepare
    from citegraph.pipeline import CiteGraph

    stores.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        corpus = load_corpus(folder)
        with CiteGraph.open(stores / f"answers-{folder.name}.db", "minilm") as graph:
            prepare(graph, corpus)
            yield folder, corpus, graph


def environment() -> str:
    return f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}"


def load_before_run(err: Console) -> float:
    """The 1-minute load average now, with a warning when other work will skew the timings."""
    load = os.getloadavg()[0]
    if load > 0.5:
        err.print(f"[yellow]warning: 1-minute load average is {load:.2f} before the run; other processes will skew the timings[/yellow]")
    return load


def load_figures(before: float) -> dict[str, float]:
    """The ``load_average_1min`` record: before the run and now."""
    return {"before": round(before, 2), "after": round(os.getloadavg()[0], 2)}


def write_figures(path: Path | None, result: dict[str, Any], err: Console) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    err.print(f"figures written to {path}")


def write_report(path: Path | None, text: str) -> None:
    """Write a markdown report to ``path`` (its folder made as needed); nothing when ``path`` is None."""
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_compared(out: Path, stem: str, lines: list[str], record: dict[str, Any], same: bool) -> None:
    """A bench comparing runs of the same questions: its report (``OUT/STEM.md``) and figures
    (``OUT/STEM.json``) written and the report printed; it fails when the runs' answers differ."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / f"{stem}.json").write_text(json.dumps(record, indent=1))
    print("\n".join(lines))
    if not same:
        raise SystemExit("the answers differ between the runs")


def latency_figures(seconds: list[float]) -> dict[str, float]:
    """p50, p99 (the value at rank floor(0.99 n), the largest of fewer than 100) and mean of per-request seconds, rounded."""
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 4), "p99": round(p99, 4), "mean": round(statistics.mean(ordered), 4)}
