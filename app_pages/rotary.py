"""Learned tables, rotary embeddings and ALiBi

A learned table is a lookup with a fixed number of rows: a position past the last row has no vector. Rotary embeddings
rotate each query and key pair by an angle proportional to its position, so a query-key score depends only on how far
apart the two positions are. ALiBi adds a penalty that grows linearly with that distance. In words: a score is q·k, a
query vector times a key vector; i is the query's position, j the key's.
"""

import streamlit as st

import posviz
import ui
from posviz.drawing import figures, frames, lines_bars
from posviz.drawing.display import number
from posviz.maths import properties, relative, verdicts

ui.page_setup(__doc__)
BASES = (10_000.0, 50_000.0, 100_000.0, 500_000.0)
# Three parts: a first visit draws rotary's two charts, not the learned table's and ALiBi's too.
PARTS = {
    "rotary": "rotary: scores depend on the offset",
    "learned": "a learned table has a last row",
    "alibi": "ALiBi: a penalty per head",
}
P = ui.params(
    ui.part_param(PARTS),
    ui.Param("max_length", 32, "int", 4, 512, label="learned table rows"),
    ui.Param("T", 24, "int", 1, 1024, label="positions asked for"),
    # by default the positions asked for (16..39) run past the table's last row (31): the failure the part is for
    ui.Param("start", 16, "int", 0, 1024, label="first position asked for", widget="number"),
    ui.width_param(16, 2, 64, label="head width d (even)"),
    ui.Param(
        "base",
        10_000.0,
        "choice",
        options=BASES,
        label="RoPE base",
        widget="select_slider",
        names={b: f"{b:,.0f}" for b in BASES},
    ),
    ui.Param("pair", 2, "int", 0, 31, label="pair i to follow (dimensions 2i, 2i+1)", widget="number"),
    ui.Param("shift", 100, "int", 0, 100_000, label="shift every position by s", widget="number"),
    ui.Param("heads", 8, "int", 1, 32, label="ALiBi heads", widget="number"),
    ui.Param("head", 1, "int", 1, 32, label="head to draw", widget="number"),
    ui.seed_param(0),
)
SIDEBAR = {"rotary": ("T", "d", "base", "shift", "seed"), "learned": ("max_length", "T", "start", "d", "seed"),
           "alibi": ("T", "heads")}  # fmt: skip
s = ui.sidebar(P, page="rotary", keys=SIDEBAR)
s.pair, s.head = min(s.pair, s.d // 2 - 1), min(s.head, s.heads)
length = min(s.T, 64)

if s.part == "rotary":
    q, k = relative.fixed_content(s.d, s.seed)
    rot = relative.fixed_content_scores(q, k, length, scheme="rotary", base=s.base)
    spread = properties.diagonal_spread(rot)
    moved_rot = relative.shift_change(q, k, length, s.shift, scheme="rotary", base=s.base)
    moved_sin = relative.shift_change(q, k, length, s.shift, scheme="sinusoidal", base=s.base)
    a, b = st.columns(2)
    with a:
        ui.headline(f"rotary: score change when every position moves by {s.shift}", number(moved_rot))
        ui.badge(verdicts.negligible(moved_rot), "rotary: unchanged (relative)", "rotary: changed")
    with b:
        ui.headline("added sinusoids: score change, same shift", number(moved_sin))
        ui.badge(
            not verdicts.negligible(moved_sin), "added sinusoids: changed (absolute)", "added sinusoids: unchanged"
        )

    left, right = st.columns(2)
    with left:
        circle = frames.trajectory(relative.query_pair_trajectory(q, length, s.pair, s.base))
        # 270 px + axis + legend fit half of the 820 px beside the open sidebar
        ui.show_chart(
            lines_bars.trajectory,
            circle,
            name="rope-pair",
            title=f"query pair {s.pair} as its position grows",
            size=ui.fit(270, 190),
        )
        ui.takeaway(
            "The pair keeps its length and turns by the same angle at every step: rotary moves direction, never size."
        )
        ui.control(P["pair"], hi=s.d // 2 - 1)
        st.caption(
            "Rotary embeddings come from RoFormer (Su et al. 2021). Its section 3.4.3, cited on Longer contexts, shows "
            "that the largest score a query and key can reach shrinks as they move apart: RoPE's long-term decay."
        )
    with right:
        ui.badge(
            verdicts.depends_only_on_offset(rot),
            f"constant along every diagonal (spread {number(spread)})",
            f"spread {number(spread)}",
        )
        title = "rotary score q·k, query at i, key at j"
        ui.takeaway("Each diagonal (one offset i − j) holds one value: only the offset counts.")
        ui.matrix_chart(
            rot,
            title=title,
            name="rope-scores",
            height=ui.fit(300, 180),
            in_columns=2,
            square=True,
            **figures.SCORE_AXES,
        )
elif s.part == "learned":
    last, end = s.max_length - 1, s.start + s.T - 1
    try:
        rows = posviz.learned(s.T, s.d, max_length=s.max_length, start=s.start, seed=s.seed)
    except ValueError as error:
        st.error(
            f"Position {end} asked of a table trained for {s.max_length} positions: {error}. "
            "A model meets this as an index error in its embedding lookup; it has to be cut, or the table extended "
            "and trained again."
        )
        # the rows that exist: from the first position asked for, or the table's last T when none of them has one
        first = s.start if s.start < s.max_length else max(0, s.max_length - s.T)
        rows = posviz.learned(s.max_length - first, s.d, max_length=s.max_length, start=first, seed=s.seed)
        title = f"the table's rows {first}..{last}: positions {max(s.start, s.max_length)}..{end} have none"
        ui.takeaway(
            f"The chart stops at row {last}, the table's last: a learned table has no vector for a position "
            "it was not trained on, unlike sinusoids or rotary, which are formulas."
        )
    else:
        ui.badge(True, f"positions {s.start}..{end} are inside the table's {s.max_length} rows", "")
        title, first = "the learned rows asked for (seeded stand-in, N(0, 1))", s.start
        ui.takeaway(
            f"Every position asked for has a row; ask for one past row {last} (a later first position or a "
            "larger T) and the lookup fails."
        )
    ui.matrix_chart(
        rows, title=title, name="learned-rows", row_offset=first, height=ui.fit(240, 220), **figures.POSITION_AXES
    )
else:
    slopes = relative.alibi_slopes(s.heads)
    pick, listed = st.columns([1, 3], vertical_alignment="bottom")
    with pick:
        ui.control(P["head"], hi=s.heads)
    bias = relative.alibi_bias(length, float(slopes[s.head - 1]), causal=False)
    with listed:
        st.caption(
            f"slopes 2^(-8h/n) of heads h = 1..{s.heads}: "
            + ", ".join(number(v) for v in slopes[:12])
            + (" …" if s.heads > 12 else "")
        )
    title = f"ALiBi bias of head {s.head} of {s.heads}, slope {number(slopes[s.head - 1])} (symmetric form)"
    ui.takeaway(
        f"The penalty is −slope × |i − j|: {number(slopes[s.head - 1])} per step apart for this head, the same "
        "at every position, so like rotary it depends only on the offset."
    )
    ui.matrix_chart(bias, title=title, name="alibi-bias", height=ui.fit(300, 250), square=True, **figures.SCORE_AXES)
ui.sync_url(P)
