"""AppTest smoke and behaviour tests: every page on its own, from defaults and from URLs."""

import json
import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import posviz
import posviz.experiments.longer
import posviz.lecture
import ui
from tests.harness import PAGES, routed

ROOT = Path(__file__).resolve().parents[1]


def page(name: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app_pages" / f"{name}.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def headline_values(at: AppTest) -> list[str]:
    return [m.value.rsplit("'>", 1)[-1].removesuffix("</div>") for m in at.markdown if "posviz-number" in m.value]


def headlines(at: AppTest) -> dict[str, str]:
    """Each headline's label (HTML-unescaped) and value."""
    import html
    import re

    found = (re.search(r">([^<]*)</div>.*>([^<]*)</div>$", m.value, re.S) for m in at.markdown)
    return {html.unescape(f[1]): html.unescape(f[2]) for f in found if f and "posviz-number" in f.string}


def ok(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


@pytest.mark.parametrize("name", PAGES)
def test_every_page_runs_from_defaults_with_charts_and_no_warning(name):
    at = page(name)
    ok(at)
    assert not at.warning
    if name != "overview":  # a chart, or a matrix drawn as a picture (ui.matrix_chart picks by its pixels)
        assert len(at.get("vega_lite_chart")) + len(at.get("arrow_vega_lite_chart")) + len(at.get("image")) >= 1


def numbers_in(text: str) -> list[str]:
    """The numbers written in a headline ("4.4e-16 → 3.4998", "0.00010366 vs 0.0001", "35 of 64")."""
    import re

    return re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]\d+)?", text.replace("−", "-"))


@pytest.mark.parametrize("name", [p for p in PAGES if p != "lecture"])
def test_every_headline_is_written_by_the_one_number_helper(name):
    """A value already in display.number's format comes back unchanged; 12.53665770012299 or 12.5367 would not."""
    from posviz.drawing.display import number

    at = page(name)
    shown = headline_values(at)
    assert shown or name == "overview"
    for text in shown:
        for token in numbers_in(text):
            assert number(float(token)) == token, (name, text)


def test_the_overview_table_writes_values_with_the_helper_and_verify_keeps_full_precision():
    from posviz.drawing.display import number

    at = page("overview")
    table = at.dataframe[0].value
    first = posviz.claims()[0].checks[0]
    assert table["reproduced"].iloc[0] == number(first.reproduced) == "4.4e-16"
    assert posviz.claim_rows()[0]["reproduced"] == repr(first.reproduced)  # what `verify` prints


def test_router_runs_without_an_exception():
    at = AppTest.from_file(str(ROOT / "router.py"), default_timeout=60).run()
    ok(at)


def test_overview_shows_every_claim_passing():
    at = page("overview")
    total = len(posviz.claims())
    assert headline_values(at)[0] == f"{total} of {total}"
    table = at.dataframe[0].value
    assert sorted(set(table["claim"])) == list(range(1, total + 1))
    assert set(table["pass"]) == {"pass"}


def test_order_page_shows_the_contrast_at_defaults_no_position_against_the_ramp():
    at = page("order")
    assert headline_values(at)[:2] == ["4.4e-16", "3.4998"]  # lesson 000: none, then the ramp
    text = markdown(at)
    assert "order-blind: 0 up to rounding" in text and "order-aware" in text
    assert ":orange-badge" not in text  # both are the outcomes the lesson sets out to show


def test_order_page_writes_all_zeros_inside_the_blank_difference_panel():
    at = page("order")
    notes = [c.proto.spec for c in at.get("vega_lite_chart")]
    live = [d.data.data for c in at.get("vega_lite_chart") for d in c.proto.datasets]
    assert any("note" in spec for spec in notes)
    assert any(b"all zeros\nup to rounding" in blob for blob in live)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [("causal", "true", "1.6508"), ("forget", "true", "2.375"), ("offset", "true", "4.4e-16")],
)
def test_order_page_switches_reproduce_the_exercises(key, value, expected):
    at = page("order", **{key: value})
    ok(at)
    assert headline_values(at)[0] == expected


@pytest.mark.parametrize(
    ("part", "query", "keys"),
    [
        ("shuffle", {}, ["seed", "T", "d", "wscale", "perm_mode", "perm", "position", "pscale", "causal", "forget",
                         "offset"]),
        ("shuffle", {"perm_mode": "shuffle"}, ["seed", "T", "d", "wscale", "perm_mode", "shuffle_seed", "position",
                                               "pscale", "causal", "forget", "offset"]),
        ("twins", {}, ["seed", "T", "d", "wscale", "position", "pscale", "causal", "offset"]),
        ("pairs", {}, ["seed", "T", "d", "wscale", "perm_mode", "perm", "pair_position", "pair_scale", "offset"]),
    ],
)  # fmt: skip
def test_order_page_draws_each_parts_own_controls_in_the_sidebar(part, query, keys):
    at = page("order", part=part, **query)
    ok(at)
    drawn = [w.key for w in at.sidebar if getattr(w, "key", None)]
    assert drawn == keys
    assert at.sidebar.caption[0].value == "Lesson 000 exercises"
    assert [w.key for w in at.main if getattr(w, "key", None) in ("first", "second")] == (
        ["first", "second"] if part == "twins" else []
    )


def test_order_page_greys_out_the_position_signal_that_exercise_2_replaces():
    assert not page("order").selectbox(key="position").disabled
    at = page("order", offset="true")
    assert at.selectbox(key="position").disabled and headline_values(at)[1] == "4.4e-16"


def test_order_page_forgetting_to_reorder_is_the_only_orange_badge():
    at = page("order", forget="true")
    assert "a bug in the test" in markdown(at) and ":orange-badge" in markdown(at)


@pytest.mark.parametrize("kind", ["none", "constant", "ramp", "random", "sinusoidal", "learned", "rotary"])
def test_order_page_runs_with_every_position_kind(kind):
    at = page("order")
    at.selectbox(key="position").set_value(kind).run()
    ok(at)
    aware = "order-aware" in markdown(at)
    assert aware == (kind not in ("none", "constant"))


def test_order_page_controls_change_the_view():
    at = page("order")
    at.slider(key="T").set_value(12).run()
    ok(at)
    assert at.warning  # the lesson's 6-element perm no longer fits: a note, then a shuffle
    assert "seeded" in at.warning[0].value or "shuffle" in at.warning[0].value
    at.radio(key="perm_mode").set_value("shuffle").run()
    ok(at)
    assert not at.warning
    at.slider(key="d").set_value(16).run()
    at.toggle(key="causal").set_value(True).run()
    ok(at)
    assert "order-aware" in markdown(at)


def test_order_page_identical_tokens_are_equal_without_position_and_differ_with_it():
    at = page("order", part="twins")
    metrics = headlines(at)
    assert metrics["row difference, no position"] == "0"
    assert metrics["row difference, ramp × 0.6"] == "2.3178"


