"""The CLI edge under hostile or careless use (issue 14, items 4, 5, 6 and 8): no tracebacks and the
documented exit codes, values out of range refused, no store created by a read, capped answer text,
nothing from a document or a file name reaching the terminal as a control sequence or as markup,
and the smaller input fixes (UTF-16/32 with a byte order mark, comma-separated labels, quiet pypdf,
the embedder-mismatch message). Uses the hashing embedder (fast)."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph import CiteGraph
from citegraph.answer.base import Answerer
from citegraph.cli import main, views
from citegraph.embed import HashingEmbedder
from citegraph.errors import InputFileError, StoreLocked, UserError, store_error
from citegraph.extract.keys import entity_key
from citegraph.ingest.loaders import decode, load_pdf
from citegraph.models import ContextItem
from citegraph.settings import SETTINGS, setting
from citegraph.store import SQLiteStore

ESC = "\x1b"
HOSTILE = "Exports last 30 days\x1b[0m after cancellation.\x1b[2J The screen was cleared by this sentence."


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


@pytest.fixture
def run(db: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("CITEGRAPH_DB", str(db))
    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    for name in ("CITEGRAPH_DEBUG", "CITEGRAPH_LOCK_TIMEOUT", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()

    def _run(*args: str, code: int = 0, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
        result = runner.invoke(main, list(args), catch_exceptions=False, env=env)
        assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
        assert "Traceback" not in result.stdout + result.stderr
        return result

    return _run


@pytest.fixture
def stored(run, write) -> Path:  # type: ignore[no-untyped-def]
    """A store holding one small document; returns the folder it came from."""
    path = write("exports.md", "Exports use the latest snapshot. Exports stay available for 30 days after cancellation.")
    run("ingest", str(path.parent), "--quiet")
    return path.parent


def _error(result) -> dict[str, str]:  # type: ignore[no-untyped-def]
    body = json.loads(result.stdout)
    assert body["ok"] is False and set(body["error"]) == {"type", "message"}
    return body["error"]  # type: ignore[no-any-return]


# -- exit codes: usage errors are the user's mistake ---------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("ask", "q", "--hopz", "2"),  # unknown option
        ("ask",),  # missing argument
        ("ask", "q", "--hops", "two"),  # not a number
        ("ingest", "x", "--dangling", "maybe"),  # not a choice
        ("frobnicate",),  # no such command
    ],
)
def test_usage_errors_exit_1_and_print_the_json_error_with_json(run, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    plain = run(*args, code=1)
    assert plain.stderr.startswith("error: ") and plain.stdout == ""
    error = _error(run(*args, "--json", code=1))
    assert error["type"] == "UsageError" and error["message"]


def test_help_and_version_still_exit_0(run) -> None:  # type: ignore[no-untyped-def]
    assert "Usage:" in run("ask", "-h").stdout
    assert "version" in run("--version").stdout


def test_an_unexpected_exception_is_one_line_naming_a_bug(run, stored: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    def broken(self, **kwargs):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(CiteGraph, "documents", broken)
    result = run("documents", code=5)
    assert result.stderr.splitlines() == [result.stderr.strip()]  # one line
    assert result.stderr.startswith("internal error: ZeroDivisionError: division by zero. This is a bug in citegraph")
    assert _error(run("documents", "--json", code=5))["type"] == "InternalError"
    debug = CliRunner().invoke(main, ["documents"], env={"CITEGRAPH_DEBUG": "1"})
    assert debug.exit_code == 5 and "Traceback" in debug.stderr and "ZeroDivisionError" in debug.stderr


# -- exit codes: the store ----------------------------------------------------------------------------------
def _corrupt_page_of(db: Path, table: str) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with db.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xff")  # not a b-tree page type: "database disk image is malformed"


def test_a_corrupt_page_is_a_check_finding_and_a_clear_error_elsewhere(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    _corrupt_page_of(db, "spans")
    report = json.loads(run("check", "--json", code=4).stdout)
    assert report["ok"] is False and [p["kind"] for p in report["problems"]] == ["sqlite"]
    assert "malformed" in report["problems"][0]["detail"]
    assert run("check", code=4).stdout.startswith("sqlite: ")
    broken = run("traverse", "export", code=2)
    assert f"{db}: not a readable citegraph store (database disk image is malformed)" in broken.stderr
    assert _error(run("traverse", "export", "--json", code=2))["type"] == "StoreError"


def test_a_write_lock_held_elsewhere_is_a_clear_error_after_the_lock_timeout(run, stored: Path, db: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("more.md", "Snapshots are taken every night.")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's ingest, mid-transaction
    try:
        started = time.monotonic()
        result = run("ingest", str(stored), "--quiet", env={"CITEGRAPH_LOCK_TIMEOUT": "0.2"}, code=2)
        assert time.monotonic() - started < 20  # not the default 30 s
        assert f"{db}: another process holds the store's write lock (waited 0.2 s)" in result.stderr
        assert "--lock-timeout" in result.stderr
        error = _error(run("ingest", str(stored), "--quiet", "--lock-timeout", "0", "--json", code=2))
        assert error["type"] == "StoreLocked"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    run("ingest", str(stored), "--quiet")  # the lock released, the same command works


def test_a_read_only_store_on_ingest_names_the_file_and_the_fix(  # type: ignore[no-untyped-def]
    run, stored: Path, db: Path, write, monkeypatch: pytest.MonkeyPatch
) -> None:
    write("more.md", "Snapshots are taken every night.")
    connect = sqlite3.connect

    def read_only(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        # What a file without write permission gives (root ignores chmod, so the test opens it read-only).
        return connect(f"file:{path}?mode=ro", *args, uri=True, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", read_only)
    result = run("ingest", str(stored), "--quiet", code=1)
    assert f"{db}: the store is read-only" in result.stderr and "chmod u+w" in result.stderr


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes to read-only files")
def test_a_read_only_store_file_on_ingest(run, stored: Path, db: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("more.md", "Snapshots are taken every night.")
    db.chmod(0o444)
    try:
        assert "read-only" in run("ingest", str(stored), "--quiet", code=1).stderr
    finally:
        db.chmod(0o644)


def test_store_error_tells_sqlite_errors_apart() -> None:
    def err(name: str) -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError(name.lower())
        exc.sqlite_errorname = name  # type: ignore[attr-defined]
        return exc

    assert isinstance(store_error("s.db", err("SQLITE_BUSY"), waited=1), StoreLocked)
    assert type(store_error("s.db", err("SQLITE_READONLY"))) is UserError
    assert store_error("s.db", err("SQLITE_CORRUPT")).exit_code == 2
    assert "s.db" in str(store_error("s.db", err("SQLITE_IOERR")))


# -- exit codes: files the user names -----------------------------------------------------------------------
def test_export_into_a_missing_folder_names_the_folder(run, stored: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "no-such-folder" / "g.graphml"
    result = run("export", "-o", str(target), code=1)
    assert f"folder {target.parent} does not exist" in result.stderr
    assert not target.parent.exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks like a binary file"),
        ("Exports last 30 días [1].".encode("latin-1"), "not valid UTF-8"),
    ],
)
def test_a_binary_or_latin1_answer_file_names_the_file(run, stored: Path, tmp_path: Path, content: bytes, problem: str) -> None:  # type: ignore[no-untyped-def]
    answer = tmp_path / "answer.txt"
    answer.write_bytes(content)
    result = run("ask", "How long do exports last?", "--answer-file", str(answer), code=1)
    assert result.stderr.startswith(f"error: {answer}: {problem}") and "iconv" in result.stderr
    assert _error(run("ask", "q", "--answer-file", str(answer), "--json", code=1))["type"] == "InputFileError"


# -- values that make no sense --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "flag", "valid"),
    [
        (("ask", "q", "--hops", "-1"), "--hops", "a whole number from 0 to 6"),
        (("ask", "q", "--hops", "7"), "--hops", "a whole number from 0 to 6"),
        (("ask", "q", "--top-k", "0"), "--top-k", "a whole number from 1 to 50"),
        (("ask", "q", "--context-size", "0"), "--context-size", "a whole number at least 1"),
        (("ask", "q", "--depth-penalty", "5"), "--depth-penalty", "a number from 0 to 1"),
        (("ask", "q", "--depth-penalty", "nan"), "--depth-penalty", "a number from 0 to 1"),
        (("ask", "q", "--support-threshold", "7"), "--support-threshold", "a number from 0 to 1"),
        (("ask", "q", "--timeout", "-1"), "--timeout", "a number above 0"),
        (("ask", "q", "--max-answer-chars", "0"), "--max-answer-chars", "a whole number at least 1"),
        (("ask", "q", "--max-claims", "0"), "--max-claims", "a whole number at least 1"),
        (("ask", "q", "--lock-timeout", "-1"), "--lock-timeout", "a number at least 0"),
        (("traverse", "export", "--hops", "-1"), "--hops", "a whole number from 0 to 6"),
        (("ingest", "x", "--max-file-mb", "0"), "--max-file-mb", "a number above 0"),
        (("ingest", "x", "--max-file-mb", "inf"), "--max-file-mb", "a number above 0"),
    ],
)
def test_values_out_of_range_are_refused_naming_the_flag_and_range(run, args: tuple[str, ...], flag: str, valid: str) -> None:  # type: ignore[no-untyped-def]
    result = run(*args, code=1)
    assert f"Invalid value for '{flag}': must be {valid}, not " in result.stderr


def test_environment_and_config_values_are_checked_like_flags(run, stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    assert "must be a whole number from 1 to 50, not 0" in run("ask", "exports", env={"CITEGRAPH_TOP_K": "0"}, code=1).stderr
    config = tmp_path / "bad.toml"
    config.write_text("depth_penalty = 5.0\n", encoding="utf-8")
    result = run("--config", str(config), "ask", "exports", code=1)
    assert "'--depth-penalty': must be a number from 0 to 1, not 5.0" in result.stderr


def test_every_numeric_setting_has_a_range_and_its_default_is_in_it() -> None:
    for s in SETTINGS:
        if isinstance(s.default, int | float):
            assert s.range and s.problem(s.default) is None, s.name
            assert s.problem(float("nan")) is not None, s.name
    assert setting("hops").problem(1.5) is not None  # a whole number
    assert setting("hops").problem(True) is not None


def test_the_python_api_refuses_the_same_values_naming_the_parameter(db: Path) -> None:
    store = SQLiteStore(":memory:")
    for options, name in (
        ({"hops": -1}, "hops"),
        ({"top_k": 0}, "top_k"),
        ({"context_size": 0}, "context_size"),
        ({"depth_penalty": float("nan")}, "depth_penalty"),
        ({"max_file_mb": 0.0}, "max_file_mb"),
        ({"max_answer_chars": 0}, "max_answer_chars"),
        ({"max_claims": -3}, "max_claims"),
    ):
        with pytest.raises(UserError, match=rf"^{name} must be "):
            CiteGraph(store, HashingEmbedder(), **options)  # type: ignore[arg-type]
    for options, name in (({"timeout": -1.0}, "timeout"), ({"support_threshold": 7.0}, "support_threshold")):
        with pytest.raises(UserError, match=rf"^{name} must be "):
            CiteGraph.open(db, "hashing", **options)  # type: ignore[arg-type]
    assert not db.exists()  # refused before the store was opened
    with CiteGraph(store, HashingEmbedder()) as graph, pytest.raises(UserError, match=r"^hops must be a whole number from 0 to 6"):
        graph.ask("exports", hops=-1)


@pytest.mark.parametrize(
    "args",
    [
        ("ask", "exports"),
        ("traverse", "export"),
        ("show", "entity", "export"),
        ("show", "relations"),
        ("documents",),
        ("history", "a.md"),
        ("rm", "a.md"),
        ("check",),
        ("export",),
    ],
)
def test_a_read_on_a_missing_store_is_an_error_and_creates_nothing(run, tmp_path: Path, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    typo = tmp_path / "citegrpah.db"
    result = run(*args, "--db", str(typo), code=1)
    assert f"no store at {typo}; ingest documents first or check --db" in result.stderr
    assert not typo.exists() and not Path(f"{typo}-wal").exists()


def test_the_python_api_still_creates_a_store_by_default_and_not_when_told(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no store at"):
        CiteGraph.open(tmp_path / "new.db", "hashing", create=False)
    with CiteGraph.open(tmp_path / "new.db", "hashing") as graph:
        assert graph.documents() == []
    with CiteGraph.open(tmp_path / "new.db", "hashing", create=False) as graph:
        assert graph.documents() == []


# -- caps on answer text ------------------------------------------------------------------------------------
def test_answer_text_over_the_character_cap_is_refused_before_any_check(run, stored: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answer = tmp_path / "answer.txt"
    answer.write_text("Exports stay available for 30 days [1]. " * 600, encoding="utf-8")  # 24,000 characters
    result = run("ask", "How long do exports last?", "--answer-file", str(answer), code=1)
    assert "the answer text has 24,000 characters, over the limit of 20,000" in result.stderr
    assert "max-answer-chars" in result.stderr
    run("ask", "How long do exports last?", "--answer-file", str(answer), "--max-answer-chars", "30000", "--max-claims", "1000")


def test_answer_text_over_the_claim_cap_is_refused_before_any_check(run, stored: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    answer = tmp_path / "answer.txt"
    answer.write_text("Exports last 30 days [1]. Snapshots are nightly [2]. Billing is monthly [1].", encoding="utf-8")
    result = run("ask", "exports", "--answer-file", str(answer), "--max-claims", "2", "--json", code=1)
    assert _error(result)["message"].startswith("the answer text has 3 claims, over the limit of 2; raise the setting max-claims")
    run("ask", "exports", "--answer-file", str(answer), "--max-claims", "3")


class _Verbose(Answerer):
    name = "verbose"

    def answer(self, question: str, context: Sequence[ContextItem]) -> str:
        return " ".join(f"Claim number {i} holds [1]." for i in range(50))


def test_a_generated_answer_is_held_to_the_same_caps(splitter, larkspur: Path) -> None:  # type: ignore[no-untyped-def]
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, answerer=_Verbose(), max_claims=10) as graph:
        graph.ingest([larkspur / "exports.md"])
        with pytest.raises(UserError, match="the answer text has 50 claims, over the limit of 10"):
            graph.ask("How are large exports delivered?")  # answerable: the generator is asked
        with pytest.raises(UserError, match="characters, over the limit of 40"):
            CiteGraph(graph.store, graph.embedder, splitter=splitter, max_answer_chars=40).ask("q", answer_text="x" * 41)


# -- terminal safety ----------------------------------------------------------------------------------------
def test_safe_escapes_control_characters_visibly() -> None:
    assert views.safe("a\x1b[2Jb\nc\td\x7f\x9b\u202eé") == "a\\x1b[2Jb\\nc\\td\\x7f\\x9b\\u202eé"
    assert views.safe("one\nline", prose=True) == "one line"
    assert views.safe(views.safe("\x1b", prose=True), prose=True) == "\\x1b"  # prose: idempotent
    assert views.line(views.safe("a\\b\x1b")).plain == "a\\\\b\\x1b"  # a line leaves what a view made safe as it is
    # names: one-to-one, and read back exactly
    names = ["x\ny.txt", "x\\ny.txt", "x\\\\ny.txt", "a\u200bb", "a\\u200bb", "\\", "\\x1b", "\x1b"]
    assert len({views.safe(n) for n in names}) == len(names)
    assert [views.unescape(views.safe(n)) for n in names] == names


def test_entity_keys_carry_no_control_characters() -> None:
    assert entity_key("days\x1b[0m") == "days"
    assert entity_key("days\x1b[0") == "days"
    assert entity_key("\x1b[2JExport\x00s\u202e") == "exports"


@pytest.fixture
def hostile(write) -> Path:  # type: ignore[no-untyped-def]
    write("policy.md", HOSTILE)
    write("[bold red]boom.txt", "Boom files hold billing exports.")
    write("new\nline.txt", "Nightly snapshots feed every export.")
    return write("plain.md", "Exports use the latest snapshot.").parent


def _assert_terminal_safe(text: str) -> None:
    assert ESC not in text and "\x9b" not in text, text


def test_documents_and_file_names_cannot_drive_the_terminal(run, hostile: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    ingest = run("ingest", str(hostile))  # with the progress bar, whose descriptions are file names
    _assert_terminal_safe(ingest.stdout + ingest.stderr)
    assert "[bold red]boom.txt" in ingest.stdout and "new\\nline.txt" in ingest.stdout
    docs = run("documents")
    _assert_terminal_safe(docs.stdout)
    rows = docs.stdout.splitlines()
    assert len(rows) == 4 and any(r.startswith("[bold red]boom.txt ") for r in rows) and any(r.startswith("new\\nline.txt ") for r in rows)
    for args in (
        ("ask", "How long do exports last after cancellation?", "--context-size", "12"),
        ("show", "entity", "exports"),
        ("show", "relations"),
        ("traverse", "export", "--hops", "2"),
        ("history", "policy.md"),
        ("check",),
    ):
        result = run(*args)
        _assert_terminal_safe(result.stdout + result.stderr)
    shown = run("ask", "How long do exports last after cancellation?", "--context-size", "12").stdout
    assert "\\x1b[0m" in shown or "\\x1b[2J" in shown  # the sentence is shown, its escapes visible
    # JSON stays exact: the ids and the sentence come back byte for byte.
    ids = {d["id"] for d in json.loads(run("documents", "--json").stdout)}
    assert ids == {"policy.md", "[bold red]boom.txt", "new\nline.txt", "plain.md"}
    entity = json.loads(run("show", "entity", "exports", "--json").stdout)
    assert any(m["sentence"].startswith("Exports last 30 days\x1b[0m after cancellation.") for m in entity["mentions"])
    # No stored entity key holds a control character.
    conn = sqlite3.connect(db)
    keys = [k for (k,) in conn.execute("SELECT key FROM entities")]
    conn.close()
    assert keys and not [k for k in keys if re.search("[\x00-\x1f\x7f-\x9f]", k)]
    # The name shown is the name to type.
    removed = run("rm", "[bold red]boom.txt")
    assert removed.stdout.startswith("removed [bold red]boom.txt: 1 version(s)")
    assert run("rm", "new\nline.txt").stdout.startswith("removed new\\nline.txt:")


def test_error_messages_escape_what_the_user_typed(run, stored: Path) -> None:  # type: ignore[no-untyped-def]
    result = run("ingest", "missing\x1b[2J[red]x.txt", "--quiet", code=1)
    _assert_terminal_safe(result.stderr)
    assert "missing\\x1b[2J[red]x.txt" in result.stderr


def test_a_real_terminal_gets_colours_but_never_the_documents_escapes(run, hostile: Path, db: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import pty

    run("ingest", str(hostile), "--quiet")
    env = {**os.environ, "CITEGRAPH_DB": str(db), "CITEGRAPH_EMBEDDER": "hashing", "TERM": "xterm-256color", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "citegraph.cli", "show", "entity", "exports"]
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    received = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(leader)
    assert process.wait(timeout=60) == 0
    screen = received.decode("utf-8")
    assert "\x1b[2J" not in screen and "days\x1b[0m" not in screen  # the document's sequences never reach the terminal
    assert "\\x1b[2J" in screen or "\\x1b[0m" in screen  # shown escaped instead


# -- smaller input fixes --------------------------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_text_with_a_byte_order_mark_is_decoded(run, write, encoding: str) -> None:  # type: ignore[no-untyped-def]
    text = "Exports stay available for 30 days.\r\nSnapshots are nightly — in Zürich too.\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    assert decode("f.txt", data) == text.replace("\r\n", "\n")
    path = write("utf.txt", data)
    report = json.loads(run("ingest", str(path), "--json", "--quiet").stdout)
    assert report["documents"][0]["status"] == "ok" and report["documents"][0]["sentences"] == 2


def test_nul_bytes_without_a_byte_order_mark_stay_binary_with_an_iconv_hint() -> None:
    raw = "Exports last 30 days.".encode("utf-16-le")  # UTF-16 without its mark
    with pytest.raises(InputFileError, match="binary file") as caught:
        decode("f.txt", raw)
    assert "iconv -f UTF-16" in caught.value.reason


def test_comma_separated_labels_are_split(run, write) -> None:  # type: ignore[no-untyped-def]
    path = write("hr.md", "Salaries are reviewed every April.")
    run("ingest", str(path), "--access", "staff, hr", "--quiet")
    (doc,) = json.loads(run("documents", "--as", "hr", "--json").stdout)
    assert doc["access"] == ["hr"]  # a caller learns only the labels it holds
    (doc,) = json.loads(run("documents", "--as", "public,hr , staff", "--json").stdout)
    assert doc["access"] == ["hr", "staff"]
    assert json.loads(run("documents", "--as", "public", "--json").stdout) == []
    assert "empty access label in 'a,,b'" in run("ingest", str(path), "--access", "a,,b", code=1).stderr
    assert "empty access label" in run("documents", "--as", " , ", code=1).stderr


def test_pypdf_warnings_do_not_reach_stderr(caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    buffer = io.BytesIO()
    writer.write(buffer)
    broken = re.sub(rb"startxref\s+(\d+)", lambda m: b"startxref\n" + str(int(m.group(1)) + 7).encode(), buffer.getvalue())
    level = logging.getLogger("pypdf").level
    with caplog.at_level(logging.DEBUG):
        assert load_pdf("scan.pdf", broken) == "\n"
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]
    assert capsys.readouterr().err == ""
    assert logging.getLogger("pypdf").level == level


def test_ingest_records_the_embedder_the_store_was_built_with(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchall() == [("hashing-bow-256",)]
    conn.close()


def test_the_embedder_mismatch_names_the_flag_values(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(db)
    for name, flag in (
        ("hashing-bow-256", "hashing (hashing-bow-256)"),
        ("all-MiniLM-L6-v2-onnx-int8", "minilm (all-MiniLM-L6-v2-onnx-int8)"),
        ("ollama:nomic-embed-text", "ollama:nomic-embed-text"),
    ):
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embedder', ?)", (name,))
        conn.commit()
        with pytest.raises(
            UserError, match=rf"^this store was built with --embedder {re.escape(flag)}; open it with that, not --embedder hashing$"
        ):
            CiteGraph(SQLiteStore(db), HashingEmbedder(dim=64))
        if name != "hashing-bow-256":
            assert f"built with --embedder {flag}; open it with that, not --embedder hashing\n" in run("documents", code=1).stderr
    conn.close()


# -- found by the re-probe of issue 20 ------------------------------------------------------------------------
def test_a_question_over_the_limit_is_refused_naming_the_setting(run, stored: Path) -> None:  # type: ignore[no-untyped-def]
    error = _error(run("ask", "x" * 2001, "--json", code=1))
    assert error["type"] == "LimitExceeded" and "2,001 characters" in error["message"] and "max-question-chars" in error["message"]
    assert run("ask", "x" * 2001, "--max-question-chars", "3000", "--json").stdout  # the setting raises it


def test_a_label_that_is_an_option_is_refused_and_no_store_is_made(run, write, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CITEGRAPH_DB")
    folder = write("a.md", "Exports last 30 days.").parent
    result = run("ingest", str(folder), "--access", "--db", "m.db", "--quiet", code=1)  # a usage error
    assert "'--db' is not an access label" in result.stderr and "cannot start with '-'" in result.stderr
    assert not (tmp_path / "citegraph.db").exists() and not (tmp_path / "m.db").exists()
    with pytest.raises(UserError, match="cannot start with '-'"):
        CiteGraph.open(str(tmp_path / "api.db"), "hashing").ingest([folder], access=["-x"])


def test_an_id_printed_with_escapes_is_accepted_back(run, tmp_path: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "new\nline.txt").write_text("Exports last 30 days.", encoding="utf-8")
    (folder / "plain.txt").write_text("Snapshots last 90 days.", encoding="utf-8")
    run("ingest", str(folder), "--quiet")
    listed = run("documents").stdout
    assert "new\\nline.txt" in listed and "new\nline.txt" not in listed
    assert json.loads(run("history", "new\\nline.txt", "--json").stdout)[0]["id"] == "new\nline.txt"
    run("relabel", "new\\nline.txt", "--access", "staff")
    removed = json.loads(run("rm", "new\\nline.txt", "--json").stdout)
    assert [r["doc_id"] for r in removed] == ["new\nline.txt"]
    assert [d["id"] for d in json.loads(run("documents", "--json").stdout)] == ["plain.txt"]


def test_ingest_into_a_store_with_a_damaged_page_refuses_naming_check(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    _corrupt_page_of(db, "rejections")  # a table an ingest of unchanged files never touches
    result = run("ingest", str(stored), "--quiet", code=2)
    assert f"{db}: the store is damaged" in result.stderr and f"citegraph check --db {db}" in result.stderr
    assert _error(run("ingest", str(stored), "--quiet", "--json", code=2))["type"] == "StoreError"


def test_two_ids_never_print_alike_and_what_was_printed_names_exactly_one(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A newline and a literal backslash-n print differently (the backslash is escaped), and the
    printed form given back names the id that printed so; zero-width characters print escaped."""
    folder = tmp_path / "alike"
    folder.mkdir()
    (folder / "x\ny.txt").write_text("Exports last 30 days.", encoding="utf-8")
    (folder / "x\\ny.txt").write_text("Snapshots last 90 days.", encoding="utf-8")
    (folder / "pl\u200bain.txt").write_text("Invoices last 7 years.", encoding="utf-8")
    run("ingest", str(folder), "--quiet")
    listed = run("documents").stdout
    assert "x\\ny.txt" in listed and "x\\\\ny.txt" in listed and "pl\\u200bain.txt" in listed and "\u200b" not in listed
    removed = json.loads(run("rm", "x\\\\ny.txt", "--json").stdout)  # the backslash one, as printed
    assert [r["doc_id"] for r in removed] == ["x\\ny.txt"]
    removed = json.loads(run("rm", "x\\ny.txt", "--json").stdout)  # the newline one, as printed
    assert [r["doc_id"] for r in removed] == ["x\ny.txt"]
    assert [r["doc_id"] for r in json.loads(run("rm", "pl\\u200bain.txt", "--json").stdout)] == ["pl\u200bain.txt"]


