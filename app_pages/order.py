"""Order blindness

Shuffle the input tokens, run one attention head, and compare with the original output shuffled the same way. Without
position the two agree to the last bit: attention treats its input as a set. Add a vector that differs per position (the
position vectors stay in their places while the tokens move) and the agreement breaks. The page runs both, side by side.
"""

import streamlit as st

import ui
from posviz.drawing import figures, heatmaps
from posviz.drawing.display import number, zero_note
from posviz.experiments import lessons, shuffles
from posviz.maths import parsing, verdicts

ui.page_setup(__doc__)  # the experiment of lesson 000
# Three parts: a first visit draws the shuffle test's four panels, not the other experiments' charts too.
PAIR_SIGNALS = ("sinusoidal", "ramp", "learned", "random")  # additive signals, as the lecture's pair step offers
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
    ui.Param(
        "position", "ramp", "choice", options=lessons.POSITION_KINDS, label="position signal E (compared with none)"
    ),
    ui.Param("pscale", 0.6, "float", 0.0, 3.0, step=0.05, label="position scale"),
    # the pair move runs lesson 003's signal, as the lecture's step does: sinusoids at scale 1
    ui.Param("pair_position", "sinusoidal", "choice", options=PAIR_SIGNALS, label="position signal E (lesson 003)"),
    ui.Param("pair_scale", 1.0, "float", 0.05, 3.0, step=0.05, label="position scale"),
    ui.Param("causal", False, "bool", label="causal mask"),
    ui.Param("forget", False, "bool", label="1: forget to reorder the reference"),
    ui.Param("offset", False, "bool", label="2: constant offset 0.6 instead"),
    ui.Param("first", 0, "int", 0, 255, label="first copy at position", widget="number"),
    ui.Param("second", 4, "int", 0, 255, label="second copy at position", widget="number"),
)
shuffle_test = st.cache_data(shuffles.shuffle_test, max_entries=64)
twin_test = st.cache_data(shuffles.twin_test, max_entries=64)
pair_moves = st.cache_data(shuffles.pair_moves, max_entries=64)

s = ui.url_state(P, page="order")
part = ui.part(P["part"])
# Each part's controls in the sidebar, then its exercises: identical tokens need no permutation (their two positions
# sit beside their numbers), the pair move no mask. P is typed, or drawn by a seeded shuffle.
permutation = ("perm_mode", "perm" if s.perm_mode == "typed" else "shuffle_seed")
sidebar = {
    "shuffle": ("seed", "T", "d", "wscale", *permutation, "position", "pscale", "causal"),
    "twins": ("seed", "T", "d", "wscale", "position", "pscale", "causal"),
    "pairs": ("seed", "T", "d", "wscale", *permutation, "pair_position", "pair_scale"),
}
exercises = {"shuffle": ("forget", "offset"), "twins": ("offset",), "pairs": ("offset",)}
with st.sidebar:
    ui.controls((P[k] for k in sidebar[part]), disabled={"position", "pair_position"} if s.offset else ())  # ex. 2
    st.caption("Lesson 000 exercises")
    ui.controls(P[k] for k in exercises[part])
ui.sync_url(P)

chosen = (s.pair_position, s.pair_scale) if part == "pairs" else (s.position, s.pscale)
position, pscale = shuffles.chosen_signal(*chosen, offset=s.offset)
signal = f"{position} × {number(pscale)}"
perm = lessons.shuffled(s.T, s.shuffle_seed)
if s.perm_mode == "typed":  # a typed P that does not parse: a note, and the shuffle
    perm = ui.guarded(
        lambda: parsing.parse_permutation(s.perm, s.T),
        lambda: perm,
        "The typed permutation",
        f"using a shuffle with seed {s.shuffle_seed}",
    )
perm = tuple(int(p) for p in perm)  # scalars: the cache keys on them
run = dict(seed=s.seed, T=s.T, d=s.d, weight_scale=s.wscale)

