"""settings.py: the one table every default comes from. ``Defaults`` and ``GraphSpec`` are made
from it and checked against it where they are defined, so a setting added to the table without its
field, or a default written twice with different values, fails at import."""

from __future__ import annotations

import dataclasses

import pytest

from citegraph import components, settings
from citegraph.components import GraphSpec
from citegraph.settings import DEFAULTS, SETTINGS, Setting


def test_graph_spec_is_the_tables_graph_settings_with_their_defaults() -> None:
    spec = {f.name: f.default for f in dataclasses.fields(GraphSpec)}
    assert spec == {s.name.replace("-", "_"): s.default for s in SETTINGS if s.scope == "graph"}
    assert {s.name for s in SETTINGS if s.scope == "process"} == {"workers", "max-request-mb", "max-query-kb"}
    assert all(getattr(DEFAULTS, s.name.replace("-", "_")) == s.default for s in SETTINGS)


def test_a_setting_without_its_field_or_with_another_default_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    added = (*SETTINGS, Setting("rerank", "none", "a setting of the graph GraphSpec does not hold"))
    monkeypatch.setattr(settings, "SETTINGS", added)
    with pytest.raises(TypeError, match="rerank"):
        components._check_spec_fields()
    changed = tuple(Setting(s.name, 7, s.help, minimum=1) if s.name == "top-k" else s for s in SETTINGS)
    monkeypatch.setattr(settings, "SETTINGS", changed)
    with pytest.raises(TypeError, match="top_k"):
        components._check_spec_fields()


def test_a_spec_refuses_a_number_out_of_range_naming_the_setting() -> None:
    from citegraph.errors import UserError

    with pytest.raises(UserError, match="top_k must be a whole number from 1 to 50"):
        GraphSpec(top_k=0)