def test_hidden_files_and_folders_get_a_report_line_each(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "with-hidden"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "notes.md").write_text("Git internals.", encoding="utf-8")
    (folder / ".draft.md").write_text("Exports last 9 days.", encoding="utf-8")
    (folder / "policy.md").write_text("Exports last 30 days.", encoding="utf-8")
    report = json.loads(run("ingest", str(folder), "--quiet", "--json", code=3).stdout)
    rows = {d["id"]: (d["status"], d["reason"]) for d in report["documents"]}
    assert rows["policy.md"][0] == "ok"
    for hidden in (".git/", ".draft.md"):
        status, reason = rows[hidden]
        assert status == "skipped" and "hidden" in reason and "--include-hidden" in reason
    assert ".git/notes.md" not in rows
    again = json.loads(run("ingest", str(folder), "--quiet", "--json", "--include-hidden").stdout)
    assert {d["id"]: d["status"] for d in again["documents"]} == {".draft.md": "ok", ".git/notes.md": "ok", "policy.md": "unchanged"}


def test_ingest_into_a_store_whose_records_are_damaged_refuses_naming_check(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    """Bytes overwritten inside a stored vector pass SQLite's page check; the write path reads the
    records back and refuses, as `citegraph check` finds them."""
    conn = sqlite3.connect(db)
    (blob,) = conn.execute("SELECT vector FROM spans ORDER BY id LIMIT 1").fetchone()
    conn.execute("UPDATE spans SET vector = ? WHERE id = (SELECT min(id) FROM spans)", (b"\xff" * len(blob),))  # NaNs
    conn.commit()
    conn.close()
    assert any("not finite" in p["detail"] for p in json.loads(run("check", "--json", code=4).stdout)["problems"])
    (stored / "more.md").write_text("Snapshots are taken every night.", encoding="utf-8")
    result = run("ingest", str(stored), "--quiet", code=2)
    assert f"{db}: the store is damaged" in result.stderr and "not finite" in result.stderr and "citegraph check" in result.stderr
    assert run("documents", "--json").stdout.count('"id"') == 1  # nothing was written


def test_mcp_and_the_api_refuse_hops_and_top_k_out_of_the_settings_range(run, stored: Path, db: Path) -> None:  # type: ignore[no-untyped-def]
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        for hops, top_k, word in ((7, None, "hops"), (-1, None, "hops"), (None, 51, "top_k"), (None, 0, "top_k")):
            with pytest.raises(UserError, match=word):
                graph.ask("How long do exports stay?", hops=hops, top_k=top_k)
        with pytest.raises(UserError, match="hops"):
            graph.traverse(["export"], hops=100)


@pytest.mark.parametrize(
    ("args", "hidden"), [(("serve",), "fastapi"), (("serve",), "uvicorn"), (("mcp",), "mcp"), (("mcp", "--http"), "uvicorn")]
)
def test_serve_and_mcp_without_the_extra_name_the_install(run, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], hidden: str) -> None:  # type: ignore[no-untyped-def]
    """Without the serve extra (the module hidden as if never installed): exit 1 and the pip command,
    not exit 5 'a bug in citegraph'."""
    monkeypatch.setitem(sys.modules, hidden, None)  # importing it now raises ImportError
    result = run(*args, code=1)
    assert f"needs {hidden}, which is not installed: pip install 'citegraph[serve]'" in result.stderr
    assert "bug in citegraph" not in result.stderr


