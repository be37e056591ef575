"""Pixels of a 1280 x 720 screen: the widths the app and the offline export both size charts and pictures by.

Measured in Chromium in the wide layout. No streamlit here: `ui` and `posviz.lecture.export` import these.
"""

PAGE_WIDTH = 820  # the main column beside the open sidebar, px
PRESENTER_WIDTH = 1120  # the main column in presenter mode (sidebar closed): a 1280 px screen less its margins
COLUMN_GAP = 16  # between two of st.columns, px
AXIS_WIDTH = 60  # what a heatmap's y axis takes from its column, px
LEGEND_WIDTH = 90  # a colour legend at the right: its bar, labels and padding, px
PANEL_SPACING = 16  # pixels between the columns of a faceted chart's panels (heatmaps.heatmap_panels)
PICTURE_CELLS = 1024  # a heatmap of more cells is one picture on its axes, not a mark a cell
