"""Train posviz's matched family: small byte-level decoders identical in everything but the position scheme.

Same text (pydoc_data.topics, PSF licence), tokens (UTF-8 bytes), architecture, initialisation seed, batch order,
optimiser, steps and training window T_train for every scheme in tools/matched/model.py (none, learned, sinusoid,
rope, alibi). Writes into --out (default posviz/data/matched/):

  <scheme>-seed<k>.npz  the weights (names and shapes in tools/matched/model.py PARAM_SHAPES; float32 by default)
  heldout.json          the held-out topics' text (PSF licence), so an evaluation never depends on this Python's copy
  provenance.json       the recipe, seeds, data hashes and topic lists, licences, versions, machine load, wall time,
                        loss curves, and each model's held-out loss per position out to 8 x T_train computed by JAX
                        on the shipped (rounded) weights cast to float32

    pip install -r tools/requirements-train.txt
    nice -n 19 python tools/train_matched.py                   # the whole family (resumes models already written)
    python tools/train_matched.py --reproduce rope-seed0       # retrain one model, compare with the shipped one
    python tools/train_matched.py --table                      # the held-out loss table from provenance.json

posviz never imports this tool or JAX.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from tools.matched import data, export  # noqa: E402
from tools.matched.model import PARAM_SHAPES, SCHEMES, Config, count_params, init_params  # noqa: E402
from tools.matched.train import Recipe, make_eval, per_position, train  # noqa: E402

OUT = ROOT / "posviz" / "data" / "matched"
EVAL_STRIDE_FACTOR = 2  # held-out windows start every 2 x T_train bytes inside a topic
REPRODUCE_TOLERANCE = 0.02  # nats, on each position bin's mean held-out loss (measured: see README.md)
WEIGHTS_LICENCE = (
    "trained by posviz's tools/train_matched.py and released under posviz's own licence; "
    "the text they learned from is PSF-2.0"
)


def cpu_seconds() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def versions() -> dict:
    import jaxlib

    return {
        "python": sys.version.split()[0],
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "XLA_FLAGS": os.environ.get("XLA_FLAGS", ""),
    }


def evaluation(cfg: Config, split: data.Split) -> dict:
    factor = data.EVAL_FACTOR
    windows, where = data.eval_windows(split.heldout, factor * cfg.T_train, EVAL_STRIDE_FACTOR * cfg.T_train)
    return {
        "factor": factor,
        "window_tokens": factor * cfg.T_train,
        "stride": EVAL_STRIDE_FACTOR * cfg.T_train,
        "windows": len(windows),
        "rule": f"each held-out topic (sorted by name) cut into windows of {factor} x T_train + 1 bytes starting at "
        f"0, {EVAL_STRIDE_FACTOR} x T_train, ... while the window fits; "
        "position t's loss is -ln p(byte t+1 | bytes 0..t), "
        "averaged over windows; the learned scheme's curve stops at T_train (its table has T_train rows)",
        "first_windows": [list(w) for w in where[:3]],
    }


def window0_losses(cfg: Config, shipped: dict, split: data.Split) -> list[float]:
    """JAX's per-token losses on held-out window 0 with the shipped weights: a reference a numpy decoder can match.

    Returns: 8 x T_train values (T_train for the learned table)
    """
    long, _ = data.eval_windows(split.heldout, data.EVAL_FACTOR * cfg.T_train, EVAL_STRIDE_FACTOR * cfg.T_train)
    reach = cfg.T_train if cfg.scheme == "learned" else long.shape[1] - 1
    weights = {k: jnp.asarray(v.astype(np.float32)) for k, v in shipped.items()}
    losses = make_eval(cfg)(weights, jnp.asarray(long[:1, : reach + 1]))
    return [float(x) for x in np.asarray(losses[0])]


def train_one(cfg: Config, recipe: Recipe, seed: int, split: data.Split, dtype: str, say=print) -> tuple[dict, dict]:
    """Train one model and evaluate its rounded weights; returns the shipped arrays and its provenance entry."""
    text = np.frombuffer(split.train, dtype=np.uint8)
    starts = data.batch_starts(seed, recipe.steps, recipe.batch, len(text), cfg.T_train)
    inside, _ = data.eval_windows(split.heldout, cfg.T_train, EVAL_STRIDE_FACTOR * cfg.T_train)
    long, _ = data.eval_windows(split.heldout, data.EVAL_FACTOR * cfg.T_train, EVAL_STRIDE_FACTOR * cfg.T_train)
    params = init_params(cfg, seed)
    load0, cpu0, wall0 = os.getloadavg(), cpu_seconds(), time.perf_counter()
    params, record = train(cfg, recipe, params, text, starts, inside, say=say)
    arrays = export.rounded(params, dtype)
    shipped = {k: jnp.asarray(v.astype(np.float32)) for k, v in arrays.items()}
    reach = cfg.T_train if cfg.scheme == "learned" else long.shape[1] - 1
    say(f"  {cfg.scheme:8s} evaluating the {dtype} weights on {len(long)} held-out windows of {reach} tokens")
    curve = per_position(make_eval(cfg), shipped, long[:, : reach + 1])
    entry = {
        "scheme": cfg.scheme,
        "seed": seed,
        "parameters": count_params(params),
        "train_loss": record["train_loss"],
        "heldout_loss_inside_T_train": record["heldout_loss"],
        "heldout_per_position": [round(float(x), 7) for x in curve],
        "heldout_mean_inside_T_train": round(float(curve[: cfg.T_train].mean()), 7),
        "window0_losses": window0_losses(cfg, arrays, split),
        "train_seconds": record["train_seconds"],
        "total_seconds": round(time.perf_counter() - wall0, 2),
        "cpu_seconds": round(cpu_seconds() - cpu0, 2),
        "loadavg_before": [round(x, 2) for x in load0],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }
    return arrays, entry


def recipe_record(cfg: Config, recipe: Recipe, dtype: str) -> dict:
    model = cfg.asdict()
    model.pop("scheme")
    return {
        "model": model,
        "optimiser": recipe.asdict(),
        "dtype": dtype,
        "tokens_per_step": recipe.batch * cfg.T_train,
        "initialisation": "tools/matched/model.py init_params: the same arrays for every scheme and seed; "
        "pos_emb (learned only) from its own key",
        "batch_order": "numpy default_rng(seed).integers(0, len(train) - T_train, (steps, batch)): window starts, "
        "the same for every scheme with a seed",
        "architecture": "pre-LayerNorm decoder, no biases in the linear maps, GELU (tanh form), tied input/output "
        "embedding, input = tok_emb[x] * sqrt(d) (+ the added table), attention scale 1/sqrt(head_dim)",
    }


def fresh_provenance(cfg: Config, recipe: Recipe, dtype: str, split: data.Split) -> dict:
    return {
        "what": "posviz's matched family: byte-level decoders identical in everything but the position scheme",
        "tool": "tools/train_matched.py",
        "recipe": recipe_record(cfg, recipe, dtype),
        "schemes": {
            "none": "causal mask only",
            "learned": "absolute table pos_emb (T_train, d) added to the input; the only extra parameters",
            "sinusoid": "Vaswani et al. 2017 interleaved sin/cos table (base 10000) added to the input",
            "rope": "rotary, rotate-half layout, every head dimension, base 10000, on q and k",
            "alibi": "Press et al. 2022 causal bias -m_h (i - j), m_h = 2^(-8h/H)",
        },
        "param_shapes": PARAM_SHAPES,
        "data": split.record(),
        "evaluation": evaluation(cfg, split),
        "licences": {"text": "PSF-2.0 (pydoc_data.topics, Python Software Foundation)", "weights": WEIGHTS_LICENCE},
        "versions": versions(),
        "models": {},
    }


def refuse_other_data(shipped: dict, split: data.Split) -> None:
    """Stop with a clear message when this Python's pydoc_data is not the text the shipped models learned."""
    old = shipped["data"]
    now = split.record()
    for key in ("train_sha256", "heldout_sha256"):
        if old[key] != now[key]:
            raise SystemExit(
                f"cannot reproduce: this Python ({now['python']}) has different pydoc_data text "
                "than the shipped models' "
                f"({old['python']}): {key} is {now[key][:16]}..., the shipped models learned {old[key][:16]}...; "
                "training here makes a new family (write it to another --out), not a reproduction"
            )


