"""What a GGUF file states about its position scheme, read from its header alone (tensors are never read).

gguf's reader maps the file and parses the header's keys and tensor list; no tensor's bytes are touched. The keys
read are llama.cpp's, for the architecture `general.architecture` names (`{arch}` below):
    {arch}.context_length                     the context the file is for (Hugging Face's max_position_embeddings)
    {arch}.embedding_length, .attention.head_count, .attention.head_count_kv, .attention.key_length (head width)
    {arch}.rope.dimension_count               the rotated width r (partial rotary: r < head width)
    {arch}.rope.freq_base                     RoPE's base (rope_theta)
    {arch}.rope.scaling.type, .factor, .original_context_length, .attn_factor, .yarn_beta_fast, .yarn_beta_slow
A key this module does not read is listed as unread, and an architecture outside `ARCHITECTURES` is named as
unknown: its RoPE may follow other keys, so no pair is computed for it.

Dimension letters: d head width, r rotated width, P = r/2 rotated pairs.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import gguf

from posviz.maths import scaling

# Architectures whose RoPE is the keys above, with llama.cpp's pair layout for each (llama_model_rope_type):
# NORM turns adjacent dimensions (2i, 2i+1), NEOX turns (i, i + r/2). The frequencies are the same.
ARCHITECTURES = {
    "llama": "interleaved pairs (2i, 2i+1)",
    "qwen2": "rotate-half pairs (i, i + r/2)",
    "qwen3": "rotate-half pairs (i, i + r/2)",
    "phi2": "rotate-half pairs (i, i + r/2)",
    "stablelm": "rotate-half pairs (i, i + r/2)",
    "gptneox": "rotate-half pairs (i, i + r/2)",
}
SCALINGS = ("none", "linear", "yarn")  # the rope.scaling.type values computed here; longrope needs tensors
READ = (
    "context_length",
    "embedding_length",
    "attention.head_count",
    "attention.head_count_kv",
    "attention.key_length",
    "rope.dimension_count",
    "rope.freq_base",
    "rope.scaling.type",
    "rope.scaling.factor",
    "rope.scaling.original_context_length",
    "rope.scaling.attn_factor",
    "rope.scaling.yarn_beta_fast",
    "rope.scaling.yarn_beta_slow",
)
# Tensors some converters write to carry per-pair frequency factors (Llama 3's scaling, LongRoPE): named, not read.
FACTOR_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")
MAGIC, VERSIONS = b"GGUF", (2, 3)


@dataclass(frozen=True)
class Scheme:
    """A GGUF file's position scheme as its header states it; None where the file does not say."""

    path: Path
    size: int  # bytes
    architecture: str
    known: bool  # architecture in ARCHITECTURES
    context: int | None
    heads: int | None
    kv_heads: int | None
    head_dim: int | None  # d
    rotary_dim: int | None  # r
    base: float | None
    rope_type: str  # rope.scaling.type, "none" when the file has none
    factor: float | None
    original: int | None  # rope.scaling.original_context_length
    beta_fast: float | None
    beta_slow: float | None
    attention_factor: float | None
    tensors: int
    factor_tensors: tuple[str, ...]  # FACTOR_TENSORS present in the file (not read)
    unread: tuple[str, ...]  # keys of the {arch}. namespace this module does not interpret

    @property
    def convention(self) -> str | None:
        """The pair layout llama.cpp uses for this architecture, None when unknown."""
        return ARCHITECTURES.get(self.architecture)

    @property
    def pairs(self) -> int | None:
        """P = r/2, None when the rotated width is unknown."""
        return None if self.rotary_dim is None else self.rotary_dim // 2

    def problems(self) -> tuple[str, ...]:
        """Why the pairs cannot be computed from this header (empty when they can)."""
        out = []
        if not self.known:
            out.append(f"architecture {self.architecture!r} is unknown to posviz (known: {', '.join(ARCHITECTURES)})")
        for name in ("context", "head_dim", "rotary_dim", "base"):
            if getattr(self, name) is None:
                out.append(f"the file does not state the {name.replace('_', ' ')}")
        if self.rope_type not in SCALINGS:
            out.append(f"rope scaling type {self.rope_type!r} is not computed here (computed: {', '.join(SCALINGS)})")
        elif self.rope_type != "none" and self.factor is None:
            out.append(f"rope scaling {self.rope_type!r} without rope.scaling.factor")
        if self.rope_type == "yarn" and self.original is None:
            out.append("yarn scaling without rope.scaling.original_context_length")
        if self.rotary_dim is not None and self.head_dim is not None and not 2 <= self.rotary_dim <= self.head_dim:
            out.append(f"rotated width must be in [2, head width {self.head_dim}], got {self.rotary_dim}")
        elif self.rotary_dim is not None and self.rotary_dim % 2:
            out.append(f"RoPE rotates pairs of dimensions, so the rotated width must be even, got {self.rotary_dim}")
        return tuple(out)

    def params(self) -> scaling.RopeParameters:
        """The scaling as posviz.maths.scaling reads it (rope.scaling.attn_factor is its attention_factor)."""
        if self.rope_type == "linear":
            return scaling.RopeParameters("linear", factor=self.factor)
        if self.rope_type == "yarn":
            return scaling.RopeParameters(
                "yarn",
                factor=self.factor,
                original_max_position_embeddings=self.original,
                beta_fast=self.beta_fast,
                beta_slow=self.beta_slow,
                attention_factor=self.attention_factor,
            )
        return scaling.RopeParameters("default")

    def preset(self) -> scaling.Preset:
        """The header as a `scaling.Preset`: trained on the original context (the context when none is stated),
        extended to the context. ValueError naming `problems()` when there are any."""
        problems = self.problems()
        if problems:
            raise ValueError(f"cannot compute the rotated pairs of {self.path.name}: {'; '.join(problems)}")
        share = self.rotary_dim / self.head_dim
        if scaling.rotary_dim(self.head_dim, share) != self.rotary_dim:
            raise ValueError(f"rotated width {self.rotary_dim} of head width {self.head_dim} is not representable")
        original = self.original or self.context
        source = f"the GGUF header of {self.path}"
        extended = max(self.context, original)
        params = self.params()
        return scaling.Preset(self.path.name, source, self.head_dim, self.base, params, original, extended, share)


