"""What hostile input costs: time and peak memory of ``citegraph ingest`` and ``citegraph ask``.

Each run is a fresh ``citegraph`` process, measured from outside (wall time; peak resident memory
from ``wait4``), so the figures are what a user's machine would see. Inputs are generated here,
deterministically (seed 13), at several sizes:

* ``prose``: ordinary sentences with a growing vocabulary, the baseline every ratio is taken against;
* ``line``: one line of words without any punctuation (no sentence ends, no paragraph breaks);
* ``tiny``: a flood of two-word sentences ("Abc def. Ghi jkl. ...") on one line;
* ``answer``: ``citegraph ask --answer-file`` with an answer of N one-line claims, at the default
  caps and far over them (refused, so its time is the cost of saying no).

Targets (issue 14): peak memory at most 1.5 GB for any file ingest accepts (the file-size limit is
10 MB), and time linear in size: ``s/MB`` at the largest size over ``s/MB`` at the smallest, and
each kind's ``s/MB`` over prose's at the same size, are printed as ratios. Issue 25: any document
the default text limit (``max-text-mb``) accepts ingests in at most 10 minutes; a size over it is
measured with the limit raised, and only the sizes within it are held to that target.

    python bench/hostile.py --sizes 0.25,0.5,1 --embedder minilm --json-out docs/results/DATE/hostile.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from citegraph.settings import DEFAULTS
from common import environment, load_before_run, load_figures, write_figures

err = Console(stderr=True)
CITEGRAPH = [sys.executable, "-m", "citegraph.cli"]
PEAK_LIMIT_MB = 1500
TIME_LIMIT_S = 600  # issue 25: any accepted file ingests in at most 10 minutes on two cores


def _words(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(n)]


def make_text(kind: str, size: int, seed: int = 13) -> str:
    """``size`` characters of one kind of input."""
    rng = random.Random(seed)
    words = _words(rng, 20_000)
    parts: list[str] = []
    total = 0
    while total < size:
        if kind == "prose":
            a, b, c = rng.choice(words).capitalize(), rng.choice(words), rng.choice(words)
            piece = f"The {b} of {a} uses the {c} for {rng.randint(2, 90)} days after the {rng.choice(words)} ends. "
            if rng.random() < 0.15:
                piece += "\n\n"
        elif kind == "line":
            piece = rng.choice(words) + " "
        elif kind == "tiny":
            piece = f"{rng.choice(words).capitalize()} {rng.choice(words)}. "
        else:
            raise ValueError(kind)
        parts.append(piece)
        total += len(piece)
    return "".join(parts)[:size]


def measure(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Run ``command``; wall seconds, peak resident MB (this child alone) and its exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # communicate() would reap the child itself; read its pipes on threads and wait4 for its own rusage
    out: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda name, pipe: out.__setitem__(name, pipe.read()), args=(n, p))
        for n, p in (("stdout", proc.stdout), ("stderr", proc.stderr))
    ]
    for r in readers:
        r.start()
    _pid, status, usage = os.wait4(proc.pid, 0)
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "seconds": round(time.perf_counter() - start, 2),
        "peak_mb": round(usage.ru_maxrss / 1024, 1),
        "exit": proc.returncode,
        "stdout": out.get("stdout", b"").decode("utf-8", "replace"),
        "stderr": out.get("stderr", b"").decode("utf-8", "replace")[-2000:],
    }


def ingest_runs(kinds: list[str], sizes: list[float], env: dict[str, str], folder: Path) -> list[dict[str, Any]]:
    rows = []
    for kind in kinds:
        for mb in sizes:
            path = folder / f"{kind}-{mb:g}mb.txt"
            path.write_text(make_text(kind, int(mb * 1_000_000)), encoding="utf-8")
            db = folder / f"{kind}-{mb:g}.db"
            err.print(f"ingest {path.name} …")
            # Every size is ingested (the text limit raised where needed); a size within the default
            # limit is what a user's ingest accepts, and is held to the 10-minute target.
            limit = ["--max-text-mb", f"{mb + 0.01:g}"] if mb > DEFAULTS.max_text_mb else []
            run = measure([*CITEGRAPH, "ingest", str(path), "--db", str(db), "--quiet", "--json", *limit], env)
            report = json.loads(run["stdout"]) if run["stdout"].startswith("{") else {}
            totals = report.get("totals", {})
            doc = (report.get("documents") or [{}])[0]
            rows.append(
                {
                    "kind": kind,
                    "mb": mb,
                    "accepted_by_default": mb <= DEFAULTS.max_text_mb,
                    "seconds": run["seconds"],
                    "s_per_mb": round(run["seconds"] / mb, 2),
                    "peak_mb": run["peak_mb"],
                    "exit": run["exit"],
                    "status": doc.get("status"),
                    "sentences": totals.get("sentences"),
                    "store_mb": round(sum(p.stat().st_size for p in folder.glob(f"{db.name}*")) / 1e6, 1),
                    "notes": doc.get("notes", []),
                    "error": run["stderr"] if run["exit"] not in (0, 3) else "",
                }
            )
            for p in folder.glob(f"{db.name}*"):
                p.unlink()
            path.unlink()
    return rows


def answer_runs(claims: list[int], env: dict[str, str], folder: Path) -> list[dict[str, Any]]:
    handbook = Path(__file__).resolve().parents[1] / "src" / "citegraph" / "demo" / "larkspur"
    db = folder / "larkspur.db"
    subprocess.run([*CITEGRAPH, "ingest", str(handbook), "--db", str(db), "--quiet"], env=env, check=True, capture_output=True)
    rows = []
    for n in claims:
        path = folder / f"answer-{n}.txt"
        path.write_text("".join(f"Exports stay available for {i % 60} days after cancellation [1].\n" for i in range(n)), encoding="utf-8")
        err.print(f"ask --answer-file with {n} claims …")
        question = "How long do exports stay available after cancellation?"
        run = measure([*CITEGRAPH, "ask", question, "--answer-file", str(path), "--db", str(db), "--json"], env)
        rows.append(
            {
                "claims": n,
                "kb": round(path.stat().st_size / 1000, 1),
                "seconds": run["seconds"],
                "peak_mb": run["peak_mb"],
                "exit": run["exit"],
                "refused": run["exit"] == 1 and any(cap in run["stderr"] for cap in ("max-claims", "max-answer-chars")),
                "message": run["stderr"].strip().splitlines()[-1][:300] if run["exit"] else "",
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="0.25,0.5,1", help="file sizes in MB (comma-separated)")
    parser.add_argument("--kinds", default="prose,line,tiny")
    parser.add_argument("--claims", default="100,30000", help="answer-file claim counts (the default cap is 100)")
    parser.add_argument("--embedder", default="minilm", help="minilm (what users run) or hashing (isolates parsing and storage)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    kinds = [k for k in args.kinds.split(",") if k]
    env = {**os.environ, "CITEGRAPH_EMBEDDER": args.embedder}
    before = load_before_run(err)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ingests = ingest_runs(kinds, sizes, env, folder)
        answers = answer_runs([int(c) for c in args.claims.split(",") if c], env, folder)

    prose = {r["mb"]: r["s_per_mb"] for r in ingests if r["kind"] == "prose"}
    table = Table("kind", "MB", "s", "s/MB", "× prose s/MB", "peak MB", "sentences", "store MB", "status")
    for r in ingests:
        ratio = f"{r['s_per_mb'] / prose[r['mb']]:.2f}" if prose.get(r["mb"]) else "–"
        r["vs_prose"] = None if ratio == "–" else float(ratio)
        table.add_row(
            r["kind"], f"{r['mb']:g}", f"{r['seconds']:.1f}", f"{r['s_per_mb']:.1f}", ratio, f"{r['peak_mb']:.0f}", str(r["sentences"]),
            f"{r['store_mb']:.1f}", str(r["status"]),
        )  # fmt: skip
    Console().print(table)
    linear = {}
    for kind in kinds:
        rows = sorted((r for r in ingests if r["kind"] == kind and r["s_per_mb"]), key=lambda r: r["mb"])
        if len(rows) >= 2:
            linear[kind] = round(rows[-1]["s_per_mb"] / rows[0]["s_per_mb"], 2)
    Console().print(
        "time linearity (s/MB at the largest size ÷ s/MB at the smallest; 1.0 is linear): "
        + ", ".join(f"{k} {v:.2f}" for k, v in linear.items())
    )
    peak = max((r["peak_mb"] for r in ingests), default=0.0)
    if ingests:
        verdict = "met" if peak <= PEAK_LIMIT_MB else "MISSED"
        Console().print(f"largest peak memory of an accepted file: {peak:.0f} MB (target ≤ {PEAK_LIMIT_MB} MB): {verdict}")
    accepted = [r for r in ingests if r["accepted_by_default"]]
    if accepted:
        worst = max(accepted, key=lambda r: r["seconds"])
        verdict = "met" if worst["seconds"] <= TIME_LIMIT_S else "MISSED"
        Console().print(
            f"slowest accepted file (within the default {DEFAULTS.max_text_mb:g} MB text limit): {worst['kind']} {worst['mb']:g} MB "
            f"in {worst['seconds']:.0f} s (target ≤ {TIME_LIMIT_S} s): {verdict}"
        )
    answers_table = Table("claims", "KB", "s", "peak MB", "exit", "refused by the cap")
    for a in answers:
        answers_table.add_row(
            str(a["claims"]), f"{a['kb']:.1f}", f"{a['seconds']:.1f}", f"{a['peak_mb']:.0f}", str(a["exit"]), str(a["refused"])
        )
    Console().print(answers_table)
    write_figures(
        args.json_out,
        {
            "command": " ".join(["python", "bench/hostile.py", *sys.argv[1:]]),
            "environment": environment(),
            "embedder": args.embedder,
            "load_average_1min": load_figures(before),
            "ingest": ingests,
            "linearity": linear,
            "peak_mb_max": peak,
            "peak_target_mb": PEAK_LIMIT_MB,
            "answers": answers,
        },
        err,
    )


if __name__ == "__main__":
    main()
