"""Order blindness

Shuffle the input tokens, run one attention head, and compare with the original output shuffled the same way. Without
position the two agree to the last bit: attention treats its input as a set. Add a vector that differs per position (the
position vectors stay in their places while the tokens move) and the agreement breaks. The page runs both, side by side.
"""

import streamlit as st

import posviz
import ui
from posviz.drawing.display import number, zero_note
from posviz.experiments import lessons
from posviz.maths import parsing, verdicts

KINDS = posviz.POSITION_KINDS
ui.page_setup(__doc__)  # the experiment of lesson 000
# Three parts: a first visit draws the shuffle test's four panels, not the other experiments' charts too.
PARTS = {"shuffle": "the shuffle test", "twins": "identical tokens", "pairs": "move each token with its position"}
P = ui.params(
    ui.part_param(PARTS),
    ui.seed_param(42, help="RandomState seed for X, then w_q, w_k, w_v"),
    ui.tokens_param(6, 256),
    ui.width_param(8, 2, 256, help="even, so sinusoids and rotary have pairs", aliases=("C",)),
    ui.weight_scale_param(),
    ui.Param("perm_mode", "typed", "choice", options=("typed", "shuffle"), label="permutation P", widget="horizontal"),
    ui.Param("perm", "3 0 5 1 4 2", "text", max_len=1200, label="P (0..T-1, each once)"),
    ui.Param("shuffle_seed", 0, "int", 0, 99_999, label="shuffle seed", widget="number"),
    ui.Param("position", "ramp", "choice", options=KINDS, label="position signal E (compared with none)"),
    ui.Param("pscale", 0.6, "float", 0.0, 3.0, step=0.05, label="position scale"),
    ui.Param("causal", False, "bool", label="causal mask"),
    ui.Param("forget", False, "bool", label="1: forget to reorder the reference"),
    ui.Param("offset", False, "bool", label="2: constant offset 0.6 instead"),
    ui.Param("first", 0, "int", 0, 255, label="first copy at position", widget="number"),
    ui.Param("second", 4, "int", 0, 255, label="second copy at position", widget="number"),
)  # fmt: skip
experiment = st.cache_data(lessons.order_experiment, max_entries=64)
twins = st.cache_data(lessons.twin_experiment, max_entries=64)
pair_moves = st.cache_data(lessons.pair_move_experiment, max_entries=64)

s = ui.url_state(P, page="order")
part = ui.part(P["part"])
with st.sidebar:  # each part's own controls: identical tokens need no permutation, the pair move no mask
    ui.controls(P[k] for k in ("seed", "T", "d", "wscale"))
    if part != "twins":
        ui.control(P["perm_mode"])
        ui.control(P["perm"] if s.perm_mode == "typed" else P["shuffle_seed"])
    ui.control(P["position"], disabled=s.offset)
    ui.controls(P[k] for k in (("pscale", "causal") if part != "pairs" else ("pscale",)))
    st.caption("Lesson 000 exercises")
    ui.controls(P[k] for k in (("forget", "offset") if part == "shuffle" else ("offset",)))
ui.sync_url(P)

T, d = s.T, s.d
position, pscale = ("constant", 0.6) if s.offset else (s.position, s.pscale)
perm = lessons.shuffled(T, s.shuffle_seed)
if s.perm_mode == "typed":
    perm = ui.guarded(
        lambda: parsing.parse_permutation(s.perm, T),
        lambda: perm,
        "The typed permutation",
        f"using a shuffle with seed {s.shuffle_seed}",
    )