def reproduce(name: str, out: Path) -> int:
    """Retrain one shipped model from its recipe and compare its held-out loss per bin; 0 when within tolerance."""
    shipped = json.loads((out / "provenance.json").read_text())
    if name not in shipped["models"]:
        raise SystemExit(f"--reproduce expects one of {', '.join(sorted(shipped['models']))}, got {name!r}")
    entry = shipped["models"][name]
    rec = shipped["recipe"]
    cfg = Config(scheme=entry["scheme"], **rec["model"]).check()
    recipe = Recipe(**rec["optimiser"]).check()
    split = data.split(cfg.T_train)
    refuse_other_data(shipped, split)
    _, again = train_one(cfg, recipe, entry["seed"], split, rec["dtype"])
    a, b = np.array(entry["heldout_per_position"]), np.array(again["heldout_per_position"])
    worst = 0.0
    for lo, hi in export.bins(cfg.T_train, shipped["evaluation"]["factor"]):
        if hi > len(a):
            break
        diff = abs(a[lo:hi].mean() - b[lo:hi].mean())
        worst = max(worst, diff)
        print(
            f"positions {lo}-{hi - 1}: shipped {a[lo:hi].mean():.5f}, "
            f"retrained {b[lo:hi].mean():.5f}, |diff| {diff:.5f}"
        )
    same = bool(np.array_equal(a, b))
    print(
        f"per-position curves bit-identical: {same}; "
        f"largest bin difference {worst:.5f} (tolerance {REPRODUCE_TOLERANCE})"
    )
    return 0 if worst <= REPRODUCE_TOLERANCE else 1


