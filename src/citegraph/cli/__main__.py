"""``python -m citegraph.cli``: the ``citegraph`` command."""

from citegraph.cli import main

main()