signal = f"{position} × {number(pscale)}"
if part == "shuffle":
    common = dict(seed=s.seed, T=T, d=d, weight_scale=s.wscale, perm=tuple(int(p) for p in perm),
                  causal=s.causal, forget_reorder=s.forget)  # fmt: skip
    bare = experiment(**common)
    result = experiment(**common, position=position, scale=pscale)

    heads = [
        (bare, "no position (E = 0)", "the causal mask gives order"),
        (result, f"with {signal}: max |attn(PX + E) − P attn(X + E)|",
         "mask and signal give order" if s.causal else "the position signal tells places apart"),
    ]  # fmt: skip
    for column, (run, label, why) in zip(st.columns([1, 3]), heads, strict=True):
        with column:
            ui.headline(label, number(run.max_diff))
            if s.forget and not run.order_blind:  # the one problem here: the test's own bug (exercise 1)
                ui.badge(False, "", "differs only because the reference was not reordered: a bug in the test")
            else:
                ui.badge(True, "order-blind: machine zero" if run.order_blind else
                         f"order-aware: {why}", "")  # fmt: skip
            if run is result:
                st.caption(
                    f"P = {' '.join(map(str, result.perm[:32]))}{' …' if T > 32 else ''}"
                    f"{'  ·  causal' if s.causal else ''}{'  ·  reference NOT reordered' if s.forget else ''}"
                )
    ui.intro(
        "In words: P shuffles the rows (the tokens); E holds one position vector per row and does not move with "
        "them; machine zero means equal up to rounding, about 1e-16 here."
    )

    domain = posviz.drawing.charts.signed_domain(result.out, result.out_perm, bare.out, bare.out_perm)

    panels = [
        ui.Panel("no position: difference", bare.difference, "order-no-position-difference",
                 zero_note(bare.difference)),
        ui.Panel("attend, then shuffle" if not s.forget else "attend (not reordered)", result.reference,
                 "order-attend-then-shuffle"),
        ui.Panel("shuffle, then attend", result.out_perm, "order-shuffle-then-attend"),
        ui.Panel(f"{position}: difference", result.difference, "order-difference", zero_note(result.difference)),
    ]  # fmt: skip
    ui.matrix_panels(panels, name="order-shuffle-test", row_title="position", col_title="feature", domain=domain,
                     height=ui.fit(340, 230))  # fmt: skip
    st.caption("All four panels share one diverging colour scale centred on 0, so a zero difference is blank.")
elif part == "twins":
    ui.intro(
        "Put one token vector at two positions. Without position their outputs are equal; a per-position signal "
        "tells them apart."
    )
    a, b, c = st.columns([1, 1, 3])
    with a:
        ui.control(P["first"])
    with b:
        ui.control(P["second"])
    first, second = min(s.first, T - 1), min(s.second, T - 1)
    if (first, second) != (s.first, s.second):
        ui.note(f"Positions must be below T = {T}; using {first} and {second}.")
    twin = dict(seed=s.seed, T=T, d=d, weight_scale=s.wscale, first=first, second=second, causal=s.causal)
    plain = twins(**twin)
    marked = twins(**twin, position=position, scale=pscale)
    with c:
        m1, m2 = st.columns(2)
        with m1:
            ui.headline("row difference, no position", number(plain.row_diff))
        with m2:
            ui.headline(f"row difference, {signal}", number(marked.row_diff))
    rows = lessons.twin_rows(plain, marked)
    labels = [
        f"copy at {first}, no position",
        f"copy at {second}, no position",
        f"copy at {first}, {position}",
        f"copy at {second}, {position}",
    ]
    ui.matrix_chart(
        rows,
        title="output rows of the two copies",
        row_title="",
        col_title="feature",
        domain=posviz.drawing.charts.signed_domain(rows),
        row_labels=labels,
        name="identical-tokens",
        height=260,
    )
else:
    ui.intro(
        "Lesson 003 separates two experiments. Reorder the sentence and give the new first token position 0, and "
        "each token meets another position vector: the outputs change. Move every (token, position) pair "
        "together and nothing is lost: the outputs only follow the move."
    )
    kind = position if position not in ("none", "rotary") else "sinusoidal"
    moves = pair_moves(seed=s.seed, T=T, d=d, weight_scale=s.wscale, perm=tuple(int(p) for p in perm),
                       position=kind, scale=pscale or 1.0)  # fmt: skip
    m1, m2, m3 = st.columns(3)
    with m1:
        ui.headline("token and position moved together", number(moves.together))
        ui.badge(verdicts.machine_zero(moves.together), "outputs only reordered", "outputs changed")
    with m2:
        ui.headline("tokens moved, positions stay", number(moves.tokens_only))
    with m3:
        ui.headline("same tokens, positions moved", number(moves.positions_only))
    st.caption(f"max abs differences against the reordered outputs; position signal: {kind} × {number(pscale or 1.0)}")
