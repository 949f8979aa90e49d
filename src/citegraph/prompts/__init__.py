"""Prompts live in files next to this module and are loaded by name."""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

__all__ = ["load_prompt", "render"]


@cache
def load_prompt(name: str) -> str:
    return (resources.files("citegraph.prompts") / f"{name}.md").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    """``$name`` placeholders (string.Template), so JSON braces in a prompt need no escaping."""
    return Template(load_prompt(name)).substitute(values)
