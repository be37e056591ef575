"""The lecture's decks in the app: the deck a link's `steps=` names, the composer that makes such a link, and the
offline copy's download (posviz.lecture.decks and posviz.lecture.export do the work)."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import streamlit as st

from posviz.lecture import STEPS, decks, export
from ui.text import note

TITLES = {step.key: step.title for step in STEPS}


def deck_from_url() -> decks.Deck:
    """The deck the link's `steps` value names (the whole lecture without one). Bad items get a note and are
    dropped (no valid item left: the whole lecture), and the link is rewritten to what is shown."""
    raw = st.query_params.get("steps")
    if raw is None:
        return decks.WHOLE
    parsed = decks.parse(raw)
    if parsed.problems:
        fallback = "no valid step left, so the whole lecture" if parsed.whole else "the rest of the deck"
        note(f"The link's deck (steps=) was not all understood; showing {fallback}:\n" + "\n".join(parsed.problems))
    if parsed.whole:
        del st.query_params["steps"]
    elif raw != (text := decks.encode(parsed.deck)):
        st.query_params["steps"] = text
    return parsed.deck


def deck_link(deck: decks.Deck) -> str:
    """The link that opens `deck`: this server's address when the browser sent it, else a path."""
    path = f"/lecture?steps={quote(decks.encode(deck), safe=',:=')}"
    url = st.context.url
    if not url:
        return path
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{path}" if parts.scheme and parts.netloc else path


def composer(deck: decks.Deck) -> decks.Deck | None:
    """Pick steps in order, preset their controls, get the deck's link. Returns the composed deck (None: no steps
    picked yet)."""
    with st.expander("Your own deck: pick steps and presets, get one link", icon=":material/playlist_add:"):
        start = [] if deck == decks.WHOLE else [e.key for e in deck.entries]
        keys = st.multiselect(
            "steps, in the order you pick them",
            list(TITLES),
            default=start,
            format_func=lambda k: TITLES[k],
            key="deck-steps",
        )
        entries = [decks.Entry(key, presets(key, deck)) for key in keys]
        if not entries:
            st.caption("Pick steps above: the link appears here. Each step keeps its control presets in the link.")
            return None
        composed = decks.Deck(tuple(entries))
        link = deck_link(composed)
        st.code(link, language=None)
        st.link_button("Open this deck", link, icon=":material/open_in_new:")
        return composed


def presets(key: str, deck: decks.Deck) -> tuple[tuple[str, object], ...]:
    """The composer's preset controls for one step (starting at the current deck's values); those off default."""
    step = STEPS[decks.BY_KEY[key]]
    chosen = []
    current = deck.values(key)
    for c in step.controls:
        value = st.segmented_control(
            f"{TITLES[key]}: {c.label}",
            c.options,
            default=current[c.name],
            key=f"deck-{key}-{c.name}",
            format_func=_shown,
        )
        if value is not None and value != c.default:
            chosen.append((c.name, value))
    return tuple(chosen)


def _shown(value: object) -> str:
    """An option as the lecture's own control writes it (0.0 as "0")."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _page(text: str, with_notes: bool) -> str:
    return export.page(decks.read(text), with_notes=with_notes)


# the whole lecture's file takes seconds (two real models, every chart through vl-convert): built on click, kept
cached_page = st.cache_data(_page, max_entries=4, show_spinner=False)


def offline_copy(deck: decks.Deck) -> None:
    """A download button for the deck as one HTML file that works without network or server (built on click)."""
    if not export.available():
        st.caption(f"The offline copy needs vl-convert: `{export.INSTALL}`")
        return
    text = decks.encode(deck)
    left, right = st.columns([1, 1], vertical_alignment="center")
    with right:
        with_notes = st.toggle("with speaker notes (N shows them)", key="deck-notes")
    with left:
        st.download_button(
            f"Offline copy of this deck ({len(deck)} steps, HTML)",
            data=lambda: cached_page(text, with_notes),
            file_name="posviz-lecture.html" if deck == decks.WHOLE else f"posviz-deck-{len(deck)}-steps.html",
            mime="text/html",
            key="deck-offline",
            on_click="ignore",
            icon=":material/download:",
        )


def tools(deck: decks.Deck) -> None:
    """The offline copy of the deck shown and the composer of a new one, under the step (the page leaves them out
    in presenter mode)."""
    offline_copy(deck)
    composer(deck)
