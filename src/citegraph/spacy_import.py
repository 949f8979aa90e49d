"""spaCy imported without its command line.

``import spacy`` runs ``from .cli.info import info``, and importing ``spacy.cli`` imports every one of
spaCy's commands with the libraries they use (typer, weasel, requests): about 0.2 s of a cold
``citegraph ask`` on this machine, on the path every answer waits on (the question's parse), for
commands citegraph never runs (docs/results/2026-12-05/spacy-import). :func:`import_spacy` imports
spaCy with ``spacy.cli`` standing in as an empty package whose ``info`` module holds a function
that imports the real one when first called; once spaCy is imported the stand-ins leave
``sys.modules`` and the package, so a later ``import spacy.cli`` (``spacy download``, a user's own
code) imports the real one. spaCy is pinned (constraints.txt); ``tests/test_sentences.py`` checks
in fresh processes that the pipeline loads without ``spacy.cli`` and that ``spacy.cli`` and
``spacy.info`` still work after it.
"""

from __future__ import annotations

import sys
import threading
import types
from typing import Any

__all__ = ["import_spacy"]

_lock = threading.Lock()
_STAND_INS = ("spacy.cli", "spacy.cli.info")


def import_spacy() -> types.ModuleType:
    """The ``spacy`` module, imported without ``spacy.cli`` if nothing imported it before."""
    with _lock:
        if "spacy" in sys.modules:  # imported already, by this or by someone else: as it is
            return sys.modules["spacy"]
        stand_ins = {name: types.ModuleType(name) for name in _STAND_INS}
        vars(stand_ins["spacy.cli.info"])["info"] = _info
        # a package (a __path__), so that "spacy.cli.info" may be imported from it
        vars(stand_ins["spacy.cli"]).update(__path__=[], info=stand_ins["spacy.cli.info"])
        sys.modules.update(stand_ins)
        try:
            import spacy
        finally:
            for name, module in stand_ins.items():
                if sys.modules.get(name) is module:
                    del sys.modules[name]
            package = sys.modules.get("spacy")
            if package is not None and getattr(package, "cli", None) is stand_ins["spacy.cli"]:
                delattr(package, "cli")
        return spacy


def _info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info`` until first called: then the real one, imported (and put in its place)."""
    import spacy
    from spacy.cli.info import info

    spacy.info = info
    return info(*args, **kwargs)
