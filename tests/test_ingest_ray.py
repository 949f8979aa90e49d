"""`citegraph ingest --executor ray` (issue 12, item 4): a local Ray cluster of a head and one worker
node on 127.0.0.1, started by the test; the store it fills is compared record for record with a
single-process ingest of the same files."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from tests.test_ingest_workers import NOTES, _rows

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'citegraph[ray]'")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A head node and one worker node, one CPU each, on loopback, stopped at the end."""
    ray_cli = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}  # a throwaway loopback cluster
    address = f"127.0.0.1:{port}"
    common = ["--node-ip-address=127.0.0.1", "--num-cpus=1", "--disable-usage-stats"]
    head = [ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false", *common]
    worker = [ray_cli, "start", f"--address={address}", *common]
    try:
        for command in (head, worker):
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, check=False)
            assert done.returncode == 0, done.stdout + done.stderr
        old = os.environ.get("RAY_AUTH_MODE")
        os.environ["RAY_AUTH_MODE"] = "disabled"
        yield address
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True, timeout=120, check=False)
        if "old" in locals():
            if old is None:
                os.environ.pop("RAY_AUTH_MODE", None)
            else:
                os.environ["RAY_AUTH_MODE"] = old


def test_ray_actors_store_exactly_what_one_process_stores(cluster: str, tmp_path: Path, larkspur: Path, write) -> None:  # type: ignore[no-untyped-def]
    for name, text in NOTES.items():
        folder = write(name, text).parent
    runner = CliRunner()
    reports = {}
    for how in (["--workers", "1"], ["--executor", "ray", "--workers", "2", "--ray-address", cluster]):
        db = tmp_path / f"{how[1]}.db"
        result = runner.invoke(main, ["ingest", str(larkspur), str(folder), "--db", str(db), "--embedder", "hashing", "--json", *how])
        assert result.exit_code == 0, result.output
        reports[how[1]] = json.loads(result.stdout)["documents"]
    assert [(d["id"], d["status"], d["relations"]) for d in reports["ray"]] == [
        (d["id"], d["status"], d["relations"]) for d in reports["1"]
    ]
    one, distributed = _rows(tmp_path / "1.db"), _rows(tmp_path / "ray.db")
    assert len(distributed["documents"]) == 17
    for table in one:
        assert distributed[table] == one[table], table


def test_a_batch_whose_actor_died_is_indexed_here(cluster: str, tmp_path: Path, write) -> None:  # type: ignore[no-untyped-def]
    from citegraph.ingest.indexer import content_version
    from citegraph.ingest.workers import RayIndexing
    from citegraph.models import Document
    from citegraph.pipeline import CiteGraph

    with CiteGraph.open(tmp_path / "k.db", "hashing") as graph:
        graph.ingest([write("a.md", "Orion ships on 2 May.")])
        assert graph.spec is not None
        here: list[str] = []
        indexing = RayIndexing(graph.spec, 1, lambda docs: here.extend(d.id for d in docs) or [], cluster)  # type: ignore[func-returns-value]
        try:
            doc = Document("x.md", content_version("Vega ships."), "Vega ships.", "x.md", ("public",), None, "", True, "text/markdown")
            (result,) = indexing.result(indexing.submit([doc]), [doc])  # the actor works
            assert result.document.id == "x.md" and here == []
            ray.kill(indexing._actors[0], no_restart=True)
            assert indexing.result(indexing.submit([doc]), [doc]) == [] and here == ["x.md"] and indexing.retried == ["x.md"]
        finally:
            indexing.close()


def test_ray_actors_ingest_into_postgres_as_one_process_does_into_sqlite(  # type: ignore[no-untyped-def]
    cluster: str, postgres_cluster, tmp_path: Path, larkspur: Path, write
) -> None:
    """The issue's set-up: Ray actors index, the ingesting process commits to PostgreSQL as results
    arrive; the store holds what a single-process ingest into SQLite holds."""
    for name, text in NOTES.items():
        folder = write(name, text).parent
    url = postgres_cluster.create_database()
    try:
        runner = CliRunner()
        one = tmp_path / "one.db"
        assert runner.invoke(main, ["ingest", str(larkspur), str(folder), "--db", str(one), "--embedder", "hashing"]).exit_code == 0
        ray_run = ["ingest", str(larkspur), str(folder), "--db", url, "--embedder", "hashing", "--executor", "ray", "--workers", "2"]
        result = runner.invoke(main, [*ray_run, "--ray-address", cluster, "--json"])
        assert result.exit_code == 0, result.output
        assert {d["status"] for d in json.loads(result.stdout)["documents"]} == {"ok"}
        expected, stored = _rows(one), _rows(url)
        for table in expected:
            assert stored[table] == expected[table], table
    finally:
        postgres_cluster.drop_database(url)