def test_url_restores_the_view_and_the_view_writes_the_url():
    at = page("order", T="10", d="16", position="sinusoidal", perm_mode="shuffle", causal="true")
    ok(at)
    assert at.slider(key="T").value == 10
    assert at.slider(key="d").value == 16
    assert at.selectbox(key="position").value == "sinusoidal"
    assert at.toggle(key="causal").value is True
    at.slider(key="wscale").set_value(1.0).run()
    assert at.query_params["wscale"] in ("1.0", ["1.0"])
    assert at.query_params["T"] in ("10", ["10"])


@pytest.mark.parametrize(
    ("name", "old", "new", "value"),
    [
        ("order", "C", "d", 16),
        ("causal", "C", "d", 12),
        ("offsets", "C", "d", 12),
        ("sinusoids", "width", "d", 32),
        ("layouts", "width", "d", 32),
        ("bugs", "width", "d", 16),
        ("sinusoids", "length", "T", 100),
        ("layouts", "length", "T", 32),
        ("bugs", "length", "T", 16),
        ("lecture", "table_width", "table_d", 32),
        ("lecture", "norms_width", "norms_d", 16),
    ],
)
def test_old_url_keys_still_open_the_view_and_are_replaced_by_the_new_key(name, old, new, value):
    """One letter per idea: d the model width, T the tokens; links written with C, width or length keep working."""
    at = page(name, **{old: str(value)})
    ok(at)
    assert not at.warning
    assert at.session_state[new] == value
    assert old not in at.query_params
    assert at.query_params[new] in (str(value), [str(value)])


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("order", {"T": "abc"}),
        ("order", {"C": "7"}),
        ("order", {"seed": "-3"}),
        ("order", {"wscale": "nan"}),
        ("order", {"position": "spiral"}),
        ("sinusoids", {"T": "1000000000000"}),
        ("sinusoids", {"length": "0"}),
        ("sinusoids", {"base": "inf"}),
        ("attention", {"pscale": "2"}),
        ("magnitude", {"scale": "0.123"}),
        ("magnitude", {"loglog": "maybe"}),
    ],
)
def test_bad_url_values_give_a_note_and_the_default(name, query):
    at = page(name, **query)
    ok(at)
    assert at.warning, "expected a visible note"
    key = next(iter(query))
    assert key in at.warning[0].value


@pytest.mark.parametrize(
    ("name", "query", "said"),
    [
        ("order", {"perm": "0 0 1 2 3 4"}, "exactly once"),  # then a shuffle
        ("sinusoids", {"dims": "0 999", "check": "dimensions over position"}, "Dimensions"),
        ("minilm", {"part": "sentences", "s1": "dog 🧭 bites man"}, "no piece for 🧭"),
    ],
)
def test_what_a_page_cannot_use_is_said_in_a_note(name, query, said):
    at = page(name, **query)
    ok(at)
    assert said in at.warning[0].value


def test_sinusoid_page_badges_pass_at_defaults_and_large_sizes():
    at = page("sinusoids", check="similarity")
    assert markdown(at).count(":green-badge") == 4
    at = page("sinusoids", T="8192", d="2048", start="5000", base="500000", check="similarity")
    ok(at)
    assert markdown(at).count(":green-badge") == 4
    assert "auto: image" in "\n".join(c.value for c in at.caption)


def test_large_sinusoid_table_opens_with_an_image_and_draws_checks_on_request():
    at = page("sinusoids", T="4096", d="1024")
    ok(at)
    assert not at.get("vega_lite_chart") and len(at.get("image")) == 2  # the table and its colour bar
    assert all(image.proto.imgs[0].url.endswith(".png") for image in at.get("image"))  # exact colours, not JPEG
    at.button[0].click().run()
    ok(at)
    assert len(at.get("vega_lite_chart")) == 1  # the row-norm check


@pytest.mark.parametrize("view", ["auto", "chart", "zoom: exact values", "image"])
@pytest.mark.parametrize("check", ["row norms", "similarity", "wavelengths", "dimensions over position"])
def test_sinusoid_page_every_view_and_check_runs(view, check):
    at = page("sinusoids", T="300", d="64", view=view, check=check, zr="5000")
    ok(at)
    assert not at.warning


def test_sinusoid_zoom_window_is_clamped_into_a_short_table():
    at = page("sinusoids", T="100", view="zoom: exact values", zr="5000")
    ok(at)
    assert at.number_input(key="zr").value == 99


def test_attention_page_reproduces_module_09():
    at = page("attention")
    metrics = headlines(at)
    assert metrics["'man': max diff, with position"] == "12.537"
    assert float(metrics["'man': max diff, no position"]) < 1e-15
    assert metrics["sentence means allclose: no position → with position"] == "True → False"  # lesson 002
    assert "without position: a pure reordering" in markdown(at)


def test_magnitude_page_shows_every_word_converging_with_the_scale():
    headlines = {scale: headline_values(page("magnitude", scale=scale)) for scale in ("0.5", "0.001", "0")}
    assert headlines["0.5"][-1] == "12.537" and headlines["0.001"][-1] == "0.084318"
    assert float(headlines["0"][-1]) < 1e-15  # rows matched by word: identical without position


def test_order_page_moves_token_and_position_together():
    at = page("order", part="pairs", position="sinusoidal")
    ok(at)
    values = headline_values(at)[-3:]
    assert float(values[0]) < 1e-15 and float(values[1]) > 0.1 and float(values[2]) > 0.1
    assert "outputs only reordered" in markdown(at)


def test_attention_page_handles_other_sentences():
    at = page("attention", s1="the cat saw the dog", s2="the dog saw the cat", position="sinusoidal")
    ok(at)
    assert "a pure reordering" in markdown(at)
    at = page("attention", s1="hello", s2="world")
    ok(at)
    assert "reorders sentence 1" in markdown(at)


def test_attention_page_caps_long_sentences_and_survives_empty_ones():
    at = page("attention", s1=" ".join(["a"] * 80))
    ok(at)
    assert "using the first 64" in at.warning[0].value
    at = page("attention")
    at.text_input(key="s2").set_value("   ").run()
    ok(at)
    assert "empty" in at.warning[0].value


def test_magnitude_page_shows_12_5366_at_half_and_converges():
    at = page("magnitude")
    assert headline_values(at)[0] == "12.537"
    at = page("magnitude", scale="0.001")
    assert headline_values(at)[0] == "0.084318"
    at = page("magnitude", scale="0", loglog="true")
    ok(at)
    assert float(headline_values(at)[0]) < 1e-15
    assert "np.allclose: True" in markdown(at)


def test_magnitude_slider_changes_only_the_charts_data():
    """Same spec text, new datasets: the browser swaps the data into the live chart instead of rebuilding it."""

    def charts_of(scale):
        found = page("magnitude", scale=scale).get("vega_lite_chart")
        return [c.proto.spec for c in found], [[d.data.data for d in c.proto.datasets] for c in found]

    (specs_a, data_a), (specs_b, data_b) = charts_of("0.5"), charts_of("0.1")
    assert specs_a == specs_b
    assert data_a != data_b


