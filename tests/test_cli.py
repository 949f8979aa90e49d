"""The CLI edge: JSON shapes, exit codes, error translation. Uses the hashing embedder (fast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.settings import SETTINGS


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CITEGRAPH_DB", str(tmp_path / "cli.db"))
    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    runner = CliRunner()

    def _run(*args: str, code: int = 0):  # type: ignore[no-untyped-def]
        result = runner.invoke(main, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output + result.stderr
        return result

    return _run


def test_an_answer_lists_the_nearest_reached_entities_and_counts_them_all(run, larkspur: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from citegraph.output import records

    run("ingest", str(larkspur), "--quiet")
    question = "How long do exports stay available after cancellation?"
    full = json.loads(run("ask", question, "--no-verify", "--json").stdout)["retrieval"]
    assert full["reached"] == len(full["nodes"]) > 2 and "nodes_note" not in full
    monkeypatch.setattr(records, "ANSWER_NODES", 2)
    cut = json.loads(run("ask", question, "--no-verify", "--json").stdout)["retrieval"]
    assert cut["reached"] == full["reached"] and cut["nodes"] == full["nodes"][:2]
    assert f"first 2 of {full['reached']}" in cut["nodes_note"] and "citegraph traverse" in cut["nodes_note"]


def test_ingest_ask_and_inspect_json(run, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    report = json.loads(run("ingest", str(larkspur), "--json", "--quiet").stdout)
    assert report["totals"]["ok"] == 5 and report["totals"]["failed"] == 0
    assert set(report["documents"][0]) >= {"id", "version", "status", "sentences", "entities", "relations", "rejected"}

    answer = json.loads(run("ask", "How long do exports stay available after cancellation?", "--no-verify", "--json").stdout)
    assert set(answer) >= {"question", "answer", "status", "context", "claims", "warnings", "retrieval", "models", "answerability"}
    # cited (nothing checked the support), and conflicting: the 2023 FAQ says exports go at cancellation
    assert answer["status"] == "conflicting" and any(w["code"] == "conflict" for w in answer["warnings"])
    assert set(answer["context"][0]) >= {"marker", "document", "version", "start", "end", "sentence"}
    citation = answer["claims"][0]["citations"][0]
    assert set(citation) >= {"marker", "document", "version", "start", "end", "sentence", "support", "route"}
    assert citation["support"] == {
        "label": "unverified",
        "score": None,
        "verifier": "none",
        "guards": [],
        "stage": "none",
        "calibrated": None,
    }
    assert set(answer["retrieval"]) == {"seeds", "hops", "reached", "nodes", "summary", "read_as", "spelled_out", "communities"}
    assert answer["retrieval"]["summary"] is None and answer["retrieval"]["read_as"] is None and answer["retrieval"]["spelled_out"] == []
    assert answer["retrieval"]["communities"] == []
    assert answer["retrieval"]["reached"] == len(answer["retrieval"]["nodes"])  # a small graph: all of them
    assert set(answer["models"]) == {"extractor", "embedder", "generator", "verifier", "reader"}

    nodes = json.loads(run("traverse", "Exports", "--hops", "1", "--json").stdout)["nodes"]
    assert nodes[0] == {"entity": "export", "name": nodes[0]["name"], "depth": 0, "seed": "export", "route": []}
    assert all(n["depth"] == 1 and n["route"][0]["from"] == "export" for n in nodes[1:])

    entity = json.loads(run("show", "entity", "export", "--json").stdout)
    assert {m["document"] for m in entity["mentions"]} >= {"exports.md", "faq-2023.md", "retention-policy.md"}
    rels = json.loads(run("show", "relations", "--between", "export", "snapshot", "--json").stdout)
    assert rels and all({r["source"], r["target"]} == {"export", "snapshot"} for r in rels)
    docs = json.loads(run("documents", "--json").stdout)
    assert sorted(d["id"] for d in docs) == ["billing.md", "exports.md", "faq-2023.md", "retention-policy.md", "snapshots.md"]

    again = json.loads(run("ingest", str(larkspur), "--json", "--quiet").stdout)
    assert again["totals"]["unchanged"] == 5


def test_answer_file_is_checked_against_the_context(run, larkspur: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("ingest", str(larkspur), "--quiet")
    answer_file = tmp_path / "answer.txt"
    answer_file.write_text("Exports stay available for 30 days [1]. Snapshots last 30 days [3]. See also [9].", encoding="utf-8")
    out = json.loads(run("ask", "How long do exports stay available?", "--answer-file", str(answer_file), "--no-verify", "--json").stdout)
    assert [c["status"] for c in out["claims"]] == ["unverified", "unverified", "invalid_marker"]
    assert out["claims"][0]["text"] == "Exports stay available for 30 days."
    assert out["warnings"][0]["code"] == "invalid_marker" and out["warnings"][0]["marker"] == 9
    # and the handbook's 2023 FAQ, in the context, disagrees with the policy and is older: said
    assert {w["code"] for w in out["warnings"][1:]} == {"conflict", "stale"}
    assert out["models"]["generator"] == "answer-file"


def test_exit_codes(run, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # 1: the user's mistake, named.
    missing = run("ingest", str(tmp_path / "nope"), "--json", code=1)
    assert json.loads(missing.stdout)["ok"] is False and "no such file or folder" in missing.stderr
    assert "no entity named 'Exprts'" in run("traverse", "Exprts", code=1).stderr
    # 3: partial success; the good file is still ingested.
    write("good.md", "Exports use the latest snapshot.")
    bad = write("bad.txt", b"\xff\xfe\x00binary")
    result = run("ingest", str(bad.parent), "--json", "--quiet", code=3)
    assert {d["id"]: d["status"] for d in json.loads(result.stdout)["documents"]} == {"bad.txt": "failed", "good.md": "ok"}
    assert "did you mean 'export'" in run("traverse", "Exprts", code=1).stderr
    # 1 too: a usage error (click's own code, 2, means "backend unavailable" here).
    assert "No such option" in run("documents", "--hopz", "2", code=1).stderr
    # 2: the store (a backend) is unusable.
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"garbage" * 200)
    assert "not a readable citegraph store" in run("documents", "--db", str(broken), code=2).stderr


def test_demo_runs_and_cites(run) -> None:  # type: ignore[no-untyped-def]
    out = json.loads(run("demo", "--generator", "extractive", "--verifier", "none", "--json").stdout)
    assert out["answer"]["status"] == "conflicting"  # cited, and the 2023 FAQ disagrees with the policy (rules, no model)
    assert any(w["code"] == "stale" and w["document"] == "faq-2023.md" for w in out["answer"]["warnings"])
    assert out["answer"]["claims"] and all(c["citations"] for c in out["answer"]["claims"])


def test_demo_without_the_local_model_says_so_and_falls_back(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CITEGRAPH_CACHE", str(tmp_path / "empty-cache"))
    result = run("demo", "--json")
    out = json.loads(result.stdout)
    assert out["note"].startswith("local model unavailable (") and "using 'extractive' instead" in out["note"]
    assert "note: local model unavailable" in result.stderr
    assert out["answer"]["models"]["generator"] == "extractive"
    assert out["answer"]["models"]["verifier"] == "checker"
    # every extractive claim is a quote of its cited span, supported; and the 2023 FAQ in the context is stale
    assert out["answer"]["status"] == "conflicting"
    assert {c["status"] for c in out["answer"]["claims"]} == {"supported"}
    assert any(w["code"] == "stale" and w["document"] == "faq-2023.md" for w in out["answer"]["warnings"])


def test_every_setting_is_a_flag_and_documented() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    flags = {p.opts[0] for cmd in _commands(main) for p in cmd.params if p.opts}
    for s in SETTINGS:
        assert f"--{s.name}" in flags, s.name
        assert f"| `--{s.name}` | `{s.default}` | `{s.env}` | {s.range or '–'} |" in readme, s.name


def test_every_command_is_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for path in (
        "ingest",
        "ask",
        "traverse",
        "show entity",
        "show relations",
        "documents",
        "relabel",
        "supersede",
        "demo",
        "models",
        "models pull",
        "serve",
        "token add",
        "token list",
        "token revoke",
    ):
        assert f"citegraph {path}" in readme or f"make {path}" in readme, path


def _commands(group):  # type: ignore[no-untyped-def]
    for cmd in group.commands.values():
        yield cmd
        if hasattr(cmd, "commands"):
            yield from _commands(cmd)


def test_config_file_sets_defaults_and_flags_override_it(tmp_path: Path, larkspur: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CITEGRAPH_DB", raising=False)
    (tmp_path / "citegraph.toml").write_text('db = "from-config.db"\nembedder = "hashing"\nhops = 1\n', encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(larkspur), "--quiet"]).exit_code == 0
    assert (tmp_path / "from-config.db").is_file()
    out = json.loads(runner.invoke(main, ["ask", "exports", "--json"]).stdout)
    assert out["retrieval"]["hops"] == 1
    out = json.loads(runner.invoke(main, ["ask", "exports", "--hops", "2", "--json"]).stdout)
    assert out["retrieval"]["hops"] == 2
    (tmp_path / "bad.toml").write_text("hopz = 3\n", encoding="utf-8")
    result = runner.invoke(main, ["--config", str(tmp_path / "bad.toml"), "documents"])
    assert result.exit_code == 1 and "unknown setting 'hopz'; did you mean 'hops'?" in result.stderr


def test_models_lists_known_models_and_checks_configured_ones(run) -> None:  # type: ignore[no-untyped-def]
    out = json.loads(run("models", "--generator", "ollama:qwen2.5@http://127.0.0.1:9", "--timeout", "2", "--json").stdout)
    assert {k["name"] for k in out["known"]} >= {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m"}
    roles = {c["role"]: c for c in out["configured"]}
    assert roles["extractor"]["status"] == "built in"
    assert roles["generator"]["status"].startswith("unavailable: ollama:qwen2.5@http://127.0.0.1:9: cannot reach")
    assert "no known model named 'qwen-9b'" in run("models", "pull", "qwen-9b", code=1).stderr


MODEL_MODULES = ("onnxruntime", "tokenizers", "spacy", "thinc", "llama_cpp", "rouge_score")
_LISTING = """
import json, sys
from click.testing import CliRunner
from citegraph.cli import main
runner = CliRunner()
for args in json.loads(sys.argv[1]):
    result = runner.invoke(main, args)
    assert result.exit_code == 0, (args, result.output)
