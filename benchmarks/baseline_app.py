"""The baseline: the sinusoid heatmap as a user would first write it (plain long-form Altair rect chart).

Served by benchmarks/browser_bench.py; ?T=&d= choose the table (T positions, d dimensions).
"""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

T = int(st.query_params.get("T", 1024))
d = int(st.query_params.get("d", 256))
positions = np.arange(T)[:, None]
pe = np.zeros((T, d))
pe[:, 0::2] = np.sin(positions * 10000.0 ** (-np.arange(0, d, 2) / d))
pe[:, 1::2] = np.cos(positions * 10000.0 ** (-np.arange(0, d, 2) / d))
frame = pd.DataFrame(
    {
        "position": np.repeat(np.arange(T), d),
        "dimension": np.tile(np.arange(d), T),
        "value": pe.ravel(),
    }
)
st.title("Plain Altair heatmap")
st.altair_chart(
    alt.Chart(frame)
    .mark_rect()
    .encode(x="dimension:O", y="position:O", color=alt.Color("value:Q", scale=alt.Scale(scheme="blueorange"))),
    width="stretch",
)
