"""What a GGUF file states about its position scheme, read from its header and its frequency factors.

`read_header` walks the mapped header with gguf's value types and block sizes, reading scalar keys and skipping
arrays (gguf.GGUFReader builds Python objects for every vocabulary string: seconds and ~150 MiB on SmolLM2's
header, benchmarks/inspect_bench.py); the only tensor read is `rope_freqs.weight` (Llama 3's per-pair factors: P
floats, each pair's frequency divided by its own, as llama.cpp does), at most MAX_FACTORS numbers. The keys
interpreted are llama.cpp's, for the architecture `general.architecture` names (`{arch}` below):
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

import math
import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

import gguf
import numpy as np

from posviz.maths import scaling

# Architectures whose RoPE is the keys above, with llama.cpp's pair layout for each (llama_model_rope_type):
# NORM turns adjacent dimensions (2i, 2i+1), NEOX turns (i, i + r/2). The frequencies are the same.
ARCHITECTURES = {
    "llama": "interleaved pairs (2i, 2i+1)",
    "mistral": "interleaved pairs (2i, 2i+1)",  # llama's layer under its own prefix (Mistral 7B's files say "llama")
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
# Tensors some converters write to carry per-pair frequency factors (Llama 3's scaling, LongRoPE): FREQ_FACTORS is
# read (llama.cpp divides each pair's frequency by it, whatever rope.scaling.type says), LongRoPE's are named only.
FACTOR_TENSORS = ("rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight")
FREQ_FACTORS = "rope_freqs.weight"
MAX_FACTORS = 4096  # a factor tensor holds P numbers; a larger one is named as wrong, never read
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
    factor_tensors: tuple[str, ...]  # FACTOR_TENSORS present in the file
    unread: tuple[str, ...]  # keys of the {arch}. namespace this module does not interpret
    freq_factors_shape: tuple[int, ...] | None = None  # FREQ_FACTORS' shape (numpy order), None when absent
    freq_factors: tuple[float, ...] | None = None  # its values when read (a type gguf reads, at most MAX_FACTORS)

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
        return (*out, *self._factor_problems())

    def _factor_problems(self) -> tuple[str, ...]:
        """What is wrong with FREQ_FACTORS: its shape against (P,), a type not read, a factor not positive."""
        shape = self.freq_factors_shape
        if shape is None:
            return ()
        if self.pairs is not None and shape != (self.pairs,):
            return (f"{FREQ_FACTORS} should hold one factor a rotated pair, shape ({self.pairs},), got shape {shape}",)
        if self.freq_factors is None:
            return (f"{FREQ_FACTORS} is stored in a type gguf cannot read, or holds over {MAX_FACTORS:,} numbers",)
        if not all(math.isfinite(f) and f > 0 for f in self.freq_factors):
            return (f"{FREQ_FACTORS} should hold positive factors, got some zero, negative or not finite",)
        return ()

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

    def inv_freq(self) -> np.ndarray:
        """The frequency each rotated pair turns by: theta_i with the header's scaling (`preset`, the maths layer's
        inv_freq), divided by FREQ_FACTORS' factor for the pair when the file has them. ValueError naming `problems()`.

        Returns: (P,) float64
        """
        preset = self.preset()
        inv, _ = preset.inv_freq(preset.extended)
        return inv if self.freq_factors is None else inv / np.array(self.freq_factors, dtype=np.float64)


@dataclass(frozen=True)
class Array:
    """An array value of the header, skipped rather than read (a vocabulary holds ~10^5 strings)."""

    kind: gguf.GGUFValueType
    count: int


@dataclass(frozen=True)
class Place:
    """Where a tensor's data lies in the file, and what it is."""

    shape: tuple[int, ...]  # numpy order (GGUF lists the fastest dimension first)
    kind: int  # gguf.GGMLQuantizationType's value
    start: int  # byte
    end: int  # byte; -1 for a type gguf does not know