def test_presenter_mode_hides_prose():
    plain, presenting = page("order"), page("order", presenter="true")
    assert len(presenting.markdown) < len(plain.markdown)
    assert "3.4rem" in markdown(presenting)


def test_rotary_page_shows_relative_scores_and_the_learned_limit():
    at = page("rotary")
    ok(at)
    heads = headline_values(at)
    assert float(heads[0]) < 1e-9 < float(heads[1])
    assert "constant along every diagonal" in markdown(at)
    at = page("rotary", part="learned", T="40", max_length="32")
    ok(at)
    assert "trained for 32 positions" in at.error[0].value


@pytest.mark.parametrize(("bug", "drifts"), [("none", False), ("reset", True), ("off_by_one", True)])
@pytest.mark.parametrize("scheme", ["rotary", "sinusoidal"])
def test_offsets_page_shows_drift_only_with_a_bug(bug, drifts, scheme):
    at = page("offsets", bug=bug, scheme=scheme)
    ok(at)
    assert ("the cached run drifts" in markdown(at)) == drifts


def test_offsets_table_lists_every_token_with_the_position_it_was_given():
    import re

    at = page("offsets", bug="off_by_one", T="12", prefill="4")
    ok(at)
    html = next(m.value for m in at.markdown if "<table" in m.value)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", html) == ["token", "position given", "true position", "error"]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", html)[1:]]
    assert [int(r[0]) for r in rows] == list(range(12))
    given = [int(r[1]) for r in rows]
    assert given[:4] == [0, 1, 2, 3] and given[4:] == list(range(5, 13))  # the prefill is right, then t + 1


def test_an_html_table_escapes_what_it_is_given():
    from streamlit.testing.v1 import AppTest

    def script():
        import pandas as pd

        import ui

        ui.html_table(pd.DataFrame({"word": ["<script>alert(1)</script>"], "n": [1]}), height=100)

    at = AppTest.from_function(script).run()
    ok(at)
    assert "<script>" not in at.markdown[0].value and "&lt;script&gt;" in at.markdown[0].value


def test_matrix_panels_refuse_what_they_cannot_draw_and_take_labels_as_arrays():
    import numpy as np

    import ui

    eye = np.eye(3)
    with pytest.raises(ValueError, match="at least one panel"):
        ui.matrix_panels([], name="x", row_title="r", col_title="c", domain=(-1.0, 1.0))
    with pytest.raises(ValueError, match="expected a non-empty 2-D matrix, got shape"):
        ui.matrix_panels([ui.Panel("a", np.ones(3), "a")], name="x", row_title="r", col_title="c", domain=(-1.0, 1.0))
    with pytest.raises(ValueError, match="titles must differ"):  # a facet by title would draw the two as one
        same = [ui.Panel("a", eye, "a1"), ui.Panel("a", eye, "a2")]
        ui.matrix_panels(same, name="x", row_title="r", col_title="c", domain=(-1.0, 1.0))

    def script():
        import numpy as np

        import ui

        labels = np.array(["x", "y", "z"])
        panels = [ui.Panel("a", np.eye(3), "a", rows=labels, cols=labels), ui.Panel("b", -np.eye(3), "b")]
        ui.matrix_panels(panels, name="two", row_title="r", col_title="c", domain=(-1.0, 1.0))

    at = AppTest.from_function(script).run()
    ok(at)
    assert len(at.get("vega_lite_chart")) == 1


def test_readings_write_each_number_once_then_its_badges_side_by_side_then_its_caption():
    from streamlit.testing.v1 import AppTest

    def script():
        import ui

        ui.readings(
            [
                ui.Reading(
                    "a",
                    4.440892098500626e-16,
                    (ui.Badge(True, "passes", "fails"), ui.Badge(False, "y", "no")),
                    caption="a line",
                ),
                ui.Reading("b", "no pairs", ui.Badge(True, "a state", state=True), help="a tooltip"),
            ],
            [1, 2],
        )

    at = AppTest.from_function(script).run()
    ok(at)
    assert headline_values(at) == ["4.4e-16", "no pairs"]
    assert [c.weight for c in at.columns] == pytest.approx([1 / 3, 2 / 3])
    first, second = at.columns
    assert [m.value for m in first.markdown[1:]] == [":green-badge[:material/check: passes]", ":orange-badge[no]"]
    assert [c.value for c in first.caption] == ["a line"] and not second.caption
    assert ":blue-badge[:material/info: a state]" in markdown(at) and "title='a tooltip'" in markdown(at)


def test_a_row_of_matrices_puts_each_on_its_own_scale_and_a_row_of_weights_labels_the_tokens():
    from streamlit.testing.v1 import AppTest

    def script():
        import numpy as np

        import ui

        ui.matrix_row(
            [
                ui.Panel("a", np.eye(3), "a", domain=(-1.0, 1.0), value_title="pe"),
                ui.Panel("b", 5 * np.eye(3), "b", note=""),
            ],
            row_title="r",
            col_title="c",
            height=200,
        )
        ui.weights_row([ui.Panel("w", np.full((2, 2), 0.5), "w", rows=["dog", "bites"])])

    at = AppTest.from_function(script).run()
    ok(at)
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    assert len(specs) == 3 and len(at.columns) == 3
    text = [json.dumps(spec) for spec in specs]
    assert '"title": "pe"' in text[0] and '"title": "value"' in text[1] and '"title": "weight"' in text[2]
    assert "0 dog" in str(at.get("vega_lite_chart")[2].proto.datasets)


def test_matrix_grid_draws_large_matrices_as_one_block_of_pictures_and_small_ones_as_charts():
    import base64
    import io

    import numpy as np
    from PIL import Image

    import ui

    with pytest.raises(ValueError, match="at least one panel"):
        ui.matrix_grid([], row_title="r", col_title="c")
    with pytest.raises(ValueError, match="expected a non-empty 2-D matrix, got shape"):
        ui.matrix_grid([ui.Panel("a", np.ones(3), "a")], row_title="r", col_title="c")
    with pytest.raises(ValueError, match="names must differ"):  # each names a CSV download
        ui.matrix_grid([ui.Panel("a", np.eye(3), "x"), ui.Panel("b", np.eye(3), "x")], row_title="r", col_title="c")

    def script():
        import numpy as np

        import ui

        ui.matrix_grid([ui.Panel("one\n\ntitle", np.eye(60), "a", note="a\n\nnote")], row_title="r", col_title="c")

    at = AppTest.from_function(script).run()
    ok(at)
    assert ">one title</div>" in at.markdown[0].value and ">a note</div>" in at.markdown[0].value

    at = page("biases")  # five 48 x 48 matrices in a third of the page each: a few pixels a cell
    ok(at)
    (block,) = [m.value for m in at.markdown if "data:image/png;base64," in m.value]
    pictures = [base64.b64decode(src.split("'")[0]) for src in block.split("data:image/png;base64,")[1:]]
    assert len(pictures) == 10  # a picture and a colour bar each
    assert {Image.open(io.BytesIO(p)).format for p in pictures} == {"PNG"}
    for name in posviz.experiments.longer.BIAS_NAMES.values():
        assert f">{name}</div>" in block
    assert not at.get("image") and len(at.get("vega_lite_chart")) == 1  # the offsets curve only
    assert [b.proto.label for b in at.get("download_button")][-5:] == [
        f"{name} (CSV)" for name in posviz.experiments.longer.BIAS_NAMES.values()
    ]
    small = page("biases", T="8")  # 64 cells: a chart each, with a value on each cell
    ok(small)
    assert len(small.get("vega_lite_chart")) == 6
    assert not any("data:image" in m.value for m in small.markdown)


