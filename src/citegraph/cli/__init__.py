"""The ``citegraph`` command: a thin click layer over :class:`citegraph.pipeline.CiteGraph`.

The group and what every command shares are in :mod:`citegraph.cli.base`; each family of commands
registers itself on :data:`main` when its module is imported here."""

from citegraph.cli import chat, evaluate, graph, models, serving  # noqa: F401 -- each registers its commands on main
from citegraph.cli.base import main

__all__ = ["main"]
