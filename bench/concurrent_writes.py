"""Writers interleave: what a second ingest, a token revocation and a read cost while a 1 MB document
is being ingested into the same SQLite store, through the CLI as a user runs it.

The long ingest (``--megabytes`` of generated handbook text, the default spaCy extractor and MiniLM
embedder) starts in its own process; once it is past its start-up (``--settle`` seconds), the
script runs, one after the other: ``citegraph ingest`` of one small document, ``citegraph token
revoke`` of a token made before the long ingest (and checks that the token is refused from then
on), and ``citegraph documents``. Each is timed from its process start to its exit. The baseline,
in the same run: the same three commands against a store no one else is writing. The ratio
"during / alone" is what the long ingest costs the others (CPU contention on a small machine
included; a lock wait would show as ~the whole long ingest).

    python bench/concurrent_writes.py --json-out docs/results/DATE/concurrent_writes.json
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from common import environment, load_before_run, load_figures, write_figures

WORDS = ["export", "snapshot", "invoice", "archive", "payroll", "retention", "workspace", "billing", "audit log", "backup"]


def _long_text(megabytes: float) -> str:
    rng = random.Random(20)
    paragraphs, size, n = [], 0, 0
    while size < megabytes * 1_000_000:
        sentences = []
        for _ in range(5):
            a, b = rng.sample(WORDS, 2)
            sentences.append(f"The {a} of team {n} uses the {b} of the Larkspur region for {rng.randint(2, 90)} days.")
            n += 1
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "citegraph.cli", *args]


def _timed(command: list[str], timeout: float) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - started, done


def _round(db: Path, folder: Path, token_name: str, label: str, timeout: float) -> dict[str, float]:
    """The three commands once; each must succeed."""
    small = folder / f"small-{label}.md"
    small.write_text(f"Snapshots of the {label} run are kept for 90 days.\n", encoding="utf-8")
    figures: dict[str, float] = {}
    for name, command in (
        ("ingest small document", _cli("ingest", str(small), "--db", str(db), "--quiet")),
        ("token revoke", _cli("token", "revoke", token_name, "--db", str(db))),
        ("documents (read)", _cli("documents", "--json", "--db", str(db))),
    ):
        seconds, done = _timed(command, timeout)
        if done.returncode != 0:
            raise SystemExit(f"{name} failed ({label}): {done.stderr.strip()}")
        figures[name] = round(seconds, 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=1.0, help="size of the long document")
    parser.add_argument("--settle", type=float, default=20.0, help="seconds after the long ingest starts before the others run")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds any one command may take")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    err = Console(stderr=True)
    before = load_before_run(err)
    from citegraph.serve.tokens import TokenStore

    with tempfile.TemporaryDirectory(prefix="citegraph-bench-") as tmp:
        folder = Path(tmp)
        db = folder / "store.db"
        seed = folder / "seed.md"
        seed.write_text("Exports stay available for 30 days after cancellation.\n", encoding="utf-8")
        subprocess.run(_cli("ingest", str(seed), "--db", str(db), "--quiet"), check=True, capture_output=True, timeout=args.timeout)
        tokens = TokenStore(db)
        alone_token, during_token = tokens.add("alone", ("public",)), tokens.add("during", ("public",))

        err.print("baseline: the three commands with no other writer")
        alone = _round(db, folder, "alone", "alone", args.timeout)
        if tokens.labels(alone_token) is not None:
            raise SystemExit("a revoked token still answers")

        long_doc = folder / "handbook.md"
        long_doc.write_text(_long_text(args.megabytes), encoding="utf-8")
        err.print(f"long ingest of {long_doc.stat().st_size / 1e6:.2f} MB started; the others run after {args.settle:g} s")
        started = time.perf_counter()
        process = subprocess.Popen(
            _cli("ingest", str(long_doc), "--db", str(db), "--quiet"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        time.sleep(args.settle)
        if process.poll() is not None:
            raise SystemExit("the long ingest ended before the others ran: raise --megabytes")
        during = _round(db, folder, "during", "during", args.timeout)
        revoked_refused = tokens.labels(during_token) is None
        still_running = process.poll() is None
        _out, long_err = process.communicate(timeout=args.timeout)
        long_seconds = time.perf_counter() - started
        if process.returncode != 0:
            raise SystemExit(f"the long ingest failed: {long_err.strip()}")

    result: dict[str, Any] = {
        "environment": environment(),
        "long_document_mb": args.megabytes,
        "long_ingest_seconds": round(long_seconds, 1),
        "long_ingest_still_running_after_the_others": still_running,
        "revoked_token_refused_during_long_ingest": revoked_refused,
        "alone_seconds": alone,
        "during_long_ingest_seconds": during,
        "ratio_during_over_alone": {k: round(during[k] / alone[k], 2) for k in alone},
        "load_average_1min": load_figures(before),
    }
    for name in alone:
        err.print(f"{name}: {during[name]:.2f} s during the long ingest, {alone[name]:.2f} s alone ({during[name] / alone[name]:.2f}x)")
    err.print(
        f"long ingest: {long_seconds:.0f} s (still running when the others were done: {still_running}); revoked token refused: {revoked_refused}"
    )
    write_figures(args.json_out, result, err)


if __name__ == "__main__":
    main()