def test_causal_page_reproduces_claim_11():
    at = page("causal")
    assert headline_values(at)[:2] == ["4.4e-16", "1.6508"]
    assert "the mask alone makes it order-aware" in markdown(at)
    caveat = "\n".join(c.value for c in at.caption)
    assert "Order, not distance" in markdown(at) and "(./rotary)" in caveat and "(./biases)" in caveat
    words = markdown(at) + "\n".join(c.value for c in at.caption)  # the mask breaking the symmetry is the point
    assert "test fails" not in words and words.count("the shuffle test's two sides differ") == 2


def test_layouts_page_shows_exact_zeros_and_the_timescale_difference():
    at = page("layouts", d="512")
    heads = headline_values(at)
    assert heads[:2] == ["0", "0"]
    assert float(heads[2]) > 0.01  # tensor2tensor's frequencies move the table, visibly (0.089 at width 512)
    assert "0.00010366 (paper) vs 0.0001 (tensor2tensor)" in "\n".join(c.value for c in at.caption)
    assert ":blue-badge" in markdown(at) and "a real difference" in markdown(at)  # a fact, not a pass


@pytest.mark.parametrize(
    "bug",
    ["2i exponent", "multiply", "odd width", "concat read as interleaved", "start reset to 0", "off-by-one start"],
)
def test_every_bug_breaks_a_badge_the_correct_version_keeps(bug):
    at = page("bugs", bug=bug)
    ok(at)
    text = markdown(at)
    assert "FAILS" in text or "drifts after the prompt" in text
    assert "correct table: fails" not in text


def panel_text(at: AppTest) -> str:
    """Every panel's words: charts' live titles and notes (data), and pictures' titles (Markdown)."""
    live = b"".join(d.data.data for c in at.get("vega_lite_chart") for d in c.proto.datasets).decode("utf-8", "replace")
    hidden = {m.value for box in at.expander for m in box.markdown}  # what an expander keeps folded away
    titles = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("**") and m.value not in hidden]
    return live + "\n" + "\n".join(titles)


def panels(at: AppTest) -> int:
    """Charts plus pictures (a picture comes with its colour bar)."""
    return len(at.get("vega_lite_chart")) + len(at.get("image")) // 2


def test_the_quiz_link_hides_the_answer_until_asked():
    """?quiz=true: the pictures, checks and the difference panel, but no mistake's name outside the answer box."""
    answer = "2i exponent"
    plain = page("bugs", bug=answer)
    assert answer in "\n".join(h.value for h in plain.subheader)
    at = page("bugs", bug=answer, quiz="true")
    ok(at)
    assert [h.value for h in at.subheader] == ["Which mistake is this?"]
    words = panel_text(at)
    assert panels(at) == 3 and "correct − buggy" in words  # correct, buggy, their difference
    assert answer not in words
    assert not any(answer in h for h in headline_values(at))
    boxes = {e.label: e for e in at.expander}
    assert answer in "\n".join(m.value for m in boxes["Show the answer"].markdown)
    assert at.query_params["quiz"] in ("true", ["true"])


def test_a_correct_table_against_itself_would_say_all_zeros_and_a_bug_does_not():
    at = page("bugs", bug="multiply")
    assert "correct − buggy" in panel_text(at) and "all zeros" not in panel_text(at)


def test_minilm_page_shows_the_real_model_order_blind_without_position_rows():
    at = page("minilm")
    ok(at)
    assert headline_values(at)[0] == "2.3618"
    assert len(at.get("vega_lite_chart")) == 2  # the sentences are the page's second part, drawn on request
    at = page("minilm", part="sentences")
    ok(at)
    heads = headline_values(at)
    assert float(heads[0]) < 1e-12 and float(heads[1]) > 0.1
    assert "identical in both sentences (order-blind)" in markdown(at)
    at.select_slider(key="scale").set_value(0.0).run()
    ok(at)
    assert float(headline_values(at)[1]) < 1e-12


def test_sentences_page_shows_the_real_cosine_below_one_and_one_without_position():
    from posviz.models.minilm import encoder

    at = page("sentences")
    ok(at)
    expected = encoder.compare_texts("dog bites man", "man bites dog")
    from posviz.drawing.display import number

    assert headline_values(at) == [number(expected.cosine), "1", "1"]
    assert expected.cosine < 0.95
    captions = "\n".join(c.value for c in at.caption)
    assert "below 1" in markdown(at) and "int8" in captions
    assert f"within ±{encoder.COSINE_TOLERANCE:g} of float32 (tested)" in captions  # the bound, not a number
    specs = [c.proto.spec for c in at.get("arrow_vega_lite_chart")] or [c.proto.spec for c in at.get("vega_lite_chart")]
    assert len(specs) == 2 and '"field": "cosine"' in specs[0] and '"field": "layer"' in specs[1]


def test_sentences_page_at_scale_zero_and_with_typed_sentences():
    at = page("sentences", scale="0.0", s1="the cat sat on the mat", s2="the mat sat on the cat")
    ok(at)
    assert not at.warning
    assert headline_values(at)[0] == "1"
    assert at.query_params["scale"] == "0.0"
    at.select_slider(key="scale").set_value(0.5).run()
    ok(at)
    assert float(headline_values(at)[0]) < 1


@pytest.mark.parametrize(
    ("s1", "warning"),
    [("\u200b", "word piece"), ("   ", "empty"), ("dog 🧭 bites man", "no piece for 🧭"), ("dog " * 70, "64")],
)
def test_sentences_page_notes_text_it_cannot_read_and_falls_back(s1, warning):
    at = page("sentences", s1=s1)
    ok(at)
    assert any(warning in w.value for w in at.warning), [w.value for w in at.warning]
    assert len(headline_values(at)) == 3


# Pages that share control keys (seed, T, C, wscale): moving between them in the sidebar must give the
# new page its own defaults, not the minimum of each control (the old page's widget state for the same
# key belongs to a different widget, and Streamlit would drop it).
@pytest.mark.parametrize(
    ("start", "target", "T", "seed"),
    [("order", "causal", 6, 42), ("causal", "order", 6, 42), ("order", "offsets", 16, 0), ("rotary", "order", 6, 42)],
)
def test_sidebar_move_between_pages_sharing_keys_gives_defaults(start, target, T, seed):
    at = AppTest.from_file(str(ROOT / "router.py"), default_timeout=60).run()
    at.switch_page(f"app_pages/{start}.py").run()
    ok(at)
    at.slider(key="T").set_value(9).run()
    assert at.query_params["T"] == "9"
    at.query_params.clear()  # as the browser does on a sidebar move (AppTest keeps them)
    at.switch_page(f"app_pages/{target}.py").run()
    ok(at)
    assert at.slider(key="T").value == T
    assert at.number_input(key="seed").value == seed
    assert "T" not in at.query_params
    at.slider(key="T").set_value(7).run()  # the new page's controls still work and stay
    at.switch_page(f"app_pages/{target}.py").run()
    assert at.slider(key="T").value == 7