@pytest.mark.parametrize(
    ("extra", "hidden", "needs"),
    [("postgres", "psycopg", "psycopg"), ("ray", "ray", "ray"), ("llm", "llama_cpp", "llama-cpp-python")],
)
def test_every_optional_extra_missing_names_its_install(  # type: ignore[no-untyped-def]
    run, stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str, hidden: str, needs: str
) -> None:
    """A store URL without the postgres extra, ``--executor ray`` without Ray, a local model without
    the llm extra: each exits 1 with the pip command that brings it (the module hidden as if never
    installed), not exit 5 'a bug in citegraph'; a URL's password is never printed."""
    monkeypatch.setitem(sys.modules, hidden, None)  # importing it now raises ImportError
    for cached in [m for m in sys.modules if m == "citegraph.store.postgres"]:
        monkeypatch.delitem(sys.modules, cached)
    if extra == "postgres":
        result = run("documents", env={"CITEGRAPH_DB": "postgresql://ann:s3cret@127.0.0.1:1/kb"}, code=1)
    elif extra == "ray":
        result = run("ingest", str(stored), "--workers", "2", "--executor", "ray", code=1)
    else:
        model = tmp_path / "tiny.gguf"
        model.write_bytes(b"GGUF")
        result = run("ask", "How long do exports stay available?", "--generator", f"gguf:{model}", code=1)
    assert f"needs {needs}, which is not installed: pip install 'citegraph[{extra}]'" in result.stderr
    assert "bug in citegraph" not in result.stderr and "s3cret" not in result.stderr
