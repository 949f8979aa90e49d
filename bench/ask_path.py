"""Walk the path of one ``ask`` as the next engineer would: which of citegraph's modules ("rooms") a
question enters, how often it crosses from one into another, and how often spaCy parses the question.

Profiles one ``CiteGraph.ask`` (after a warm-up ask, so model loading is not counted) over the bundled
Larkspur handbook with the hashing embedder and no verifier (the path, not the models), and prints a
Markdown report. Run it against another checkout with ``PYTHONPATH=OTHER/src`` to compare:

    python bench/ask_path.py > /tmp/after.md
    git worktree add /tmp/before COMMIT && PYTHONPATH=/tmp/before/src python bench/ask_path.py > /tmp/before.md
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import citegraph
from citegraph.embed import HashingEmbedder
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter, load_spacy
from citegraph.store import SQLiteStore
from citegraph.verify.base import UncheckedVerifier

QUESTION = "How long do exports stay available after cancellation?"
LARKSPUR = Path(citegraph.__file__).parent / "demo" / "larkspur"


class _Counting:
    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self.parsed: list[str] = []

    def pipe(self, texts: Any, **kwargs: Any) -> Any:
        texts = list(texts)
        self.parsed.extend(texts)
        return self.nlp.pipe(texts, **kwargs)

    def __call__(self, text: str) -> Any:
        self.parsed.append(text)
        return self.nlp(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.nlp, name)


def _module(frame: FrameType | None) -> str | None:
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name if name.startswith("citegraph") else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=Path, default=LARKSPUR, help="a folder to ingest (default: the bundled Larkspur handbook)")
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()
    import citegraph.sentences as sentences

    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=SentenceSplitter(), verifier=UncheckedVerifier()) as graph:
        graph.ingest([args.docs])
        graph.ask(args.question)  # warm: models and caches loaded
        counting = _Counting(load_spacy())
        sentences.load_spacy = lambda: counting  # type: ignore[assignment]
        graph.retriever.nlp = counting
        import citegraph.answer.extractive as extractive

        extractive._typed.cache_clear()  # the warm-up's parses are not kept: this ask is read as a new one
        try:
            import citegraph.question as question

            question._read.cache_clear()
        except ImportError:  # a checkout from before the question was read once
            pass
        entered: Counter[str] = Counter()
        crossings = 0

        def profile(frame: FrameType, event: str, arg: object) -> None:
            nonlocal crossings
            if event != "call":
                return
            here, caller = _module(frame), _module(frame.f_back)
            if here is not None and here != caller:
                entered[here] += 1
                crossings += 1

        sys.setprofile(profile)
        try:
            answer = graph.ask(args.question)
        finally:
            sys.setprofile(None)
    commit = subprocess.run(
        ["git", "-C", str(Path(citegraph.__file__).parent), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    print(f"# The path of one ask ({commit.stdout.strip() or 'unknown commit'}, {citegraph.__file__})\n")
    print(f"Question: {args.question!r} -> status {answer.status.value}, {len(answer.claims)} claim(s)\n")
    print(f"- modules entered: {len(entered)}; crossings from one module into another: {crossings}")
    print(f"- spaCy parses of the question text: {counting.parsed.count(args.question)} (texts parsed in all: {len(counting.parsed)})\n")
    print("| module | times entered from another |\n|---|---|")
    for name, n in sorted(entered.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"| `{name}` | {n} |")


if __name__ == "__main__":
    main()