def test_longer_page_reproduces_the_reference_values_live_at_the_presets():
    at = page("longer")
    ok(at)
    assert headline_values(at)[0] == "35 of 64"  # Llama 3.1: 29 pairs kept unchanged
    text = markdown(at)
    assert "claims #12, #13, #14 reproduced" in text
    assert "FAIL" not in text
    assert len(at.get("vega_lite_chart")) == 2  # the scores and the decay are other parts, drawn on request
    scores = page("longer", part="scores", preset="qwen2.5-yarn")
    ok(scores)
    # YaRN's attention factor at factor 4: 0.1 ln 4 + 1 (transformers' get_mscale)
    assert headline_values(scores) == [f"a = {0.1 * math.log(4) + 1:.5g}, a² = {(0.1 * math.log(4) + 1) ** 2:.5g}"]
    assert len(scores.get("vega_lite_chart")) == 1
    decay = page("longer", part="decay")
    ok(decay)
    assert "32.5" in headline_values(decay) and len(decay.get("vega_lite_chart")) == 2
    assert "claim #15 reproduced" in markdown(decay) and "#15" not in text  # each claim where it is shown


@pytest.mark.parametrize(("preset", "changed"), [("linear-4k-8k", "64 of 64"), ("neox-partial", "0 of 12")])
def test_longer_page_counts_the_pairs_each_preset_slows(preset, changed):
    at = page("longer", preset=preset)
    ok(at)
    assert headline_values(at)[0] == changed
    assert "Source:" in "\n".join(c.value for c in at.caption)


def test_biases_page_draws_step_corners_only():
    import io

    import pyarrow as pa

    at = page("biases", reach="1000")
    ok(at)
    (chart,) = at.get("vega_lite_chart")
    drawn = pa.ipc.open_stream(io.BytesIO(chart.proto.datasets[0].data.data)).read_all().to_pandas()
    assert set(drawn["kind"]) == set(posviz.experiments.longer.BIAS_NAMES.values())
    assert len(drawn) < 0.5 * 5 * 2001  # T5's buckets and Shaw's clip are flat over most offsets


def test_biases_page_shows_every_bias_depends_only_on_the_offset():
    at = page("biases", T="20", clip="2")
    ok(at)
    assert headline_values(at)[0] == "0"
    assert "all 5 depend only on j - i" in markdown(at)


def test_offsets_page_shows_the_sinks_cache_exact_and_original_positions_drifting():
    at = page("offsets", part="sinks")
    ok(at)
    values = headline_values(at)
    assert float(values[-2]) < 1e-9 < float(values[-1])


