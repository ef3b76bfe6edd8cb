"""The S1 incast curve from Python: goodput against the number of senders for four RTO_min
values, mean of 20 seeds with 95 % confidence intervals (the README's plot).

    pip install './crates/python[examples]'           # the package and matplotlib
    python examples/python/incast_curve.py            # writes out/incast_curve.png
    python examples/python/incast_curve.py --quick    # 5 seeds, 20 blocks: a few seconds

Run it from the repository root (the config path is relative to it). In a notebook, paste the
cells (# %%) and drop the savefig line.
"""

# %%
import os
import sys

import matplotlib.pyplot as plt

import incastsim

quick = "--quick" in sys.argv
overrides = {"sweep.seeds": 5, "workload.blocks": 20} if quick else {}

# %% Run the sweep on every core (the GIL is released; a progress bar shows the runs).
result = incastsim.sweep("configs/incast-sweep.yaml", set=overrides)
goodput = result.summary[result.summary.metric == "goodput_mbps"]

# %% One line per RTO_min: mean goodput with its 95 % CI as error bars.
fig, ax = plt.subplots(figsize=(7, 4.5))
for rto_min, points in goodput.groupby("tcp.rto_min", sort=False):
    points = points.sort_values("senders")
    ax.errorbar(
        points.senders,
        points["mean"],
        yerr=[points["mean"] - points.ci95_low, points.ci95_high - points["mean"]],
        marker="o",
        capsize=3,
        label=f"RTO_min = {rto_min}",
    )
ax.set_xscale("log", base=2)
ax.set_xlabel("senders N")
ax.set_ylabel("goodput (Mbps)")
seeds = int(goodput["count"].max())
ax.set_title(f"S1 incast: goodput vs senders (mean of {seeds} seeds, 95 % CI)")
ax.legend()
fig.tight_layout()
# Into out/ (ignored by git), not the repository root.
os.makedirs("out", exist_ok=True)
fig.savefig("out/incast_curve.png", dpi=120)
print("wrote out/incast_curve.png")
