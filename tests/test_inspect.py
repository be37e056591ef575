"""`posviz inspect`: synthetic GGUF headers written with gguf.GGUFWriter, read back against the maths layer and a
hand formula; bad files get a message with expected vs received; the shipped SmolLM2 file's header."""

import math
import re
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest

from posviz.__main__ import main
from posviz.drawing import model_report
from posviz.drawing.display import number
from posviz.experiments import inspection
from posviz.lecture import export
from posviz.maths import scaling
from posviz.models import gguf_inspect, smollm2

ROOT = Path(__file__).resolve().parents[1]


def write(
    path: Path,
    arch: str,
    *,
    context=4096,
    width=512,
    heads=8,
    kv=None,
    rope_dim=None,
    key_length=None,
    base=10_000.0,
    scaling_type=None,
    factor=None,
    original=None,
    beta_fast=None,
    beta_slow=None,
    attn_factor=None,
    extra=(),
    tensors=("token_embd.weight",),
    arrays=(),
) -> Path:
    """A GGUF file of `arch` with the given header keys (None: left out), small zero tensors and (name, array)s."""
    w = gguf.GGUFWriter(path, arch)
    w.add_context_length(context)
    w.add_embedding_length(width)
    w.add_block_count(2)
    w.add_head_count(heads)
    w.add_head_count_kv(kv or heads)
    if key_length is not None:
        w.add_key_length(key_length)
    if rope_dim is not None:
        w.add_rope_dimension_count(rope_dim)
    w.add_rope_freq_base(base)
    if scaling_type is not None:
        w.add_string(f"{arch}.rope.scaling.type", scaling_type)
    for value, add in (
        (factor, w.add_rope_scaling_factor),
        (original, w.add_rope_scaling_orig_ctx_len),
        (beta_fast, w.add_rope_scaling_yarn_beta_fast),
        (beta_slow, w.add_rope_scaling_yarn_beta_slow),
        (attn_factor, w.add_rope_scaling_attn_factors),
    ):
        if value is not None:
            add(value)
    for key, value in extra:
        w.add_float32(key, value)
    for name in tensors:
        w.add_tensor(name, np.zeros((16, 32), np.float32))
    for name, array in arrays:
        w.add_tensor(name, array)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def hand_wavelengths(r: int, base: float) -> np.ndarray:
    """2 pi * base ** (2i / r), i = 0..r/2-1, written out in Python floats."""
    return np.array([2 * math.pi * base ** (2 * i / r) for i in range(r // 2)])


def test_an_unscaled_llama_header_gives_the_hand_wavelengths_and_the_pairs_that_never_turn(tmp_path):
    report = inspection.inspect(write(tmp_path / "l.gguf", "llama", context=2048, width=512, heads=8, kv=2))
    s = report.scheme
    assert (s.architecture, s.context, s.heads, s.kv_heads, s.head_dim, s.rotary_dim) == ("llama", 2048, 8, 2, 64, 64)
    assert (s.rope_type, s.base, s.known) == ("none", 10_000.0, True)
    hand = hand_wavelengths(64, 10_000.0)
    np.testing.assert_allclose(report.wavelengths, hand, rtol=1e-12)
    np.testing.assert_allclose(
        report.wavelengths, scaling.wavelengths(scaling.inv_freq(scaling.RopeParameters(), 64)[0])
    )
    np.testing.assert_array_equal(report.never_turn, np.flatnonzero(hand > 2048))
    assert 0 < report.never_turn.size < 32 and not report.view.scales


def test_linear_scaling_divides_every_pair_by_the_factor(tmp_path):
    path = write(tmp_path / "lin.gguf", "llama", context=8192, scaling_type="linear", factor=2.0, original=4096)
    report = inspection.inspect(path)
    expected, attention = scaling.inv_freq(scaling.RopeParameters("linear", factor=2.0), 64, 10_000.0)
    np.testing.assert_allclose(report.view.inv, expected)
    np.testing.assert_allclose(report.scaled_wavelengths, 2 * hand_wavelengths(64, 10_000.0), rtol=1e-12)
    np.testing.assert_allclose(report.divisors, 2.0)
    assert (report.window, report.view.attention, attention) == (4096, 1.0, 1.0)
    np.testing.assert_array_equal(report.scaled_never_turn, np.flatnonzero(2 * hand_wavelengths(64, 1e4) > 8192))


@pytest.mark.parametrize(("betas", "attn"), [((None, None), None), ((16.0, 2.0), 1.25)])
def test_yarn_matches_the_maths_layer_keeps_fast_pairs_and_divides_slow_ones(tmp_path, betas, attn):
    path = write(
        tmp_path / "y.gguf",
        "qwen2",
        context=131_072,
        width=1024,
        heads=8,
        base=1e6,
        scaling_type="yarn",
        factor=4.0,
        original=32_768,
        beta_fast=betas[0],
        beta_slow=betas[1],
        attn_factor=attn,
    )
    report = inspection.inspect(path)
    params = scaling.RopeParameters(
        "yarn",
        factor=4.0,
        original_max_position_embeddings=32_768,
        beta_fast=betas[0],
        beta_slow=betas[1],
        attention_factor=attn,
    )
    expected, attention = scaling.inv_freq(params, 128, 1e6)
    np.testing.assert_allclose(report.view.inv, expected)
    assert report.view.attention == pytest.approx(attention)
    assert report.view.attention == pytest.approx(attn if attn else scaling.yarn_mscale(4.0))
    low, high = scaling.yarn_correction_range(128, 1e6, 32_768, betas[0] or 32.0, betas[1] or 1.0)
    np.testing.assert_allclose(report.divisors[:low], 1.0)
    np.testing.assert_allclose(report.divisors[high:], 4.0)
    assert report.scheme.convention.startswith("rotate-half")


def test_key_length_sets_the_head_width_over_width_by_heads(tmp_path):
    scheme = gguf_inspect.read(write(tmp_path / "q3.gguf", "qwen3", width=1024, heads=16, key_length=128))
    assert (scheme.head_dim, scheme.rotary_dim, scheme.pairs) == (128, 128, 64)


@pytest.mark.parametrize(("arch", "width", "heads", "r"), [("phi2", 2560, 32, 32), ("stablelm", 2560, 32, 20)])
def test_partial_rotary_turns_only_the_rotated_width(tmp_path, arch, width, heads, r):
    report = inspection.inspect(write(tmp_path / "p.gguf", arch, width=width, heads=heads, rope_dim=r))
    assert (report.scheme.head_dim, report.scheme.rotary_dim) == (80, r)
    np.testing.assert_allclose(report.wavelengths, hand_wavelengths(r, 10_000.0), rtol=1e-12)
    assert report.view.preset.partial_rotary_factor == r / 80
    assert f"r = {r} of d = 80 ({r // 2} pairs)" in model_report.text(report)


def test_an_unknown_architecture_is_named_and_no_pair_is_guessed(tmp_path):
    path = write(tmp_path / "u.gguf", "mamba9", extra=[("mamba9.rope.mystery", 3.0)])
    report = inspection.inspect(path)
    assert report.view is None and not report.scheme.known
    assert "mamba9.rope.mystery" in report.scheme.unread and "mamba9.block_count" in report.scheme.unread
    words = model_report.text(report)
    assert "mamba9 (unknown to posviz" in words and "Pairs not computed: architecture 'mamba9' is unknown" in words
    assert "wavelength" not in words
    assert "head width d = not stated" in words and "r = not stated" in words  # the llama family's rules not applied
    with pytest.raises(ValueError, match="architecture 'mamba9' is unknown"):
        report.scheme.preset()


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        (dict(scaling_type="longrope", factor=4.0, original=4096), "'longrope' is not computed here"),
        (dict(scaling_type="yarn", factor=4.0), "yarn scaling without rope.scaling.original_context_length"),
        (dict(scaling_type="linear"), "'linear' without rope.scaling.factor"),
        (dict(rope_dim=7), "must be even, got 7"),
    ],
)
def test_a_scaling_or_width_it_cannot_compute_is_named_not_guessed(tmp_path, keys, says):
    report = inspection.inspect(write(tmp_path / "s.gguf", "llama", **keys))
    assert report.view is None
    assert says in model_report.text(report)


LLAMA3 = scaling.RopeParameters(
    "llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=512
)


def llama3_factors(r: int = 64, base: float = 10_000.0) -> np.ndarray:
    """What llama.cpp's converter writes as rope_freqs.weight for Llama 3's scaling: theta_i / its llama3 theta_i.

    Returns: (r/2,) float32
    """
    plain = scaling.inv_freq(scaling.RopeParameters(), r, base)[0]
    return (plain / scaling.inv_freq(LLAMA3, r, base)[0]).astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_llama3s_rope_freqs_are_read_and_give_the_maths_layers_llama3_frequencies(tmp_path, dtype):
    factors = llama3_factors()
    path = write(tmp_path / "l3.gguf", "llama", context=4096, arrays=(("rope_freqs.weight", factors.astype(dtype)),))
    report = inspection.inspect(path)
    s = report.scheme
    assert s.freq_factors_shape == (32,) and s.problems() == ()
    np.testing.assert_allclose(s.freq_factors, factors.astype(dtype), rtol=0)
    want = scaling.inv_freq(LLAMA3, 64, 10_000.0)[0]
    np.testing.assert_allclose(report.view.inv, want, rtol=1e-3 if dtype == np.float16 else 1e-6)
    np.testing.assert_allclose(report.divisors, np.array(s.freq_factors), rtol=1e-12)
    assert report.view.scales and 0 < report.view.changed < 32  # llama3 keeps the fast pairs, divides the slow
    words = model_report.text(report)
    assert "rope_freqs factor" in words and "and the 32 numbers of rope_freqs.weight" in words
    assert f"rope_freqs.weight: 32 per-pair factors, 1 to {number(max(s.freq_factors))}" in words
    assert f"The rope_freqs.weight factors slow {report.view.changed} of 32 pairs" in words


def test_a_wrong_shaped_rope_freqs_is_named_as_a_problem_and_not_used(tmp_path):
    path = write(tmp_path / "f.gguf", "llama", tensors=("token_embd.weight", "rope_freqs.weight"))  # (16, 32)
    report = inspection.inspect(path)
    says = "rope_freqs.weight should hold one factor a rotated pair, shape (32,), got shape (16, 32)"
    assert report.view is None and report.scheme.problems() == (says,)
    assert says in model_report.text(report)
    with pytest.raises(ValueError, match=re.escape(says)):
        report.scheme.inv_freq()


@pytest.mark.parametrize("bad", [0.0, -2.0, np.inf])
def test_a_rope_freqs_factor_that_is_not_positive_is_a_problem(tmp_path, bad):
    factors = llama3_factors()
    factors[5] = bad
    report = inspection.inspect(write(tmp_path / "z.gguf", "llama", arrays=(("rope_freqs.weight", factors),)))
    assert report.view is None and "should hold positive factors" in model_report.text(report)


def test_longropes_factor_tensors_are_named_and_left_unread(tmp_path):
    path = write(tmp_path / "f.gguf", "llama", tensors=("token_embd.weight", "rope_factors_long.weight"))
    report = inspection.inspect(path)
    assert report.scheme.factor_tensors == ("rope_factors_long.weight",) and report.scheme.freq_factors is None
    assert "rope_factors_long.weight: per-pair factors (LongRoPE), not read" in model_report.text(report)


@pytest.fixture
def good(tmp_path):
    return write(tmp_path / "good.gguf", "llama")


def bad_files(good: Path, tmp_path: Path) -> dict[str, tuple[Path, str]]:
    data = good.read_bytes()
    made = {
        "missing": (tmp_path / "nowhere.gguf", None, "got no file there"),
        "directory": (tmp_path, None, "got a directory"),
        "not gguf": (tmp_path / "x.gguf", b"PK\x03\x04 a zip file", "expected the magic bytes b'GGUF', got b'PK"),
        "tiny": (tmp_path / "t.gguf", b"GGUF\x03\x00", "expected a 24-byte GGUF header, got 6 bytes"),
        "version": (tmp_path / "v.gguf", data[:4] + (9).to_bytes(4, "little") + data[8:], "version 2 or 3, got 9"),
        "counts": (tmp_path / "c.gguf", data[:16] + (10**9).to_bytes(8, "little") + data[24:], "header is corrupt"),
        "cut header": (tmp_path / "h.gguf", data[:200], "cut short or its header is corrupt"),
        "cut data": (tmp_path / "d.gguf", data[:-100], "cut short"),
    }
    for path, content, _ in made.values():
        if content is not None:
            path.write_bytes(content)
    return {name: (path, says) for name, (path, _, says) in made.items()}


def test_bad_files_get_a_value_error_saying_what_was_expected_and_what_arrived(good, tmp_path):
    for name, (path, says) in bad_files(good, tmp_path).items():
        with pytest.raises(ValueError, match=None) as caught:
            gguf_inspect.read(path)
        assert says in str(caught.value), name


def test_the_cli_refuses_a_bad_file_in_one_line_without_a_traceback(good, tmp_path):
    for name, (path, says) in bad_files(good, tmp_path).items():
        run = subprocess.run(
            [sys.executable, "-m", "posviz", "inspect", str(path)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert run.returncode == 2, name
        assert run.stdout == "" and run.stderr.count("\n") == 1, (name, run.stderr)
        assert run.stderr.startswith("posviz inspect: ") and says in run.stderr, name
        assert "Traceback" not in run.stderr


def test_the_cli_prints_the_report_and_exits_zero(tmp_path, capsys):
    path = write(tmp_path / "lin.gguf", "llama", context=8192, scaling_type="linear", factor=2.0, original=4096)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "rope scaling   linear, factor 2, original context 4,096" in out
    assert "The linear scaling slows 32 of 32 pairs (by up to 2x)" in out
    assert "pair  wavelength (tokens)  turns in 4,096  scaled wavelength  turns in 8,192  divided by" in out


@pytest.mark.skipif(not export.available(), reason="vl-convert draws the HTML's charts")
def test_the_html_report_is_one_file_that_loads_nothing_from_elsewhere(tmp_path, capsys):
    path = write(tmp_path / "y.gguf", "llama", context=16_384, scaling_type="yarn", factor=4.0, original=4096)
    out = tmp_path / "report.html"
    assert main(["inspect", str(path), "--html", str(out)]) == 0
    html = out.read_text()
    assert html.count("<svg") == 2 and html.count("<tr>") == 7 + 1 + 32  # seven facts, the header, every pair
    assert " src=" not in html and "<link" not in html and "<script" not in html
    assert f"wrote {out}" in capsys.readouterr().out


def test_the_shipped_smollm2_header_reads_as_the_forward_pass_reads_it():
    path = smollm2.DATA / smollm2.GGUF_FILE
    scheme = gguf_inspect.read(path)
    config = smollm2.config_from_gguf(gguf.GGUFReader(path))
    assert (scheme.context, scheme.heads, scheme.kv_heads) == (config.context, config.heads, config.kv_heads)
    assert (scheme.head_dim, scheme.rotary_dim, scheme.base) == (config.d_k, config.d_k, config.base)
    assert (scheme.architecture, scheme.rope_type) == ("llama", "none")
    report = inspection.report(scheme)
    np.testing.assert_allclose(report.wavelengths, hand_wavelengths(config.d_k, config.base), rtol=1e-12)


def every_value_type(path: Path) -> Path:
    """A header holding each GGUF value type, arrays of numbers, strings and arrays, and an alignment of 64."""
    w = gguf.GGUFWriter(path, "llama")
    w.add_uint32("general.alignment", 64)
    for name, add, value in [
        ("u8", w.add_uint8, 7),
        ("i8", w.add_int8, -7),
        ("u16", w.add_uint16, 700),
        ("i16", w.add_int16, -700),
        ("u32", w.add_uint32, 70_000),
        ("i32", w.add_int32, -70_000),
        ("f32", w.add_float32, 0.5),
        ("b", w.add_bool, True),
        ("u64", w.add_uint64, 2**40),
        ("i64", w.add_int64, -(2**40)),
        ("f64", w.add_float64, 0.1),
        ("s", w.add_string, "héllo"),
    ]:
        add(f"x.{name}", value)
    w.add_array("x.numbers", [1.5, 2.5, 3.5])
    w.add_array("x.words", ["a", "bb", "ccc", ""])
    w.add_array("x.nested", [[1, 2], [3]])
    w.add_tensor("a.weight", np.zeros((3, 5), np.float32))
    w.add_tensor("b.weight", np.zeros((2, 64), np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize("which", ["shipped", "every type"])
def test_the_header_walk_agrees_with_ggufs_reader_on_every_key_and_tensor(tmp_path, which):
    path = smollm2.DATA / smollm2.GGUF_FILE if which == "shipped" else every_value_type(tmp_path / "all.gguf")
    header = gguf_inspect.read_header(path, path.stat().st_size)
    reader = gguf.GGUFReader(path)
    fields = {k: f for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    assert list(header.keys) == list(fields)
    for key, field in fields.items():
        value = header.keys[key]
        if isinstance(value, gguf_inspect.Array):
            nested = field.types[1] == gguf.GGUFValueType.ARRAY  # gguf's reader flattens arrays of arrays
            assert (value.kind, value.count) == (field.types[1], 2 if nested else len(field.contents())), key
        else:
            assert value == pytest.approx(field.contents()) if isinstance(value, float) else value == field.contents()
    ends = {t.name: t.data_offset + int(t.n_bytes) for t in reader.tensors}
    assert header.tensors == ends