def test_no_folder_named_pages_sits_beside_the_router():
    """Streamlit runs an app beside a folder named pages/ as a legacy multipage app until its main script calls
    st.navigation: a deep link opened first on a fresh server then ran its page without the router."""
    assert not (ROOT / "pages").exists()
    assert len(list((ROOT / "app_pages").glob("*.py"))) == len(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_every_page_switched_to_runs_inside_the_router_with_the_presenter_switch(name):
    at = AppTest.from_file(str(ROOT / "router.py"), default_timeout=60).run()
    at.switch_page(f"app_pages/{name}.py").run()
    ok(at)
    assert at.toggle(key="presenter").label == "Presenter mode"  # the router ran: its shared widget is there
    assert at.title or name == "lecture"  # and the page's own opening after it


def _pictures_in_columns():
    import numpy as np
    import streamlit as st

    import ui
    from posviz.maths import grids

    wide = grids.reduced(np.zeros((16, 1024)), 1, 1)  # wider than any column: each takes its column's whole width
    shown = dict(domain=(-1.0, 1.0), value_title="v", what="w", height=100)
    ui.show_image(wide, title="the main column", **shown)
    for column in st.columns(3):
        with column:
            ui.show_image(wide, title="one of three", in_columns=3, **shown)
    outer, _ = st.columns([2, 1])  # unequal weights count as equal
    with outer:
        inner = st.columns(2)
        with inner[1]:
            ui.show_image(wide, title="one of two in one of two", in_columns=4, **shown)
    st.text(" ".join(f"{ui.container_width(n):.1f}" for n in (1, 2, 3, 6)))


@pytest.mark.parametrize(
    ("presenter", "widths", "drawn"),
    [
        (False, "820.0 402.0 262.7 123.3", [820, 263, 263, 263, 193]),
        (True, "1120.0 552.0 362.7 173.3", [1120, 363, 363, 363, 268]),
    ],
)
def test_a_picture_is_as_wide_as_one_of_the_columns_the_page_says_share_the_main_column(presenter, widths, drawn):
    at = AppTest.from_function(_pictures_in_columns)
    at.query_params["presenter"] = str(presenter).lower()
    ok(at.run())
    assert at.text[0].value == widths  # (the main column - 16 px (n - 1)) / n for n = 1, 2, 3, 6
    bars = re.findall(r"width:(\d+)px", " ".join(m.value for m in at.markdown))  # two lines under each colour bar
    assert [int(w) for w in bars[::2]] == drawn  # 4 columns: one of two inside one of two
    with pytest.raises(ValueError, match="in_columns must be a whole number of columns, at least 1, got 0"):
        ui.container_width(0)


def test_order_page_at_its_largest_size_draws_pictures_not_forty_thousand_marks():
    at = page("order", T="256", d="256", perm_mode="shuffle", position="sinusoidal")
    ok(at)
    assert not at.get("vega_lite_chart")  # the shuffle test is the first part; identical tokens are the second
    twins = page("order", part="twins", T="256", d="256", perm_mode="shuffle", position="sinusoidal")
    ok(twins)
    assert len(twins.get("vega_lite_chart")) == 1  # the identical-tokens rows, 4 x 256 cells across the page
    pictures = at.get("image")
    assert len(pictures) == 8  # four panels as pictures, each with its colour bar
    captions = " ".join(str(i.proto) for i in pictures)
    assert captions.count("feature →, position ↓") == 8  # caption and alt text of each: 256 rows, a quarter page


@pytest.mark.parametrize(
    ("name", "titles"),
    [
        ("order", ["E = 0: difference", "E: attend, then shuffle", "E: shuffle, then attend", "E: difference"]),
        ("attention", ["sentence 1, no position", "sentence 2, no position", "sentence 1, with random × 0.5",
                       "sentence 2, with random × 0.5"]),
        ("magnitude", ["sentence 1: output rows", "sentence 2: output rows in sentence 1's word order"]),
    ],
)  # fmt: skip
def test_small_panels_on_one_colour_scale_are_one_faceted_chart(name, titles):
    """ui.matrix_panels: one chart (one legend, one CSV), its panels in the page's order."""
    import io

    import pyarrow as pa

    at = page(name)
    ok(at)
    faceted = [c for c in at.get("vega_lite_chart") if "facet" in json.loads(c.proto.spec)]
    assert len(faceted) == 1
    tables = [pa.ipc.open_stream(io.BytesIO(d.data.data)).read_all().to_pandas() for d in faceted[0].proto.datasets]
    cells = next(t for t in tables if "panel" in t)
    assert cells.drop_duplicates("panel").sort_values("panel_index")["panel"].tolist() == titles


def test_small_matrices_stay_charts_with_a_mark_per_value():
    at = page("order", T="32", d="32")  # a cell of a few pixels in a quarter of the page (past SMALL_CELLS)
    ok(at)
    assert len(at.get("vega_lite_chart")) == 4  # the shuffle test's four panels, a chart each
    assert not at.get("image")


LECTURE = posviz.lecture.STEPS


@pytest.mark.parametrize("step", range(1, len(LECTURE) + 1))
def test_every_lecture_step_runs_with_its_number_and_place(step):
    at = page("lecture", step=str(step))
    ok(at)
    assert not at.warning
    slide = posviz.lecture.slide(step - 1)
    assert headline_values(at) == [text for _, text in slide.numbers]  # the headline and any second ones
    assert f"step {step} / {len(LECTURE)}" in "\n".join(c.value for c in at.caption)
    charts_and_images = len(at.get("vega_lite_chart")) + len(at.get("image")) // 2  # an image and its colour bar
    tables = sum("posviz-text-grid" in m.value for m in at.markdown)  # a table of words (the recap) is HTML
    assert charts_and_images + tables >= len(slide.figures)


def test_the_lecture_projects_the_halls_source_line_and_keeps_the_full_one_on_a_desk():
    slide = posviz.lecture.slide(0)  # step 1: its full source names a lesson, its hall words do not
    pages = {mode: page("lecture", step="1", presenter=mode) for mode in ("false", "true")}
    lines = {mode: "\n".join(c.value for c in at.caption) for mode, at in pages.items()}
    assert slide.hall and slide.hall != slide.source
    source, hall = ui.text.glued(slide.source), ui.text.glued(slide.hall)  # "(seed 42)" kept on one line
    assert source in lines["false"] and hall not in lines["false"]
    assert hall in lines["true"] and source not in lines["true"]


@pytest.mark.parametrize(
    ("step", "key", "value"),
    [
        (i + 1, s.url_key(c), str(o))
        for i, s in enumerate(LECTURE)
        for c in s.controls
        for o in c.options
        if o != c.default
    ],
)
def test_every_lecture_control_moved_gives_its_own_number(step, key, value):
    at = page("lecture", step=str(step), **{key: value})
    ok(at)
    assert not at.warning
    name = key.removeprefix(LECTURE[step - 1].key + "_")
    option = next(o for c in LECTURE[step - 1].controls for o in c.options if str(o) == value)
    assert headline_values(at) == [text for _, text in posviz.lecture.slide(step - 1, **{name: option}).numbers]


def test_lecture_buttons_move_the_step_and_the_url():
    at = page("lecture")
    labels = [b.label for b in at.button]
    assert labels[:4] == ["First", "Previous", "Next", "Last"]
    at.button[2].click().run()  # Next
    assert at.query_params["step"] == "2" and headline_values(at)[0] == posviz.lecture.slide(1).shown
    at.button[3].click().run()  # Last
    assert at.query_params["step"] == str(len(LECTURE))
    at.button[1].click().run()  # Previous
    assert at.query_params["step"] == str(len(LECTURE) - 1)
    at.button[0].click().run()  # First: the default step leaves the URL
    assert "step" not in at.query_params


def test_a_bad_step_in_a_link_falls_back_to_step_1_with_a_note():
    at = page("lecture", step="99")
    ok(at)
    assert "step" in at.warning[0].value and headline_values(at) == [posviz.lecture.slide(0).shown]


def test_a_matrix_drawn_as_a_picture_keeps_its_title():
    at = page("order", T="256", d="256", perm_mode="shuffle")
    ok(at)
    titles = [m.value.replace("\\", "") for m in at.markdown if m.value.startswith("**")]
    assert titles == [
        "**E = 0: difference**",
        "**all zeros up to rounding**",
        "**E: attend, then shuffle**",
        "**E: shuffle, then attend**",
        "**E: difference**",
    ]


def test_shared_control_declarations_equal_the_ones_they_replace():
    import ui

    assert ui.seed_param(42) == ui.Param("seed", 42, "int", 0, 99_999, widget="number")
    assert ui.seed_param(0, label="content seed").label == "content seed"
    assert ui.tokens_param(6, 64) == ui.Param("T", 6, "int", 2, 64, label="tokens T")
    assert ui.width_param(8, 2, 64, even=False) == ui.Param("d", 8, "int", 2, 64, label="width d")
    assert ui.width_param(8, 2, 256, aliases=("C",)) == ui.Param(
        "d", 8, "int", 2, 256, step=2, label="width d (even)", aliases=("C",)
    )
    assert ui.weight_scale_param() == ui.Param("wscale", 0.5, "float", 0.0, 3.0, step=0.05, label="weight scale")
    s1, s2 = ui.sentence_params("9 tokens")
    assert (s1.key, s1.default, s1.label) == ("s1", "dog bites man", "sentence 1 (up to 9 tokens)")
    assert (s2.key, s2.default, s2.label) == ("s2", "man bites dog", "sentence 2 (up to 9 tokens)")


def test_a_heatmap_of_more_than_1024_cells_is_one_image_mark_and_a_smaller_one_keeps_its_rects():
    def marks(at):
        def walk(spec):
            if isinstance(spec, dict):
                yield from ([spec["mark"]["type"]] if isinstance(spec.get("mark"), dict) else [])
                for value in spec.values():
                    yield from walk(value)
            elif isinstance(spec, list):
                for value in spec:
                    yield from walk(value)

        return [m for chart in at.get("vega_lite_chart") for m in walk(json.loads(chart.proto.spec))]

    big = page("sinusoids")  # 64 x 64 = 4,096 values
    ok(big)
    assert "image" in marks(big) and "rect" not in marks(big)
    small = page("sinusoids", T="32", d="32")  # 1,024 values
    ok(small)
    assert "rect" in marks(small) and "image" not in marks(small)


@pytest.mark.parametrize(("start", "target"), [("order", "rotary"), ("longer", "minilm"), ("offsets", "order")])
def test_a_part_picked_on_one_page_does_not_follow_to_the_next_page(start, target):
    at = AppTest.from_file(str(ROOT / "router.py"), default_timeout=60).run()
    at.switch_page(f"app_pages/{start}.py").run()
    other = [o for o in at.button_group(key="part").options if o != at.button_group(key="part").value]
    at.button_group(key="part").set_value(other[-1]).run()
    ok(at)
    at.query_params.clear()
    at.switch_page(f"app_pages/{target}.py").run()
    ok(at)
    assert not at.warning  # the old page's part is no value of this page's switch: no note, just its default
    assert at.button_group(key="part").value == {"rotary": "rotary", "minilm": "table", "order": "shuffle"}[target]


def test_llm_page_names_the_model_and_shows_the_previous_token_heads_at_defaults():
    at = page("llm")
    ok(at)
    assert not at.warning
    assert headline_values(at) == ["1.2, 2.1", "0.7263"]
    captions = "\n".join(c.value for c in at.caption)
    assert "SmolLM2-135M-Instruct" in captions and "Q4_1" in captions and "Q8_0" in captions
    assert "head_roles" in captions  # the rule is stated
    assert "<|im_start|> (id 1) first" in at.text[0].value
    assert len(at.get("vega_lite_chart")) == 1  # the nine heads are one chart; the other parts wait for a click


@pytest.mark.parametrize(
    ("part", "charts", "first"),
    [("distance", 1, "0.7263"), ("sink", 2, "0.42228"), ("pairs", 2, "1.2, 2.1"), ("ablations", 1, "0.77689"),
     ("longer", 1, "-18.604 → -24.619")],
)  # fmt: skip
def test_llm_page_every_part_draws_its_charts_and_number(part, charts, first):
    at = page("llm", part=part)
    ok(at)
    assert not at.warning
    assert len(at.get("vega_lite_chart")) == charts
    assert headline_values(at)[0] == first


def test_llm_page_labels_whole_model_numbers_as_computed_at_extraction():
    at = page("llm", part="sink")
    captions = "\n".join(c.value for c in at.caption)
    assert "computed at extraction by tools/extract\\_smollm2.py" in captions or "extract_smollm2" in captions
    assert headline_values(at)[1] == "12"


def test_llm_page_ablations_show_equivariance_and_shift_invariance_to_float_precision():
    at = page("llm", part="ablations", k="7")
    ok(at)
    order, equivariance, shift = (float(v) for v in headline_values(at))
    assert order > 0.1 and equivariance < 1e-5 and shift < 1e-5
    text = markdown(at)
    assert "permutation-equivariant" in text and "+ 7" in text and ":orange-badge" not in text


def test_llm_page_toggle_feeds_the_ids_without_im_start():
    at = page("llm", im_start="false")
    ok(at)
    assert at.text[0].value.startswith("18 ids fed, no <|im_start|>")
    at.toggle(key="im_start").set_value(True).run()
    ok(at)
    assert at.text[0].value.startswith("19 ids fed, <|im_start|>")


@pytest.mark.parametrize(
    ("text", "warning"),
    [("", "whitespace"), ("x", "at least 3"), ("a" * 5000, "at most 600 characters"), ("the dog " * 60, "cut to the"),
     ("bell\x07 nul\x00", "U+0000")],
)  # fmt: skip
def test_llm_page_hostile_text_in_the_url_gives_a_note_and_a_view(text, warning):
    at = page("llm", text=text)
    ok(at)
    assert any(warning in w.value.replace("\\", "") for w in at.warning), [w.value for w in at.warning]
    assert len(headline_values(at)) == 2 and len(at.get("vega_lite_chart")) == 1


@pytest.mark.parametrize("text", ["مرحبا بالعالم، كيف حالك", "👩‍💻 👍🏽 typing", "🙂", "e\u0301te\u0301"])
def test_llm_page_reads_rtl_and_emoji_without_a_traceback(text):
    at = page("llm", text=text, part="ablations")
    ok(at)
    assert len(headline_values(at)) == 3


def test_llm_page_longer_headline_says_which_number_is_which():
    at = page("llm", part="longer")
    ok(at)
    assert "unscaled → yarn" in markdown(at)


@pytest.mark.parametrize(
    ("name", "query", "said"),
    [
        ("longer", {}, ["pairs never complete a turn inside the 8,192-token training window. Llama 3.1 8B (llama3) "
                        "slows 35: those 29, and 6 that do turn in it.",
                        "level off at 8, not at 131,072 / 8,192 = 16"]),
        ("longer", {"preset": "neox-partial"}, ["ships no scaling", "no slowdown to draw"]),
        ("longer", {"part": "scores"}, ["the attention factor a multiplies cos and sin", "has a = 1"]),
        ("longer", {"part": "scores", "preset": "qwen2.5-yarn"}, ["the attention factor a multiplies cos and sin",
                                                                   "Past the training window"]),
        ("longer", {"part": "scores", "preset": "neox-partial"}, ["ships no scaling"]),
        ("longer", {"part": "decay"}, ["Two different quantities", "= 32.5", "= 127.43"]),
        ("offsets", {"part": "sinks"}, ["The reference is StreamingLLM's", "Before token 8 nothing is evicted"]),
        ("biases", {}, ["random stand-ins", "0 means each bias is the same", "on one colour scale",
                        "head 5 of 8 (slope 0.03125)"]),
    ],
)  # fmt: skip
def test_presenter_mode_keeps_each_charts_takeaway(name, query, said):
    at = page(name, presenter="true", **query)
    ok(at)
    text = markdown(at)
    for words in said:
        assert words in text, words
    plain = page(name, **query)
    assert all(words in markdown(plain) for words in said)  # the same line in both modes
    assert len(plain.markdown) > len(at.markdown)  # while the intro prose is dropped


def test_the_longer_page_draws_no_slowdown_for_a_preset_that_changes_nothing():
    at = page("longer", preset="neox-partial", presenter="true")
    ok(at)
    (chart,) = at.get("vega_lite_chart")  # the wavelengths alone, with one legend entry
    assert '"domain": ["unscaled"]' in json.dumps(json.loads(chart.proto.spec))
    scores = page("longer", part="scores", preset="neox-partial")
    assert not headline_values(scores)  # no "a = 1, a² = 1" headline when nothing scales


def test_the_biases_page_says_where_t5s_last_bucket_starts_and_shares_one_colour_scale():
    import io

    import pyarrow as pa

    at = page("biases")
    ok(at)
    start = posviz.maths.biases.t5_last_bucket_start()
    assert f"T5's last bucket starts at |j − i| = {start}" in markdown(at)
    (block,) = [m.value for m in at.markdown if "data:image/png;base64," in m.value]
    bars = re.findall(r"<span>([^<]*)</span><span>0</span><span>([^<]*)</span>", block)
    assert len(bars) == 5 and len(set(bars)) == 1  # every matrix's colour bar has the same ends
    small = page("biases", T="8")  # a chart a matrix: one colour domain for all five
    ends = set()
    for chart in small.get("vega_lite_chart")[1:]:
        for dataset in chart.proto.datasets:
            frame = pa.ipc.open_stream(io.BytesIO(dataset.data.data)).read_all().to_pandas()
            if {"lo", "hi"} <= set(frame.columns):
                ends.add((float(frame["lo"].iloc[0]), float(frame["hi"].iloc[0])))
    assert len(ends) == 1 and len(small.get("vega_lite_chart")) == 6


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart") + at.get("arrow_vega_lite_chart")]


@pytest.mark.parametrize("presenter", ["false", "true"])
@pytest.mark.parametrize(("name", "query"), [("sinusoids", {"check": "similarity"}), ("rotary", {}),
                                             ("rotary", {"part": "alibi"})])  # fmt: skip
def test_similarity_and_score_matrices_are_drawn_square(name, query, presenter):
    """pe · peᵀ, the rotary scores and the ALiBi bias: a diagonal runs at 45° only on a square plot."""
    at = page(name, **query, presenter=presenter)
    ok(at)
    if name == "sinusoids":  # 64 x 64 values: a picture, sized by its CSS height and its colour bar's width
        (sizes,) = [m.value for m in at.markdown if "posviz-picture" in m.value]
        height, width = re.search(r"height:(\d+)px", sizes)[1], re.search(r"width:(\d+)px", sizes)[1]
        assert height == width and int(height) >= 300
        return
    heatmaps = [s for s in chart_specs(at) if '"rect"' in json.dumps(s)]
    assert heatmaps, (name, query)
    assert all(s["width"] == s["height"] for s in heatmaps), [(s["width"], s["height"]) for s in heatmaps]


def test_the_overview_closing_text_links_every_page_of_the_router():
    listed = [(title, path) for path, title, _ in routed()]
    assert len(listed) == len(PAGES)
    at = page("overview", presenter="true")
    ok(at)
    text = markdown(at)
    for title, path in listed:
        if path != "overview":
            assert f"[{title}](./{path})" in text, title


# One line per chart saying what to take from it, on screen in presenter mode too (where ui.intro prose is dropped).
TAKEAWAYS = [
    ("order", {}, "the two middle panels differ, because E stays in place"),
    ("order", {}, "every feature of row t is 0.6 × (t + 1)"),
    ("order", {}, "P (a permutation: row i of the shuffled input is row P[i]) = 3 0 5 1 4 2"),
    ("order", {"part": "twins"}, "Without position the two copies' rows are equal; with ramp × 0.6 they differ."),
    ("order", {"part": "pairs"}, "Only the first bar is at rounding level"),
    ("attention", {}, "Without position, matrix 2 is matrix 1 with its rows and columns in sentence 2's order"),
    ("attention", {}, "np.allclose says True when every entry agrees within 1e-8 + 1e-5"),
    ("attention", {}, "punctuation stays part of its word"),
    ("causal", {}, "Order, not distance: with equal scores row t spreads 1/(t+1) evenly over keys 0..t"),
    ("causal", {}, "Grey, above the diagonal: keys the mask hides"),
    ("rotary", {}, "Each diagonal (one offset i − j) holds one value: only the offset counts."),
    ("rotary", {}, "Its section 3.4.3"),
    ("rotary", {}, "The pair keeps its length"),
    ("rotary", {"part": "learned"}, "The chart stops at row 31, the table's last"),
    ("rotary", {"part": "alibi"}, "The penalty is −slope × |i − j|: 0.5 per step apart"),
    ("sinusoids", {}, "Each pair of columns is one sine and its cosine"),
    ("sinusoids", {}, "M_3: one fixed matrix (a rotation per pair) that moves each row 3 rows on."),
    ("sinusoids", {"check": "similarity"}, "Each diagonal (one offset t − u) holds one value"),
    ("sinusoids", {"check": "wavelengths"}, "a straight line on the log axis"),
    ("sinusoids", {"check": "dimensions over position"}, "Dimension 2i is a sine and 2i + 1 its cosine"),
    ("layouts", {}, "Same values, other columns"),
    ("layouts", {}, "The one real difference: tensor2tensor spaces its frequencies"),
    ("bugs", {}, "M₁ is the one matrix"),
    ("bugs", {}, "The right panel shows where the bug changes the table"),
    ("bugs", {"bug": "none"}, "The difference panel is blank"),
    ("bugs", {"bug": "start reset to 0"}, "leaves rounding level once generation passes the prompt"),
]


@pytest.mark.parametrize(("name", "query", "line"), TAKEAWAYS)
def test_each_chart_keeps_its_takeaway_in_presenter_mode(name, query, line):
    at = page(name, **query, presenter="true")
    ok(at)
    assert line in markdown(at) + "\n".join(c.value for c in at.caption), (name, query, line)


def test_the_learned_part_at_its_defaults_asks_past_the_tables_last_row_and_draws_the_rows_it_has():
    at = page("rotary", part="learned")
    ok(at)
    assert "Position 39 asked of a table trained for 32 positions" in at.error[0].value
    assert "The chart stops at row 31, the table's last" in markdown(at)  # rows 16..31: the ones that exist
    assert len(chart_specs(at)) + len(at.get("image")) == 1
    inside = page("rotary", part="learned", start="0")
    assert not inside.error and "inside the table's 32 rows" in markdown(inside)


def test_the_order_pages_pair_part_draws_lesson_003s_signal_as_the_lecture_does():
    lecture_step = next(s for s in posviz.lecture.STEPS if s.key == "pairs")
    (figure,) = lecture_step.slide(position="sinusoidal").figures  # the order page's default signal
    import pyarrow as pa

    at = page("order", part="pairs", presenter="true")
    ok(at)
    (chart,) = at.get("vega_lite_chart") + at.get("arrow_vega_lite_chart")
    data = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pydict() for d in chart.proto.datasets}
    assert data["posviz_live"]["title"] == [figure.shape["title"]]  # "E = sinusoidal × 1: ..."
    for column in ("what moves", "shown"):  # the same labels and the same numbers as the lecture's step
        assert data["posviz_0"][column] == figure.frames[0][column].tolist()