def fill_window0(prov: dict, cfg: Config, split: data.Split, out: Path) -> None:
    """Add window0_losses to models recorded before the tool wrote them, from their shipped files."""
    for entry in prov["models"].values():
        if "window0_losses" not in entry:
            scheme_cfg = dataclasses.replace(cfg, scheme=entry["scheme"])
            entry["window0_losses"] = window0_losses(scheme_cfg, export.load(out / entry["file"]), split)


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    defaults, opt = Config(), Recipe()
    p.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated, from: " + ", ".join(SCHEMES))
    p.add_argument("--seeds", default="0,1", help="comma-separated integers (init and batch order)")
    for name in ("layers", "d", "heads", "mlp", "T_train"):
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, default=getattr(defaults, name))
    for f in dataclasses.fields(Recipe):
        p.add_argument(
            f"--{f.name.replace('_', '-')}", dest=f.name, type=type(getattr(opt, f.name)), default=getattr(opt, f.name)
        )
    p.add_argument("--dtype", choices=("float16", "float32"), default="float32")
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument("--restart", action="store_true", help="retrain models already in --out/provenance.json")
    p.add_argument("--reproduce", metavar="SCHEME-SEEDk", help="retrain one shipped model and compare")
    p.add_argument("--table", action="store_true", help="print the held-out loss table from provenance.json")
    return p.parse_args(argv)


def configs(args: argparse.Namespace) -> tuple[list[Config], Recipe, list[int]]:
    """Every scheme's Config (each checked), the Recipe and the seeds; ValueError on a bad one."""
    schemes = [s.strip() for s in args.schemes.split(",") if s.strip()]
    if not schemes:
        raise ValueError("--schemes must name at least one scheme")
    arch = {k: getattr(args, k) for k in ("layers", "d", "heads", "mlp", "T_train")}
    cfgs = [Config(scheme=s, **arch).check() for s in schemes]
    recipe = Recipe(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Recipe)}).check()
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        raise ValueError(f"--seeds must be comma-separated integers, got {args.seeds!r}") from None
    return cfgs, recipe, seeds


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.table:
        print(export.table(json.loads((args.out / "provenance.json").read_text())))
        return 0
    if args.reproduce:
        return reproduce(args.reproduce, args.out)
    try:
        cfgs, recipe, seeds = configs(args)
    except ValueError as e:
        print(f"train_matched: {e}", file=sys.stderr)
        return 2
    split = data.split(cfgs[0].T_train)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "provenance.json"
    prov = fresh_provenance(cfgs[0], recipe, args.dtype, split)
    if path.exists() and not args.restart:
        old = json.loads(path.read_text())
        if old["recipe"] == prov["recipe"] and old["data"] == prov["data"]:
            prov["models"] = old["models"]  # resume: the same recipe on the same text
    (args.out / "heldout.json").write_text(
        json.dumps(
            {
                "licence": "PSF-2.0",
                "source": "pydoc_data.topics, Python " + split.record()["python"],
                "topics": {k: v.decode("utf-8") for k, v in sorted(split.heldout.items())},
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"train {len(split.train)} bytes ({len(split.train_topics)} topics), held-out {sorted(split.heldout)}")
    print(f"{recipe.steps} steps x {recipe.batch} windows x {cfgs[0].T_train} tokens; {versions()}")
    for seed in seeds:
        for cfg in cfgs:
            name = f"{cfg.scheme}-seed{seed}"
            if name in prov["models"]:
                print(f"{name}: already in {path}, skipped (--restart retrains)")
                continue
            print(f"{name}: training")
            arrays, entry = train_one(cfg, recipe, seed, split, args.dtype)
            entry["file"] = f"{name}.npz"
            entry["sha256"] = export.save(args.out / entry["file"], arrays)
            prov["models"][name] = entry
            path.write_text(json.dumps(prov, indent=1) + "\n")
            print(
                f"{name}: {entry['total_seconds']:.0f} s, "
                f"held-out inside T_train {entry['heldout_mean_inside_T_train']:.4f}, "
                f"load {entry['loadavg_after']}"
            )
    fill_window0(prov, cfgs[0], split, args.out)
    path.write_text(json.dumps(prov, indent=1) + "\n")
    print(export.table(prov))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
