"""The README's tables of the matched family, printed as Markdown: never typed by hand.

(1) Each scheme's held-out loss (nats per byte) in the position bins 1x, 2x, 4x and 8x T_train: the seed mean and
    the lowest..highest seed, from the per-position curves JAX recorded at training on every held-out window
    (provenance.json `heldout_per_position`), binned by posviz's own `experiments.matched.bin_table`.
(2) The position probe's R² (experiments.matched.family_probe, the page's: 32 held-out windows of T_train bytes),
    computed now in numpy from the shipped weights: before layer 0, the best layer, after the last layer.

    python tools/matched_table.py [--no-probe]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from posviz.experiments import matched as ex  # noqa: E402
from posviz.models import matched  # noqa: E402


def spread(values: list[float]) -> str:
    """'mean (lowest..highest)' to 3 decimals.

    >>> spread([1.0, 1.5])
    '1.250 (1.000..1.500)'
    """
    return f"{np.mean(values):.3f} ({min(values):.3f}..{max(values):.3f})"


def loss_table() -> list[str]:
    """The recorded curves' bin table as Markdown rows (the learned table has no row past T_train)."""
    models = matched.provenance()["models"]
    curves = {(m["scheme"], m["seed"]): np.array(m["heldout_per_position"]) for m in models.values()}
    rows = ex.bin_table(curves)
    spans = ex.bins(matched.config().T_train)
    head = [f"positions {spans[0][0]}-{spans[0][1] - 1}", *(f"{a}-{b - 1}" for a, b in spans[1:])]
    out = [f"| scheme | {' | '.join(head)} |", "| --- |" + " --- |" * len(spans)]
    for scheme in matched.SCHEMES:
        cells = []
        for r in (r for r in rows if r.scheme == scheme):
            cells.append(
                f"{r.mean:.3f} ({r.low:.3f}..{r.high:.3f})"
                if r.seeds
                else f"no row past {matched.config().T_train - 1}"
            )
        out.append(f"| {scheme} | {' | '.join(cells)} |")
    return out


def probe_table() -> list[str]:
    """R² of the position probe per scheme (seed mean, lowest..highest), computed now."""
    r2, models = ex.family_probe(), matched.provenance()["models"]
    out = ["| scheme | R² before layer 0 | best layer's R² | R² after the last layer |", "| --- | --- | --- | --- |"]
    for scheme in matched.SCHEMES:
        mine = [v for k, v in r2.items() if models[k]["scheme"] == scheme]
        cells = [spread([float(v[0]) for v in mine]), spread([float(v.max()) for v in mine])]
        out.append(f"| {scheme} | {' | '.join([*cells, spread([float(v[-1]) for v in mine])])} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-probe", action="store_true", help="only the recorded loss table (no model runs)")
    args = parser.parse_args()
    ev = matched.provenance()["evaluation"]
    print(f"Held-out loss, nats per byte, recorded at training by JAX on all {ev['windows']} held-out windows of")
    print(f"{ev['window_tokens']} bytes: seed mean (lowest..highest of {len(matched.seeds())} seeds)")
    print()
    print("\n".join(loss_table()))
    if not args.no_probe:
        print()
        print("Position probe R², numpy now, 32 held-out windows of T_train bytes (16 fit, 16 scored): seed mean")
        print("(lowest..highest)")
        print()
        print("\n".join(probe_table()))


if __name__ == "__main__":
    main()
