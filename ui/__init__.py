"""Streamlit helpers shared by the pages: controls and URL state, presenter mode, words, figures and pictures.

A page reads `import ui` and calls `ui.x`; each helper lives in the module of its job:

    startup       the garbage collector's startup heap
    declarations  Param, a control declared once, and the declarations pages share
    widgets       a Param's widget, bound to its key
    url           URL state: controls seeded from the link, and written back
    screen        presenter mode and the page's opening
    text          notes, badges, headlines, claims, HTML tables, sentence limits
    widths        pixels across the main column and its columns
    chart         a compiled chart with its downloads; a slow part drawn quick first, whole after
    background    work a page starts now and takes in a later run (one small pool, the last jobs kept)
    heatmaps      a matrix within its pixels: labelled cells, a mark a cell, or a picture
    panels        matrices side by side; two panels to compare, toggled on a phone
    pictures      matrices as PNG pictures with their colour bars
    figures       a core Figure drawn by its kind
    rooms         the lecture's room: joining from the link, the lecturer's moves, every member's poll
    lectern       the lecturer's side of a room: sharing it, the room card, its sidebar panel, the speaker view
    ask           questions to the room: asking, revealing, the projected step's count and the class's answers
    explore       a light-page follower exploring the live page: the lecturer's step, and back to the lecturer

The core (posviz/) never imports this package; pages import it and posviz.
"""

from ui.ask import asked, question_here
from ui.background import later, result_of
from ui.chart import quick_then_whole, show_chart
from ui.declarations import (
    MAX_TEXT,
    MAX_WORDS,
    SHARED,
    Param,
    params,
    part_param,
    preset_param,
    seed_param,
    sentence_params,
    tokens_param,
    weight_scale_param,
    width_param,
)
from ui.figures import ablations, figure
from ui.heatmaps import matrix_chart, reduced_heatmap, weights_chart, weights_height
from ui.lectern import room, slide_numbers
from ui.panels import Panel, compared, matrix_grid, matrix_panels, matrix_row, weights_row
from ui.pictures import show_image
from ui.rooms import join as join_room
from ui.screen import expected_line, fit, intro, lecture_style, legend_side, page_setup, presenter, takeaway
from ui.startup import freeze_startup_heap
from ui.text import (
    Badge,
    Reading,
    badge,
    capped_sentence,
    capped_sentences,
    claim,
    escape,
    guarded,
    headline,
    headlines,
    html_table,
    html_text,
    note,
    reading,
    readings,
    token_notes,
)
from ui.url import sidebar, sync_url, url_state
from ui.widgets import control, controls, part, step_list
from ui.widths import container_width

__all__ = [
    "MAX_TEXT",
    "MAX_WORDS",
    "SHARED",
    "Badge",
    "Panel",
    "Param",
    "Reading",
    "badge",
    "capped_sentence",
    "capped_sentences",
    "claim",
    "compared",
    "container_width",
    "control",
    "controls",
    "escape",
    "ablations",
    "asked",
    "question_here",
    "expected_line",
    "figure",
    "fit",
    "freeze_startup_heap",
    "guarded",
    "headline",
    "headlines",
    "html_table",
    "html_text",
    "intro",
    "join_room",
    "later",
    "result_of",
    "lecture_style",
    "legend_side",
    "matrix_chart",
    "matrix_grid",
    "matrix_panels",
    "matrix_row",
    "note",
    "page_setup",
    "params",
    "part",
    "part_param",
    "presenter",
    "preset_param",
    "quick_then_whole",
    "reading",
    "readings",
    "reduced_heatmap",
    "room",
    "slide_numbers",
    "step_list",
    "seed_param",
    "sentence_params",
    "show_chart",
    "show_image",
    "sidebar",
    "sync_url",
    "takeaway",
    "token_notes",
    "tokens_param",
    "url_state",
    "weight_scale_param",
    "weights_chart",
    "weights_height",
    "weights_row",
    "width_param",
]
