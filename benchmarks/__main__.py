"""`python -m benchmarks` (`make bench`): every family's benchmarks, as ratios measured in one run."""

import importlib
import pkgutil
import sys
from pathlib import Path

import torch

from mfx.bench import table

torch.set_num_threads(1)
results = []
for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
    if info.name.startswith("bench_"):
        module = importlib.import_module(f"benchmarks.{info.name}")
        print(f"running {info.name} …", file=sys.stderr, flush=True)
        results += module.run()
print(table(results))
sys.exit(0)