if part == "shuffle":
    test = shuffle_test(**run, perm=perm, position=position, scale=pscale, causal=s.causal, forget_reorder=s.forget)
    ui.readings(
        [
            ui.Reading("no position (E = 0)", test.bare.max_diff, ui.Badge(*test.bare_verdict)),
            ui.Reading(
                f"with {signal}: max |attn(PX + E) − P attn(X + E)|",
                test.signal.max_diff,
                ui.Badge(*test.signal_verdict),
                caption=test.setting,
            ),
        ],
        [1, 3],
    )
    ui.takeaway(f"{test.takeaway(signal)} {shuffles.signal_words(position, pscale)}")
    bare, marked = test.bare, test.signal
    # four titles in a row: a signal's name did not fit beside the sidebar, so E is named in the line above
    ui.matrix_panels(
        [
            ui.Panel("E = 0: difference", bare.difference, "order-no-position-difference", zero_note(bare.difference)),
            ui.Panel(
                "E: " + ("attend, then shuffle" if not s.forget else "attend (not reordered)"),
                marked.reference,
                "order-attend-then-shuffle",
            ),
            ui.Panel("E: shuffle, then attend", marked.out_perm, "order-shuffle-then-attend"),
            ui.Panel("E: difference", marked.difference, "order-difference", zero_note(marked.difference)),
        ],
        name="order-shuffle-test",
        row_title="position",
        col_title="feature",
        domain=heatmaps.signed_domain(*test.outputs),
        height=ui.fit(340, 185),
    )
    st.caption("All four panels share one diverging colour scale centred on 0, so a zero difference is blank.")
elif part == "twins":
    ui.intro(
        "Put one token vector at two positions. Without position their outputs are equal; a per-position signal "
        "tells them apart."
    )
    first_box, second_box, numbers = st.columns([1, 1, 3])
    with first_box:
        ui.control(P["first"])
    with second_box:
        ui.control(P["second"])
    twins = twin_test(**run, first=s.first, second=s.second, position=position, scale=pscale, causal=s.causal)
    if (twins.first, twins.second) != (s.first, s.second):
        ui.note(f"Positions must be below T = {s.T}; using {twins.first} and {twins.second}.")
    with numbers:
        ui.readings(
            [
                ui.Reading("row difference, no position", twins.plain.row_diff),
                ui.Reading(f"row difference, {signal}", twins.marked.row_diff),
            ]
        )
    ui.takeaway(twins.takeaway(signal) + " " + shuffles.signal_words(position, pscale))
    ui.matrix_chart(
        twins.rows,
        title="output rows of the two copies",
        row_title="",
        col_title="feature",
        domain=heatmaps.signed_domain(twins.rows),
        row_labels=[
            f"copy at {twins.first}, no position",
            f"copy at {twins.second}, no position",
            f"copy at {twins.first}, {position}",
            f"copy at {twins.second}, {position}",
        ],
        name="identical-tokens",
        height=ui.fit(260, 230),
        row_label_limit=300,  # "copy at 255, sinusoidal" whole at 16 px
    )
else:
    ui.intro(
        "Lesson 003 separates two experiments. Reorder the sentence and give the new first token position 0, and "
        "each token meets another position vector: the outputs change. Move every (token, position) pair "
        "together and nothing is lost: the outputs only follow the move."
    )
    pairs = pair_moves(**run, perm=perm, position=position, scale=pscale)
    moves = pairs.moves
    ui.readings(
        [
            ui.Reading(
                f"{figures.PAIR_MOVES[0]} moved together",
                moves.together,
                ui.Badge(verdicts.machine_zero(moves.together), "outputs only reordered", "outputs changed"),
            ),
            ui.Reading(f"{figures.PAIR_MOVES[1]} (positions stay)", moves.tokens_only),
            ui.Reading(f"{figures.PAIR_MOVES[2]} (same token order)", moves.positions_only),
        ]
    )
    shown = figures.pair_signal(pairs.position, pairs.scale)  # the lecture's words
    st.caption(
        f"max abs differences against the reordered outputs; {shuffles.signal_words(pairs.position, pairs.scale)}"
    )
    ui.takeaway(
        "Only the first bar is at rounding level: moving each (token, position) pair keeps what every token is "
        "combined with, so the outputs only follow the move."
        if verdicts.machine_zero(moves.together)
        else "Even the pairs moved together change the outputs here: look at the settings."
    )
    ui.figure(
        figures.pair_moves(moves.together, moves.tokens_only, moves.positions_only, shown, height=ui.fit(240, 200))
    )
