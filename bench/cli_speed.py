"""The speed a person feels at the command line (issue 39, item 1): each command run as a fresh
process, as a person runs it, ``--repeat`` times, median seconds and peak memory, and the ratio to
``python -c "import citegraph"`` measured in the same run (the floor: the interpreter and the
package; a ratio survives a faster or slower machine, the seconds do not).

The store: the bundled Larkspur handbook (5 documents), ingested with the default settings into a
temporary folder before the runs. Commands: ``--help``, ``documents``, ``ask`` (the extractive
answerer and the trained checker: the defaults), ``ask --json``; run in turn, one of each per round,
so that a busy moment of the machine falls on all of them alike.

citegraph's modules are compiled to bytecode first (``compileall``), as ``pip install`` does: each
process then reads its modules as it would after an install. Without that, where the environment
sets ``PYTHONDONTWRITEBYTECODE`` (this project's machines do) or the package cannot write beside
its sources, every process compiles citegraph's sources again (about 0.1 s here); the report says
whether the variable was set.

    python bench/cli_speed.py --repeat 5 --out docs/results/DATE/cli-speed/
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LARKSPUR = ROOT / "src" / "citegraph" / "demo" / "larkspur"
QUESTION = "How long do exports stay available after cancellation?"


def _run(argv: list[str]) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of one process."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return seconds, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    cli = [sys.executable, "-m", "citegraph.cli"]
    import citegraph

    compileall.compile_dir(Path(citegraph.__file__).parent, quiet=1)  # as an install leaves it
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "larkspur.db")
        subprocess.run([*cli, "ingest", "--db", db, str(LARKSPUR)], check=True, capture_output=True)
        commands = {
            'python -c "import citegraph" (floor)': [sys.executable, "-c", "import citegraph"],
            "citegraph --help": [*cli, "--help"],
            "citegraph documents": [*cli, "documents", "--db", db],
            "citegraph ask": [*cli, "ask", "--db", db, QUESTION],
            "citegraph ask --json": [*cli, "ask", "--db", db, "--json", QUESTION],
        }
        before = os.getloadavg()
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _round in range(args.repeat):
            for name, argv in commands.items():
                runs[name].append(_run(argv))
        after = os.getloadavg()
        rows = {name: {"seconds": statistics.median(s for s, _m in got), "peak_mb": max(m for _s, m in got)} for name, got in runs.items()}
    floor = rows['python -c "import citegraph" (floor)']["seconds"]
    load = {"before": before[0], "after": after[0]}
    no_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    lines = [
        "# CLI speed (bench/cli_speed.py)",
        "",
        f"Each command a fresh process, median of {args.repeat} (in turn, one of each per round); the Larkspur handbook (5 "
        f"documents); citegraph's modules compiled to bytecode first (PYTHONDONTWRITEBYTECODE "
        f"{'set' if no_bytecode else 'not set'}); 1-minute load average {load['before']:.2f} before the runs, "
        f"{load['after']:.2f} after.",
        "",
        "| command | seconds | × `import citegraph` | peak MB |",
        "|---|---|---|---|",
        *[f"| `{name}` | {r['seconds']:.2f} | {r['seconds'] / floor:.1f} | {r['peak_mb']:.0f} |" for name, r in rows.items()],
        "",
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cli-speed.json").write_text(
        json.dumps({"repeat": args.repeat, "load": load, "no_bytecode_env": no_bytecode, "rows": rows}, indent=2) + "\n", encoding="utf-8"
    )
    (args.out / "README.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