@dataclass(frozen=True)
class Header:
    """A GGUF header: every key (scalars read, arrays as `Array`) and each tensor's name and place."""

    keys: dict[str, object]
    places: dict[str, Place]

    @property
    def tensors(self) -> dict[str, int]:
        """name -> the byte where its data ends (-1: a type gguf does not know)."""
        return {name: place.end for name, place in self.places.items()}


SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}  # struct


def check_start(path: Path) -> int:
    """The file's size, once its fixed start (magic, version, counts) is a GGUF's; else a ValueError."""
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


class _Cursor:
    """Little-endian reads from a memory map, each at the cursor, which moves past what it read."""

    def __init__(self, data: mmap.mmap, at: int) -> None:
        self.data, self.at = data, at

    def take(self, fmt: str) -> object:
        (value,) = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return value

    def skip(self, n: int) -> None:
        if self.at + n > len(self.data):
            raise struct.error(f"{n:,} bytes at byte {self.at:,} run past the end")
        self.at += n

    def string(self) -> str:
        n = self.take("Q")
        self.skip(n)
        return self.data[self.at - n : self.at].decode("utf-8")

    def value(self, kind: int) -> object:
        if kind == gguf.GGUFValueType.STRING:
            return self.string()
        if kind == gguf.GGUFValueType.ARRAY:
            return self.array()
        if kind not in SCALARS:
            raise ValueError(f"expected a GGUF value type (0-12), got {kind}")
        return self.take(SCALARS[kind])

    def array(self) -> Array:
        kind, count = self.take("I"), self.take("Q")
        if kind in SCALARS:
            self.skip(count * struct.calcsize(SCALARS[kind]))
        elif kind == gguf.GGUFValueType.STRING:
            if count * 8 > len(self.data) - self.at:  # each string takes at least its 8-byte length
                raise struct.error(f"{count:,} strings cannot fit in the {len(self.data) - self.at:,} bytes left")
            for _ in range(count):
                self.skip(self.take("Q"))
        else:  # arrays of arrays: no key posviz reads is one
            for _ in range(count):
                self.value(kind)
        return Array(gguf.GGUFValueType(kind), count)


def read_header(path: Path, size: int) -> Header:
    """The header's keys and tensor list, read from the mapped file (arrays skipped, no tensor byte touched).

    The layout is GGUF v2/v3's, with gguf's value types and block sizes: after the 24-byte start, each key
    (string, uint32 type, value), then each tensor (name, uint32 dims, uint64 x dims, uint32 type, uint64 offset);
    tensor data starts at the next multiple of general.alignment (32 when absent).
    """
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        _, tensor_count, key_count = struct.unpack_from("<IQQ", data, 4)
        at = _Cursor(data, 24)
        try:
            keys = {}
            for _ in range(key_count):
                key = at.string()
                keys[key] = at.value(at.take("I"))
            infos = []
            for _ in range(tensor_count):
                name, dims = at.string(), at.take("I")
                shape = [at.take("Q") for _ in range(dims)]
                infos.append((name, shape, at.take("I"), at.take("Q")))
        except (struct.error, UnicodeDecodeError, ValueError) as error:
            raise ValueError(
                f"{path.name} is cut short or its header is corrupt: expected {key_count:,} keys and "
                f"{tensor_count:,} tensors, got {size:,} bytes that end or break at byte {at.at:,} ({error})"
            ) from None
    align = keys.get("general.alignment", gguf.GGUF_DEFAULT_ALIGNMENT)
    if not isinstance(align, int) or align < 1 or align & (align - 1):
        raise ValueError(f"{path.name}: expected general.alignment to be a power of two, got {align!r}")
    start = -(-at.at // align) * align
    places = {
        name: Place(tuple(reversed(shape)), kind, start + offset, _end(start, shape, kind, offset))
        for name, shape, kind, offset in infos
    }
    return Header(keys, places)


def _end(start: int, shape: list[int], kind: int, offset: int) -> int:
    """Where a tensor's data ends: start + offset + elements / block size * block bytes; -1 for an unknown type."""
    try:
        block, nbytes = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(kind)]
    except (ValueError, KeyError):
        return -1
    return start + offset + math.prod(shape) // block * nbytes