print(json.dumps(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)))
"""


def test_listing_commands_load_no_model(tmp_path: Path) -> None:
    """`documents`, `history`, `check` and `token list` read the store: they import no
    model runtime (the embedder, the parser, the checker and the reader are made when first used)."""
    import subprocess
    import sys

    doc = tmp_path / "policy.md"
    doc.write_text("Exports use the latest snapshot. The retention service deletes old snapshots.", encoding="utf-8")
    db = str(tmp_path / "g.db")
    assert CliRunner().invoke(main, ["ingest", "--db", db, str(doc)]).exit_code == 0  # the default embedder: MiniLM
    commands = [["documents", "--db", db], ["history", "policy.md", "--db", db], ["check", "--db", db]]
    commands.append(["token", "list", "--db", db])
    run = subprocess.run(
        [sys.executable, "-c", _LISTING, json.dumps(commands), json.dumps(MODEL_MODULES)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []


def test_ask_makes_the_sessions_in_a_thread_and_a_failing_one_is_reported_by_the_answer(
    run, larkspur: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import threading

    from citegraph.answer import reader
    from citegraph.errors import ModelUnavailable

    seen: list[str] = []

    def unavailable() -> None:
        seen.append(threading.current_thread().name)
        raise ModelUnavailable("the reader's model file is missing")

    run("ingest", str(larkspur), "--quiet")
    monkeypatch.setattr(reader, "default_reader", unavailable)
    out = json.loads(run("ask", "How long do exports stay available after cancellation?", "--json").stdout)
    assert "citegraph-sessions" in seen  # tried behind the question's parse first
    assert "the reader is unavailable (the reader's model file is missing)" in out["answerability"]["note"]
    assert out["claims"]  # the answer is made all the same, and says what it could not assess