def check_header(path: Path) -> int:
    """The file's size, once its fixed header (magic, version, counts) is a GGUF's; else a ValueError."""
    if not path.exists():
        raise ValueError(f"expected a GGUF file at {path}, got no file there")
    if not path.is_file():
        raise ValueError(f"expected a GGUF file at {path}, got a directory or special file")
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(24)
    if head[:4] != MAGIC:
        raise ValueError(f"{path.name} is not a GGUF file: expected the magic bytes {MAGIC!r}, got {head[:4]!r}")
    if len(head) < 24:
        raise ValueError(f"{path.name} is cut short: expected a 24-byte GGUF header, got {size} bytes")
    version, tensors, keys = struct.unpack("<IQQ", head[4:24])
    if version not in VERSIONS:
        raise ValueError(f"{path.name}: expected GGUF version {VERSIONS[0]} or {VERSIONS[1]}, got {version}")
    if 24 + 8 * (tensors + keys) > size:  # every key and tensor takes at least 8 bytes of header
        raise ValueError(
            f"{path.name} is cut short or its header is corrupt: {tensors:,} tensors and {keys:,} keys "
            f"need more than {24 + 8 * (tensors + keys):,} bytes, got {size:,}"
        )
    return size


def open_reader(path: Path, size: int) -> gguf.GGUFReader:
    """gguf's reader over the mapped file (no tensor bytes read); its errors as a ValueError naming the file."""
    try:
        reader = gguf.GGUFReader(path)
    except (ValueError, IndexError, KeyError, OverflowError, struct.error, UnicodeDecodeError) as error:
        raise ValueError(
            f"{path.name} is cut short or its header is corrupt: expected a whole GGUF file, got {size:,} bytes "
            f"that gguf's reader cannot parse ({type(error).__name__}: {error})"
        ) from None
    end = max((t.data_offset + int(t.n_bytes) for t in reader.tensors), default=0)
    if end > size:
        raise ValueError(f"{path.name} is cut short: its tensors end at byte {end:,}, the file has {size:,}")
    return reader


def _value(fields: dict, key: str, kind: type) -> object:
    if key not in fields:
        return None
    value = fields[key].contents()
    wrong = not isinstance(value, str) if kind is str else isinstance(value, bool) or not isinstance(value, int | float)
    if wrong:
        raise ValueError(f"{key} should be one {kind.__name__}, got {value!r}")
    return kind(value)


def read(path: str | Path) -> Scheme:
    """The position scheme a GGUF file's header states; ValueError for a missing, foreign, cut or corrupt file.

    Head width: attention.key_length, else embedding_length / head_count; rotated width: rope.dimension_count,
    else the head width.
    """
    path = Path(path)
    size = check_header(path)
    reader = open_reader(path, size)
    fields = reader.fields
    arch = _value(fields, "general.architecture", str)
    if arch is None:
        raise ValueError(f"{path.name}: expected the key general.architecture, got a header without it")

    def get(name: str, kind: type) -> object:
        return _value(fields, f"{arch}.{name}", kind)

    heads, width = get("attention.head_count", int), get("embedding_length", int)
    head_dim = get("attention.key_length", int) or (width // heads if width and heads else None)
    names = {t.name for t in reader.tensors}
    return Scheme(
        path=path,
        size=size,
        architecture=arch,
        known=arch in ARCHITECTURES,
        context=get("context_length", int),
        heads=heads,
        kv_heads=get("attention.head_count_kv", int),
        head_dim=head_dim,
        rotary_dim=get("rope.dimension_count", int) or head_dim,
        base=get("rope.freq_base", float),
        rope_type=get("rope.scaling.type", str) or "none",
        factor=get("rope.scaling.factor", float),
        original=get("rope.scaling.original_context_length", int),
        beta_fast=get("rope.scaling.yarn_beta_fast", float),
        beta_slow=get("rope.scaling.yarn_beta_slow", float),
        attention_factor=get("rope.scaling.attn_factor", float),
        tensors=len(reader.tensors),
        factor_tensors=tuple(n for n in FACTOR_TENSORS if n in names),
        unread=tuple(k for k in fields if k.startswith(f"{arch}.") and k.removeprefix(f"{arch}.") not in READ),
    )
