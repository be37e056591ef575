"""Sample Vega's "blueorange" and "viridis" schemes at 11 evenly spaced points, via vl-convert.

The stops printed here are posviz.drawing.images.SIGNED_STOPS and WEIGHT_STOPS: Vega-Lite charts and the
numpy-coloured PNG images both interpolate linearly in RGB between them, so they match exactly.

    python tools/extract_palettes.py
"""

from __future__ import annotations

import io

import altair as alt
import numpy as np
import pandas as pd
import vl_convert as vlc


def sample(scheme: str, count: int = 11) -> list[str]:
    values = np.linspace(0.0, 1.0, count)
    frame = pd.DataFrame({"i": np.arange(count), "v": values})
    chart = (
        alt.Chart(frame)
        .mark_rect()
        .encode(
            x=alt.X("i:O", axis=None),
            color=alt.Color("v:Q", scale=alt.Scale(scheme=scheme, domain=[0, 1]), legend=None),
        )
        .properties(width=count * 20, height=20)
        .configure_view(strokeWidth=0)
    )
    png = vlc.vegalite_to_png(chart.to_dict(), scale=1)
    from PIL import Image  # pillow ships with streamlit

    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    row = image[image.shape[0] // 2]
    xs = [int(20 * i + 10 + (image.shape[1] - count * 20) / 2) for i in range(count)]
    return ["#" + "".join(f"{c:02x}" for c in row[x]) for x in xs]


if __name__ == "__main__":
    for scheme in ("blueorange", "viridis"):
        print(scheme, sample(scheme))
