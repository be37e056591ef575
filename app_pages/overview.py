"""Why attention needs position

Self-attention reads its input as a set: shuffle the tokens and the outputs shuffle with them, two copies of a token get
the same output, and *man* means the same in *dog bites man* and *man bites dog*. Adding a position vector to each token
before attention is what lets order matter. The pages on the left show each step live; the table below reruns every
numbered claim of the three lessons, of the papers and reference code behind the longer-context pages, of two real
trained models (all-MiniLM-L6-v2, and SmolLM2-135M-Instruct's first five layers) and of posviz's matched family, on this
server, now.
"""

import pandas as pd
import streamlit as st

import posviz
import ui
from posviz.drawing.display import number
from posviz.experiments.claims import real_model_claims, recorded_at_extraction

ui.page_setup(__doc__)
ORDER = ("claim", "statement", "check", "expected", "reproduced", "tolerance", "pass", "shown on", "source",
         "expected from", "why this tolerance")  # fmt: skip
# The real models' claims load and run their models (seconds on a cold server). Until this server has them cached, the
# table is drawn first without them and then whole in its place; once cached, it is drawn once. The intro never changes.
fast = st.cache_data(posviz.claims, max_entries=2)(real_model=False)
real = st.cache_data(real_model_claims, max_entries=1, show_spinner=False)
served = st.cache_resource(lambda: set(), max_entries=1)()  # holds "real" once real() has returned on this server
left, right = st.columns([1, 2])
with left:
    score = st.empty()
with right:
    ui.intro(
        "Claims 1-11 come from the lessons: an expected value is either printed in the lesson or what the lesson's "
        "code gives with its seed (the 'expected from' column says which); reproduced values are computed from the "
        "same seeds and random draw order. The claims from 12 on come from papers, reference code and trained models "
        "(the source column names each) and are reproduced from the formulas and the shipped weights. Run "
        "`posviz verify` to print the same table in a terminal."
    )
# One element a placeholder: a container swapped for one with fewer children left the first table on screen as well
running, table = st.empty(), st.empty()
for stage in ("complete",) if "real" in served else ("first", "complete"):
    registry = fast if stage == "first" else sorted([*fast, *real()], key=lambda c: c.number)
    passed = sum(c.passed for c in registry)
    with score.container():
        ui.headline("claims reproduced on this machine", f"{passed} of {len(registry)}")
        ui.badge(passed == len(registry), "all pass", "some fail: see the table")
    rows = pd.DataFrame(posviz.claim_rows(registry, fmt=number))  # `python -m posviz verify` prints full precision
    rows["pass"] = rows["pass"].map({True: "pass", False: "FAIL"})  # plain words: not every projector font has ✅
    rows["shown on"] = "./" + rows.pop("page")
    rows = rows.drop(columns="lesson")
    if ui.presenter():  # the shared screen keeps the claim, what each row checks, the numbers, the tolerance that
        # makes "5.6e-17 for 1.1e-16" a pass (both rounding), and the page links
        rows = rows.drop(columns=["source", "expected from", "why this tolerance"], errors="ignore")
    if stage == "first":
        running.caption("The trained models' claims (16-25) are running on this server: their rows follow in a moment.")
    else:
        running.empty()
    table.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        height=ui.fit(35 * (len(rows) + 1) + 3, 420),
        # the numbers right after what they check: at 1280 px beside the sidebar they stay on screen
        column_order=[c for c in ORDER if c in rows.columns],
        column_config={
            "claim": st.column_config.NumberColumn("#", width="small"),
            "source": st.column_config.TextColumn("source", width="medium"),
            "expected from": st.column_config.TextColumn("expected from", width="small"),
            "statement": st.column_config.TextColumn("claim", width="large"),
            "check": st.column_config.TextColumn(
                "check", width="medium", help="a claim can check several numbers: one row each"
            ),
            # the numbers keep their width at 1280 px: the claim's text is what gives way
            "expected": st.column_config.TextColumn("expected", width="small"),
            "reproduced": st.column_config.TextColumn("reproduced", width="small"),
            "tolerance": st.column_config.TextColumn("tolerance", width="small"),
            "pass": st.column_config.TextColumn("pass", width="small"),
            "shown on": st.column_config.LinkColumn(
                "page", display_text=r"\./([^?]*)", help="the page (and its part) that shows this claim live"
            ),
        },
    )
served.add("real")
recorded = "; ".join(f"{r.label}: {r.value} ({r.over})" for r in recorded_at_extraction())
st.caption(
    "Recorded at extraction, not reproduced here (SmolLM2-135M-Instruct, all 30 layers, float64; posviz ships five "
    f"layers, so these are read from its provenance and are not claims): {recorded}."
)
st.caption("Tolerance ± is an absolute difference; ≤ bounds a machine-zero value, ≥ a difference that must be large.")
# Every page of the router (router.py), in its order; tests/test_app.py checks that none is missing.
st.markdown(
    "**The lessons:** [Lecture](./lecture) · [Order blindness](./order) · [Sinusoids](./sinusoids) · "
    "[Before and after position](./attention) · [Position magnitude](./magnitude).  \n"
    "**Beyond the lessons:** [Learned and rotary](./rotary) · [Start offsets](./offsets) · [Causal mask](./causal) · "
    "[Layouts](./layouts) · [Spot the bug](./bugs) · [MiniLM: a trained encoder](./minilm) · "
    "[MiniLM: word order](./sentences) · [Longer contexts](./longer) · [Relative biases](./biases) · "
    "[SmolLM2: a RoPE decoder](./llm) · [What each scheme buys](./matched) · [Your model (GGUF)](./yourmodel)."
)
