"""Your own GGUF file: llama-family forward passes against an independent reference, the report against the maths
layer, bad files with clear messages, the models folder's boundary, and the page with and without a folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

import gguf
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz.experiments import decoder, inspection, your_model
from posviz.maths import rotary, scaling
from posviz.models import llama_gguf, smollm2
from tests import synthetic_gguf as sg

PAGE = Path(__file__).resolve().parents[1] / "app_pages" / "yourmodel.py"
TEXT = "the dog, a log 12"
ARCHES = ("llama", "mistral", "qwen2")


def written(tmp_path: Path, arch: str, **options: object) -> tuple[Path, dict]:
    path = tmp_path / f"tiny-{arch}.gguf"
    shape = options.pop("shape", sg.Shape())
    return path, sg.write(path, arch, shape, **options)


def gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("arch", ARCHES)
def test_each_architecture_runs_as_the_reference_forward_pass_from_hugging_face_weights(tmp_path, arch):
    path, weights = written(tmp_path, arch)
    model = llama_gguf.open_model(path)
    ids = llama_gguf.tokenize(model, TEXT, bos=True).ids
    trace, ref = model.run(ids), sg.reference(weights, sg.Shape(), ids, layers=2)
    assert gap(trace.hidden, ref["hidden"]) < 1e-5
    np.testing.assert_allclose(trace.weights, ref["weights"], atol=1e-5)


@pytest.mark.parametrize("arch", ARCHES)
def test_a_shifted_start_runs_as_the_reference_at_those_positions(tmp_path, arch):
    path, weights = written(tmp_path, arch)
    model = llama_gguf.open_model(path)
    ids = llama_gguf.tokenize(model, TEXT, bos=False).ids
    trace, ref = model.run(ids, start=37), sg.reference(weights, sg.Shape(), ids, layers=2, start=37)
    assert gap(trace.hidden, ref["hidden"]) < 1e-5


def test_the_reference_tells_the_wrong_rope_pairing_apart(tmp_path, monkeypatch):
    monkeypatch.setattr(sg, "permute", lambda w, heads: w)  # a llama file whose q, k rows were never permuted
    path, weights = written(tmp_path, "llama")
    model = llama_gguf.open_model(path)
    ids = llama_gguf.tokenize(model, TEXT, bos=True).ids
    assert gap(model.run(ids).hidden, sg.reference(weights, sg.Shape(), ids, layers=2)["hidden"]) > 1e-2


def test_qwen2s_biases_change_the_result(tmp_path):
    path, weights = written(tmp_path, "qwen2")
    no_bias = {k: v for k, v in weights.items() if not k.endswith(".bias")}
    model = llama_gguf.open_model(path)
    ids = llama_gguf.tokenize(model, TEXT, bos=True).ids
    assert model.layers[0].b_q is not None
    assert gap(model.run(ids).hidden, sg.reference(no_bias, sg.Shape(), ids, layers=2)["hidden"]) > 1e-2


def test_quantized_weights_are_dequantized_by_gguf_as_the_reference_reads_them(tmp_path):
    q8 = gguf.GGMLQuantizationType.Q8_0
    quant = {"token_embd.weight": q8, "blk.0.ffn_up.weight": q8, "blk.1.attn_q.weight": q8}
    path, weights = written(tmp_path, "llama", quant=quant)

    def round_trip(w: np.ndarray) -> np.ndarray:
        return gguf.quants.dequantize(gguf.quants.quantize(w, q8), q8)

    for name in quant:  # the reference reads what the file holds: gguf's round trip of the stored (permuted) rows
        w = weights[name]
        weights[name] = _unpermute(round_trip(sg.permute(w, 4)), 4) if "attn_q" in name else round_trip(w)
    model = llama_gguf.open_model(path)
    ids = llama_gguf.tokenize(model, TEXT, bos=True).ids
    assert model.token_type == q8
    assert gap(model.run(ids).hidden, sg.reference(weights, sg.Shape(), ids, layers=2)["hidden"]) < 1e-5


def _unpermute(w: np.ndarray, heads: int) -> np.ndarray:
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def test_a_bias_free_layer_runs_as_smollm2s_layer_forward(tmp_path):
    path, _ = written(tmp_path, "llama")
    model = llama_gguf.open_model(path)
    x = model.embed(np.array([1, 40, 50, 60]))
    angles = rotary.angles(4, model.config.d_k, 0, model.config.base)
    ours = llama_gguf.layer_forward(model.layers[0], x, angles, model.config)
    theirs = smollm2.layer_forward(model.layers[0], x, angles, model.config)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_shipped_smollm2_file_runs_as_the_smollm2_page_does():
    model = llama_gguf.open_model(inspection.shipped_file())
    ids = smollm2.tokenize("The capital of France is").ids
    np.testing.assert_array_equal(llama_gguf.tokenize(model, "The capital of France is", bos=True).ids, ids)
    np.testing.assert_array_equal(model.run(ids).weights, smollm2.run(ids).weights)
    assert (model.budget.count, model.budget.model_layers) == (5, 30)
    assert "5 layers the file holds" in model.budget.reason


def test_the_report_and_the_run_use_the_maths_layers_frequencies(tmp_path):
    linear = {
        "rope.scaling.type": ("linear", gguf.GGUFValueType.STRING),
        "rope.scaling.factor": (4.0, gguf.GGUFValueType.FLOAT32),
    }
    shape = sg.Shape(extra=linear)
    path, _ = written(tmp_path, "llama", shape=shape)
    report, model = inspection.inspect(path), llama_gguf.open_model(path)
    plain = rotary.frequencies(shape.d_k, shape.base)
    np.testing.assert_allclose(report.wavelengths, 2 * np.pi / plain)
    inv, _ = scaling.inv_freq(scaling.RopeParameters("linear", factor=4.0), shape.d_k, shape.base)
    np.testing.assert_allclose(report.view.inv, inv)
    np.testing.assert_allclose(model.inv_freq, inv)
    assert report.never_turn.tolist() == np.flatnonzero(2 * np.pi / plain > shape.context).tolist()


def test_llama3s_rope_freqs_divide_the_frequencies(tmp_path):
    path = tmp_path / "llama3.gguf"
    factors = np.linspace(1, 8, sg.Shape().d_k // 2).astype(np.float32)
    original = sg.write
    writer_add = gguf.GGUFWriter.write_header_to_file

    def with_factors(self, *args, **kwargs):
        self.add_tensor("rope_freqs.weight", factors)
        return writer_add(self, *args, **kwargs)

    gguf.GGUFWriter.write_header_to_file = with_factors
    try:
        original(path, "llama")
    finally:
        gguf.GGUFWriter.write_header_to_file = writer_add
    model = llama_gguf.open_model(path)
    np.testing.assert_allclose(model.inv_freq, rotary.frequencies(16, 10_000.0) / factors, rtol=1e-6)
    np.testing.assert_array_equal(model.inv_freq, inspection.inspect(path).view.inv)  # one implementation


def test_a_wrong_shaped_rope_freqs_is_refused_with_the_reports_words(tmp_path):
    path = tmp_path / "bad.gguf"
    writer_add = gguf.GGUFWriter.write_header_to_file

    def with_factors(self, *args, **kwargs):
        self.add_tensor("rope_freqs.weight", np.ones((2, 8), np.float32))
        return writer_add(self, *args, **kwargs)

    gguf.GGUFWriter.write_header_to_file = with_factors
    try:
        sg.write(path, "llama")
    finally:
        gguf.GGUFWriter.write_header_to_file = writer_add
    with pytest.raises(
        ValueError, match=re.escape("rope_freqs.weight should hold one factor a rotated pair, shape (8,)")
    ):
        llama_gguf.open_model(path)


def test_a_corrupt_header_is_refused_with_the_magic_it_got(tmp_path):
    path, _ = written(tmp_path, "llama")
    path.write_bytes(b"GGUX" + path.read_bytes()[4:])
    with pytest.raises(ValueError, match="not a GGUF file: expected the magic bytes"):
        llama_gguf.open_model(path)


def test_a_truncated_file_is_refused_as_cut_short(tmp_path):
    path, _ = written(tmp_path, "qwen2")
    path.write_bytes(path.read_bytes()[: path.stat().st_size - 1000])
    with pytest.raises(ValueError, match="cut short"):
        llama_gguf.open_model(path)


@pytest.mark.parametrize("arch", ["falcon", "gptneox"])
def test_an_architecture_posviz_does_not_run_is_read_only(tmp_path, arch):
    path = tmp_path / f"{arch}.gguf"
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(64)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ValueError, match=f"architecture '{arch}' is read only: posviz runs the layers of llama"):
        llama_gguf.open_model(path)
    found = your_model.opened(str(path), your_model.stamp(path))
    assert found.model is None and "read only" in found.problem


def test_a_quantization_gguf_cannot_dequantize_is_named(tmp_path):
    kind = gguf.GGMLQuantizationType.Q8_1
    block, size = gguf.GGML_QUANT_SIZES[kind]
    raw = np.zeros((64, 64 // block * size), np.uint8)  # attn_q is (H d_k, d) = (64, 64)
    path = tmp_path / "q81.gguf"
    add = gguf.GGUFWriter.add_tensor

    def swap(self, name, tensor, *args, **kwargs):
        if name == "blk.0.attn_q.weight":
            return add(self, name, raw, raw_dtype=kind)
        return add(self, name, tensor, *args, **kwargs)

    gguf.GGUFWriter.add_tensor = swap
    try:
        sg.write(path, "llama")
    finally:
        gguf.GGUFWriter.add_tensor = add
    with pytest.raises(ValueError, match="blk.0.attn_q.weight is stored as Q8_1, a type gguf .* cannot dequantize"):
        llama_gguf.open_model(path)


def test_the_budget_runs_only_the_layers_that_fit(tmp_path, monkeypatch):
    path, _ = written(tmp_path, "llama", shape=sg.Shape(layers=4))
    layer_mb = llama_gguf.open_model(path).budget.layer_mb
    monkeypatch.setattr(llama_gguf, "MEMORY_BUDGET_MB", 2.5 * layer_mb)
    model = llama_gguf.open_model(path)
    assert len(model.layers) == model.budget.count == 2
    assert "the first 2 of 4 layers run" in model.budget.reason
    monkeypatch.setattr(llama_gguf, "MEMORY_BUDGET_MB", 0.5 * layer_mb)
    with pytest.raises(ValueError, match="more than the .* MiB budget"):
        llama_gguf.open_model(path)


def test_a_tokenizer_posviz_does_not_build_is_named(tmp_path, monkeypatch):
    monkeypatch.setitem(sg.PRE, "llama", "falcon")
    path, _ = written(tmp_path, "llama")
    model = llama_gguf.open_model(path)
    assert model.tokenizer is None and "'falcon'" in model.tokenizer_note
    with pytest.raises(ValueError, match="not one posviz builds"):
        llama_gguf.tokenize(model, TEXT, bos=True)


# ----- the models folder ------------------------------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    inside = tmp_path / "models"
    (inside / "sub").mkdir(parents=True)
    sg.write(inside / "a.gguf", "llama")
    (inside / "notes.txt").write_text("not a model")
    (inside / "sub" / "deep.gguf").write_bytes(b"GGUF")
    (tmp_path / "outside.gguf").write_bytes(b"GGUF")
    (inside / "escape.gguf").symlink_to(tmp_path / "outside.gguf")
    (inside / "alias.gguf").symlink_to(inside / "a.gguf")
    return inside


def test_the_folder_lists_only_gguf_files_directly_in_it(folder):
    assert llama_gguf.listed(folder) == ["a.gguf", "alias.gguf"]


@pytest.mark.parametrize(
    "name", ["../outside.gguf", "sub/deep.gguf", "escape.gguf", "/etc/passwd.gguf", "..", "", "notes.txt", "b.gguf"]
)
def test_a_name_outside_the_folder_or_not_a_listed_file_is_refused(folder, name):
    with pytest.raises(ValueError, match="models folder|expected a .gguf file name"):
        llama_gguf.resolve(folder, name)


def test_a_name_in_the_folder_resolves_to_its_file(folder):
    assert llama_gguf.resolve(folder, "alias.gguf") == (folder / "a.gguf").resolve()


def test_the_folder_comes_from_the_environment_variable(folder):
    assert llama_gguf.models_folder({}) is None
    assert llama_gguf.models_folder({llama_gguf.MODELS_DIR: str(folder)}) == folder.resolve()
    with pytest.raises(ValueError, match="should name a folder"):
        llama_gguf.models_folder({llama_gguf.MODELS_DIR: str(folder / "a.gguf")})


# ----- the experiments and the page --------------------------------------------------------------------------------


def test_a_reading_of_a_file_feeds_the_smollm2_pages_statistics(tmp_path):
    path, _ = written(tmp_path, "qwen2")
    version = your_model.stamp(path)
    reading = your_model.read(str(path), version, decoder.DEFAULT_TEXT, True)
    assert reading.trace.weights.shape[:2] == (2, 4) and reading.tokens.ids[0] == 1
    assert reading.roles.shape == (2, 4)
    result = your_model.ablations(str(path), version, decoder.DEFAULT_TEXT, True, 1000)
    assert result.blind.max() < 1e-5 and result.shift.max() < 1e-5 and result.order[-1] > 1e-3
    assert result.perm[0] == 0  # the BOS stays first


def run_page(part: str, env: dict[str, str] | None) -> AppTest:
    old = os.environ.pop(llama_gguf.MODELS_DIR, None)
    os.environ.update(env or {})
    try:
        at = AppTest.from_file(str(PAGE), default_timeout=60)
        at.query_params["part"] = part
        return at.run()
    finally:
        os.environ.pop(llama_gguf.MODELS_DIR, None)
        if old is not None:
            os.environ[llama_gguf.MODELS_DIR] = old


@pytest.mark.parametrize("part", ["report", "heads", "distance", "sink", "pairs", "ablations"])
def test_the_page_shows_every_part_of_a_file_in_the_folder(tmp_path, part):
    sg.write(tmp_path / "tiny.gguf", "qwen2")
    at = run_page(part, {llama_gguf.MODELS_DIR: str(tmp_path)})
    assert not at.exception
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)  # the page escapes file names
    assert "tiny.gguf · qwen2 · all 2 layers run" in captions
    if part != "report":
        fed = llama_gguf.tokenize(llama_gguf.open_model(tmp_path / "tiny.gguf"), decoder.DEFAULT_TEXT, bos=True)
        assert any(t.value.startswith(f"{fed.ids.size} ids fed, <|im_start|> (id 1) first") for t in at.text)


@pytest.mark.parametrize("part", ["report", "heads"])
def test_without_a_folder_the_page_says_how_to_name_one_and_reads_the_shipped_file(part):
    at = run_page(part, None)
    assert not at.exception
    assert any(llama_gguf.MODELS_DIR in c.value for c in at.code)
    shipped = f"{smollm2.GGUF_FILE} · llama · the 5 layers the file holds of the model's 30 run"
    assert any(c.value.replace("\\", "").startswith(shipped) for c in at.caption)


def test_the_page_shows_a_read_only_files_report_and_says_why(tmp_path):
    path = tmp_path / "neox.gguf"
    writer = gguf.GGUFWriter(str(path), "gptneox")
    for key, value in {"context_length": 2048, "embedding_length": 64, "attention.head_count": 4}.items():
        writer.add_uint32(f"gptneox.{key}", value)
    writer.add_float32("gptneox.rope.freq_base", 10_000.0)
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    at = run_page("heads", {llama_gguf.MODELS_DIR: str(tmp_path)})
    assert not at.exception
    assert any("its report only: architecture 'gptneox' is read only" in c.value.replace("\\", "") for c in at.caption)
    assert len(at.get("vega_lite_chart")) >= 1  # the report's wavelength chart


def test_a_link_naming_a_file_outside_the_folder_falls_back_to_a_listed_one(folder):
    old = os.environ.get(llama_gguf.MODELS_DIR)
    os.environ[llama_gguf.MODELS_DIR] = str(folder)
    try:
        at = AppTest.from_file(str(PAGE), default_timeout=60)
        at.query_params["model"] = "../outside.gguf"
        at.run()
    finally:
        os.environ.pop(llama_gguf.MODELS_DIR)
        if old is not None:
            os.environ[llama_gguf.MODELS_DIR] = old
    assert not at.exception
    assert any("model=" in w.value.replace("\\", "") for w in at.warning)
    assert any(c.value.replace("\\", "").startswith("a.gguf · llama") for c in at.caption)


def test_a_llama_file_without_the_dense_mlp_is_read_only_with_the_tensors_named(tmp_path, monkeypatch):
    add = gguf.GGUFWriter.add_tensor

    def experts(self, name, tensor, *args, **kwargs):  # a mixture-of-experts layer has ffn_gate_exps, not ffn_gate
        return add(self, name.replace("ffn_gate.", "ffn_gate_exps."), tensor, *args, **kwargs)

    monkeypatch.setattr(gguf.GGUFWriter, "add_tensor", experts)
    path, _ = written(tmp_path, "llama")
    found = your_model.opened(str(path), your_model.stamp(path))
    assert found.model is None and "blk.0.ffn_gate.weight" in found.problem
    assert found.report.view is not None  # its report is still computed


def test_the_ablations_keep_a_models_bos_first_and_smollm2s_im_start():
    ids = np.array([7, 3, 4, 5])
    assert decoder.reversal(ids, keep=7).tolist() == [0, 3, 2, 1]
    assert decoder.reversal(ids, keep=None).tolist() == [3, 2, 1, 0]
    assert decoder.reversal(np.array([1, 3, 4])).tolist() == [0, 2, 1]


def test_the_fed_line_names_the_models_first_token():
    tokens = smollm2.tokenize("dog bites man")
    assert decoder.fed_line(tokens, first="<s> (id 1)").startswith("4 ids fed, <s> (id 1) first:")
    plain = smollm2.tokenize("dog bites man", im_start=False)
    assert decoder.fed_line(plain, first="<s> (id 1)").startswith("3 ids fed, no <s>:")


@pytest.mark.parametrize(
    ("arch", "pieces"),
    [  # GPT-2's regex (smollm adds single digits); Llama 3's: case-free contractions, digits in threes; Qwen2's: one
        ("llama", ["I", "'", "M", "Ġ", "1", "2", "3", "4", "5", "6", "Ġok", "Ċ", "Ċ", "x"]),
        ("mistral", ["I", "'M", "Ġ", "123", "456", "Ġok", "ĊĊ", "x"]),
        ("qwen2", ["I", "'M", "Ġ", "1", "2", "3", "4", "5", "6", "Ġok", "ĊĊ", "x"]),
    ],
)
def test_each_pre_tokenizer_splits_as_its_models_regex(tmp_path, arch, pieces):
    path, _ = written(tmp_path, arch)  # llama: smollm, mistral: llama-bpe, qwen2: qwen2 (synthetic_gguf.PRE)
    split = llama_gguf.open_model(path).tokenizer.pre_tokenizer.pre_tokenize_str("I'M 123456 ok\n\nx")
    assert [piece for piece, _ in split] == pieces
