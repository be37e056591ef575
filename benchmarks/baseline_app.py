"""The baseline: the sinusoid heatmap as a user would first write it (plain long-form Altair rect chart).

Served by benchmarks/browser_bench.py; ?length=&width= choose the table.
"""

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

length = int(st.query_params.get("length", 1024))
width = int(st.query_params.get("width", 256))
positions = np.arange(length)[:, None]
pe = np.zeros((length, width))
pe[:, 0::2] = np.sin(positions * 10000.0 ** (-np.arange(0, width, 2) / width))
pe[:, 1::2] = np.cos(positions * 10000.0 ** (-np.arange(0, width, 2) / width))
frame = pd.DataFrame(
    {
        "position": np.repeat(np.arange(length), width),
        "dimension": np.tile(np.arange(width), length),
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
