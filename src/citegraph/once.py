"""``loaded_once``: a model loaded once per process, whichever thread asks first.

``functools.lru_cache`` on a loader does not make a second caller wait for a load in progress: two
first requests to a server's thread pool, or a background thread and the main one, would each load
spaCy (or an ONNX session), doubling the memory and the wait. A lock per loader makes every
caller wait for the one load and share its result; an error is not kept, so a later call tries again.
(``functools.wraps`` sets ``__wrapped__``: the loader itself, for a caller that needs a fresh one.)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["loaded_once"]

T = TypeVar("T")


def loaded_once(load: Callable[[], T]) -> Callable[[], T]:
    lock = threading.Lock()
    done: list[T] = []

    @functools.wraps(load)
    def once() -> T:
        if done:
            return done[0]
        with lock:
            if not done:
                done.append(load())
            return done[0]

    return once