def read_factors(path: Path, place: Place) -> tuple[float, ...] | None:
    """A small tensor's values as floats (gguf's dequantization), None when gguf cannot read its type or it holds
    more than MAX_FACTORS numbers."""
    count = math.prod(place.shape)
    if place.end < 0 or count > MAX_FACTORS:
        return None
    with path.open("rb") as f:
        f.seek(place.start)
        raw = np.frombuffer(f.read(place.end - place.start), dtype=np.uint8)
    try:
        values = gguf.quants.dequantize(raw, gguf.GGMLQuantizationType(place.kind))
    except (NotImplementedError, ValueError):
        return None
    return tuple(float(v) for v in np.asarray(values, dtype=np.float64).ravel()[:count])


def _value(keys: dict, key: str, kind: type) -> object:
    if key not in keys:
        return None
    value = keys[key]
    wrong = not isinstance(value, str) if kind is str else isinstance(value, bool) or not isinstance(value, int | float)
    if wrong:
        shown = f"an array of {value.count:,} {value.kind.name}" if isinstance(value, Array) else repr(value)
        raise ValueError(f"{key} should be one {kind.__name__}, got {shown}")
    return kind(value)


def read(path: str | Path) -> Scheme:
    """The position scheme a GGUF file's header states; ValueError for a missing, foreign, cut or corrupt file.

    Head width: attention.key_length, else embedding_length / head_count; rotated width: rope.dimension_count,
    else the head width (both fallbacks only for an architecture in ARCHITECTURES).
    """
    path = Path(path)
    size = check_start(path)
    header = read_header(path, size)
    end = max(header.tensors.values(), default=0)
    if end > size:
        raise ValueError(f"{path.name} is cut short: its tensors end at byte {end:,}, the file has {size:,}")
    keys = header.keys
    arch = _value(keys, "general.architecture", str)
    if arch is None:
        raise ValueError(f"{path.name}: expected the key general.architecture, got a header without it")

    def get(name: str, kind: type) -> object:
        return _value(keys, f"{arch}.{name}", kind)

    heads, width = get("attention.head_count", int), get("embedding_length", int)
    known = arch in ARCHITECTURES  # the widths' fallbacks are these architectures' rules, not guessed for others
    head_dim = get("attention.key_length", int) or (width // heads if known and width and heads else None)
    rotary_dim = get("rope.dimension_count", int) or (head_dim if known else None)
    factors = header.places.get(FREQ_FACTORS)
    return Scheme(
        path=path,
        size=size,
        architecture=arch,
        known=known,
        context=get("context_length", int),
        heads=heads,
        kv_heads=get("attention.head_count_kv", int),
        head_dim=head_dim,
        rotary_dim=rotary_dim,
        base=get("rope.freq_base", float),
        rope_type=get("rope.scaling.type", str) or "none",
        factor=get("rope.scaling.factor", float),
        original=get("rope.scaling.original_context_length", int),
        beta_fast=get("rope.scaling.yarn_beta_fast", float),
        beta_slow=get("rope.scaling.yarn_beta_slow", float),
        attention_factor=get("rope.scaling.attn_factor", float),
        tensors=len(header.tensors),
        factor_tensors=tuple(n for n in FACTOR_TENSORS if n in header.tensors),
        unread=tuple(k for k in keys if k.startswith(f"{arch}.") and k.removeprefix(f"{arch}.") not in READ),
        freq_factors_shape=None if factors is None else factors.shape,
        freq_factors=None if factors is None else read_factors(path, factors),
    )
