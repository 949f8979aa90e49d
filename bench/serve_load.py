"""Load and leaks of `citegraph serve`: concurrent /ask clients while an upload is ingested.

Builds a store (the bundled Larkspur handbook as ``public``, one secret as ``staff``), makes a staff
token, starts ``citegraph serve`` on 127.0.0.1 in its own process, then runs ``--clients`` threads
that send ``--requests`` ``/ask`` requests in all, half without a token (public) and half with the
staff token, while one upload of ``--upload-docs`` documents (staff) is ingested through
``POST /documents``. It counts errors and every public response that holds the secret's text (a
leak), and reports p50/p99 latency and throughput. The baseline, in the same run: the CLI's
process-per-question path (``citegraph ask`` in a new process) on ``--cli-questions`` questions,
as the ratio of its mean seconds per question to the server's. Every loop is bounded by a count and
by ``--max-seconds``.

    python bench/serve_load.py [--workers N] --json-out docs/results/DATE/serve_load.json
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from common import environment, load_before_run, load_figures, write_figures

SECRET = "The Zephyrion merger closes on 14 March at a price of 412 million."
LEAK_MARKERS = ("412 million", "14 March", "Zephyrion merger closes")
QUESTIONS = (
    "How long do exports stay available after cancellation?",
    "When does the Zephyrion merger close?",
    "How are large exports delivered?",
    "What does cancelling do to billing?",
    "How long are snapshots kept?",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citegraph.cli", *args], env=env, capture_output=True, text=True, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=2000, help="/ask requests in all, shared by the clients")
    parser.add_argument("--upload-docs", type=int, default=50, help="documents uploaded while the clients ask (0: no upload)")
    parser.add_argument("--cli-questions", type=int, default=10)
    parser.add_argument("--max-seconds", type=float, default=900.0, help="stop sending after this long, whatever is left")
    parser.add_argument("--workers", type=int, default=1, help="server processes (citegraph serve --workers)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    err = Console(stderr=True)
    before = load_before_run(err)
    work = Path(tempfile.mkdtemp(prefix="citegraph-load-"))
    env = {**os.environ, "CITEGRAPH_DB": str(work / "load.db")}
    larkspur = Path(__file__).resolve().parents[1] / "src" / "citegraph" / "demo" / "larkspur"
    (work / "staff").mkdir()
    (work / "staff" / "merger.md").write_text(SECRET + "\n", encoding="utf-8")
    for step in (["ingest", str(larkspur), "--quiet"], ["ingest", str(work / "staff"), "--access", "staff", "--quiet"]):
        done = _cli(*step, env=env)
        if done.returncode != 0:
            raise SystemExit(f"set-up failed: {' '.join(step)}\n{done.stderr}")
    token = _cli("token", "add", "staff", "--labels", "staff", env=env).stdout.strip()
    staff = {"Authorization": f"Bearer {token}"}
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port), "--workers", str(args.workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    result: dict[str, Any] = {"environment": environment(), "command": "python bench/serve_load.py " + " ".join(sys.argv[1:])}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            raise SystemExit("the server did not come up in 120 s: " + (server.stderr.read() if server.stderr else ""))
        with httpx.Client(base_url=base, timeout=120) as warm:  # first request loads spaCy and the view
            warm.post("/ask", json={"question": QUESTIONS[0]})

        latencies: list[float] = []
        errors: list[str] = []
        leaks: list[str] = []
        staff_saw: list[int] = []  # staff responses holding the secret: the leak check can see it
        lock = threading.Lock()
        counter = iter(range(args.requests))
        stop = time.monotonic() + args.max_seconds

        def client_loop() -> None:
            with httpx.Client(base_url=base, timeout=120) as client:
                while time.monotonic() < stop:
                    with lock:
                        i = next(counter, None)
                    if i is None:
                        return
                    public = i % 2 == 0
                    question = QUESTIONS[i % len(QUESTIONS)]
                    start = time.perf_counter()
                    try:
                        response = client.post("/ask", json={"question": question}, headers={} if public else staff)
                    except httpx.HTTPError as exc:
                        with lock:
                            errors.append(f"{type(exc).__name__}: {exc}")
                        continue
                    seconds = time.perf_counter() - start
                    with lock:
                        latencies.append(seconds)
                        if response.status_code != 200:
                            errors.append(f"{response.status_code}: {response.text[:200]}")
                        elif any(marker in response.text for marker in LEAK_MARKERS):
                            (leaks.append(response.text[:300]) if public else staff_saw.append(i))

        uploads = [
            {
                "name": f"note-{i:02d}.md",
                "text": " ".join(f"Orion review {i}.{j} needs {i + j + 2} reviewers from team {j}." for j in range(40)),
            }
            for i in range(args.upload_docs)
        ]  # 40 sentences each: the ingest runs through a good part of the load
        started = time.perf_counter()
        # --upload-docs 0: the same load with no upload running
        job = httpx.post(f"{base}/documents", json={"documents": uploads}, headers=staff, timeout=120).json()["job"] if uploads else None
        threads = [threading.Thread(target=client_loop) for _ in range(args.clients)]
        for t in threads:
            t.start()
        upload_state: dict[str, Any] = {}
        while job is not None and time.monotonic() < stop:
            upload_state = httpx.get(f"{base}/jobs/{job}", headers=staff, timeout=120).json()
            if upload_state.get("state") in {"done", "failed"}:
                break
            time.sleep(0.5)
        upload_seconds = time.perf_counter() - started
        for t in threads:
            t.join()
        wall = time.perf_counter() - started
        ok = sorted(latencies)
        result["server"] = {
            "workers": args.workers,
            "clients": args.clients,
            "requests_sent": len(latencies) + sum(1 for e in errors if not e[:3].isdigit()),
            "errors": len(errors),
            "error_examples": errors[:5],
            "public_responses_with_staff_text": len(leaks),
            "staff_responses_with_staff_text": len(staff_saw),
            "p50_ms": round(1000 * statistics.median(ok), 1) if ok else None,
            "p99_ms": round(1000 * ok[min(len(ok) - 1, int(0.99 * len(ok)))], 1) if ok else None,
            "mean_ms": round(1000 * statistics.fmean(ok), 1) if ok else None,
            "throughput_per_s": round(len(ok) / wall, 2),
            "wall_s": round(wall, 1),
            "upload": {
                "documents": args.upload_docs,
                "state": upload_state.get("state"),
                "ok": sum(1 for d in (upload_state.get("report") or {}).get("documents", []) if d["status"] == "ok"),
                "seconds": round(upload_seconds, 1),
            },
        }
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()

    cli_seconds = []
    for i in range(args.cli_questions):
        start = time.perf_counter()
        done = _cli("ask", QUESTIONS[i % len(QUESTIONS)], "--json", env=env)
        cli_seconds.append(time.perf_counter() - start)
        if done.returncode != 0:
            err.print(f"[red]cli ask failed: {done.stderr[:300]}[/red]")
    result["cli_process_per_question"] = {"questions": args.cli_questions, "mean_s": round(statistics.fmean(cli_seconds), 2)}
    server_mean = result["server"]["mean_ms"] / 1000 if result["server"]["mean_ms"] else None
    result["ratio_cli_over_server_mean"] = round(statistics.fmean(cli_seconds) / server_mean, 1) if server_mean else None
    per_request = result["server"]["wall_s"] / max(len(latencies), 1)  # service time at this concurrency
    result["ratio_cli_over_server_per_request"] = round(statistics.fmean(cli_seconds) / per_request, 1)
    result["load_average_1min"] = load_figures(before)
    shutil.rmtree(work, ignore_errors=True)
    err.print(result)
    write_figures(args.json_out, result, err)


if __name__ == "__main__":
    main()