def test_the_attention_page_says_which_copy_of_a_repeated_word_it_compares_and_why_content_differs():
    at = page("attention", s1="the dog saw the cat on the mat", s2="the cat saw the dog on the mat", word="the")
    ok(at)
    assert "'the' at position 0 of sentence 1 and position 0 of sentence 2: the first of its 3" in markdown(at)
    other = page("attention", s1="the dog bit the man", s2="a man bit the dog", word="man")
    ok(other)
    text = markdown(other)
    assert "sentence 1 has 'the' beyond sentence 2, which has 'a'" in text and "not of position" in text


def test_the_recaps_table_is_an_html_table_with_every_cell_of_the_slide():
    """Words in a grid are a real table (read cell by cell by a screen reader, wrapping on a phone), not text marks."""
    step = [s.key for s in LECTURE].index("recap") + 1
    at = page("lecture", step=str(step))
    ok(at)
    (table,) = [m.value for m in at.markdown if "posviz-text-grid" in m.value]
    (cells,) = posviz.lecture.slide(step - 1).figures[0].frames
    for text in cells["text"]:
        for line in text.split("\n"):
            assert ui.text._cell_lines(line) in table, line  # escaped as the page writes it, its numbers in bold
    assert table.count("<tr role='row'>") == cells["row"].nunique() + 1
    for column in cells["column"].unique():  # a phone's card names each cell's column (PHONE_GRID_CSS)
        assert f"data-label='{ui.text.html_text(column)}'" in table
