"""The lecture: the lessons' experiments and figures composed into steps a class walks through."""

from posviz.lecture.steps import COMPARED, FIGURE_HEIGHT, PHONE_FIRST, STEPS, Control, Slide, Step, slide

__all__ = ["COMPARED", "FIGURE_HEIGHT", "PHONE_FIRST", "STEPS", "Control", "Slide", "Step", "slide"]
