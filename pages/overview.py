"""Overview: what posviz is for, and every lesson claim reproduced live."""

import pandas as pd
import streamlit as st

import posviz

st.title("posviz: why attention needs position")
st.write(
    "Self-attention treats its input as a set: shuffle the tokens and the outputs shuffle with them. "
    "Adding a position vector to each token before attention is what lets order matter. "
    "Every number below is recomputed by the posviz core when this page loads."
)
rows = pd.DataFrame(posviz.claim_rows())
passed = sum(c.passed for c in posviz.claims())
st.metric("lesson claims reproduced", f"{passed} of {len(posviz.claims())}")
st.dataframe(rows.drop(columns=["page"]), hide_index=True)
