"""A core `Figure` drawn by its kind: a chart, a heatmap of cells, or a picture."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from posviz.drawing import heatmaps, lecture_charts
from posviz.drawing.display import number
from posviz.drawing.figures import Figure
from posviz.maths import verdicts
from ui.chart import show_chart
from ui.heatmaps import reduced_heatmap
from ui.pictures import show_image
from ui.screen import fit, presenter
from ui.text import Badge, Reading, readings, text_grid

if TYPE_CHECKING:
    from posviz.experiments.decoder import Ablation


DESK_SQUARE = 240  # px: a square chart's most off the projector (a 390 px phone scaled a 280 px one's text to 9 px)
DESK_ROW = 56  # px: a wide heatmap's row off the projector (2 rows in 228 px took a phone's first screen past 844 px)


def _off_projector(shape: dict, rows: int | None = None) -> dict:
    """A chart's shape on a desk or a phone (not presenter mode). A square chart: at most DESK_SQUARE px, its colour
    legend under it rather than at its right, so that at 390 px it fits the column and its 12 px text is not scaled
    down. A wide heatmap of `rows` rows: at most DESK_ROW px a row (a two-row map need not be as tall as a square)."""
    if presenter():
        return shape
    if not shape.get("square"):
        if rows is None or "height" not in shape:
            return shape
        return {**shape, "height": min(int(shape["height"]), DESK_ROW * rows)}
    smaller = {**shape, "height": min(int(shape.get("height", DESK_SQUARE)), DESK_SQUARE)}
    if "style" in shape:  # a labelled heatmap: the legend is part of its style
        return {**smaller, "style": replace(shape["style"], legend="bottom")}
    return {**smaller, "legend": "bottom"}


def figure(
    fig: Figure,
    *,
    prefix: str = "",
    downloads: bool = True,
    image_height: int | None = None,
    fill_images: bool = False,
    in_columns: int = 1,
    details: bool = True,
    **shape: object,
) -> None:
    """Draw a core `Figure`: `show_chart` named `prefix` + its name, or `show_image` (at most `image_height` px tall;
    with `fill_images`, as wide as the column and `image_height` tall) for a picture. `shape` adds what depends on the
    mode (a height from `fit`); `in_columns`, how many equal columns share the main column where it is drawn (the
    pixels a picture or a heatmap gets); `details=False` (the lecture) leaves out how a picture or heatmap is drawn
    (its pixel count, "every value shown") and every Download menu."""
    if fig.image is not None:
        show_image(
            fig.image,
            height=image_height,
            fill=fill_images,
            in_columns=in_columns,
            details=details,
            **fig.shape,
            **shape,
        )
    elif fig.cells is not None:  # a heatmap: a mark a cell, or one picture past PICTURE_CELLS
        merged = {k: v for k, v in _off_projector({**fig.shape, **shape}).items() if k != "subtitle"}
        legend = merged.pop("legend", None)
        reduced_heatmap(
            fig.cells, name=prefix + fig.name, legend=legend, in_columns=in_columns, details=details, **merged
        )
    elif fig.builder is lecture_charts.text_table:  # words in a grid: a real table (read cell by cell; wraps)
        text_grid(*fig.frames, **fig.shape)
    else:
        show_chart(
            fig.builder,
            *fig.frames,
            name=prefix + fig.name,
            downloads=downloads and details,
            table=fig.table,
            **_off_projector({**fig.shape, **shape}, _heatmap_rows(fig)),
        )


def _heatmap_rows(fig: Figure) -> int | None:
    """How many rows a labelled heatmap figure draws (`heatmaps.token_heatmap`'s frame); None for any other chart."""
    if fig.builder is not heatmaps.token_heatmap or not fig.frames:
        return None
    return int(fig.frames[0]["row_index"].nunique())


def ablations(result: Ablation) -> None:
    """A decoder's three ablations (SmolLM2's or a user's model, `decoder.ablations`): each gap in a headline with its
    verdict, then the gaps as bars."""
    from posviz.drawing import llm_figures  # imported when drawn: a page without a decoder never loads the model code
    from posviz.experiments import decoder

    order, blind, shift = decoder.order_gap(result), decoder.equivariance_gap(result), decoder.shift_gap(result)
    readings(
        [
            Reading(
                "no rotation, mask: reordered",
                number(order),
                Badge(not verdicts.float32_zero(order), "order still matters: the mask carries it", "order-blind"),
            ),
            Reading(
                "no rotation, no mask: reordered",
                number(blind),
                Badge(verdicts.float32_zero(blind), "permutation-equivariant (float32 rounding)", "not equivariant"),
            ),
            Reading(
                f"RoPE, positions + {result.k}: attention",
                number(shift),
                Badge(verdicts.float32_zero(shift), "unchanged: RoPE sees only offsets", "changed"),
            ),
        ]
    )
    figure(llm_figures.ablation_gaps(result, height=fit(280, 120)))
