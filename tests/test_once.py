"""once.py: a loader run once per process however many threads ask at the same time, its result
shared; a failed load is not kept (the next call tries again)."""

from __future__ import annotations

import threading

import pytest

from citegraph.once import loaded_once


def test_threads_that_ask_together_share_one_load() -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    @loaded_once
    def load() -> object:
        calls.append(1)
        started.set()
        release.wait(5)  # held until every thread is waiting on the same load
        return object()

    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(load())) for _ in range(8)]
    for t in threads:
        t.start()
    started.wait(5)
    release.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len(results) == 8 and len({id(r) for r in results}) == 1
    assert load() is results[0]


def test_a_failed_load_is_tried_again() -> None:
    attempts: list[int] = []

    @loaded_once
    def load() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("model missing")
        return "loaded"

    with pytest.raises(RuntimeError, match="model missing"):
        load()
    assert load() == "loaded" and load() == "loaded" and len(attempts) == 2
