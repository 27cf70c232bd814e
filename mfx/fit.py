"""Rate fits: power laws in log space, and sums of non-negative terms such as a/L + b/√(LM).

Every fit returns a `Fit` with its parameters, their standard errors, the R² and the number of
points, so that a claim can say how well a rate was measured and not only what it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import least_squares, nnls


@dataclass(frozen=True)
class Fit:
    """`at_bound` names the coefficients that ended at a bound of their range (a non-negative
    coefficient at 0): the data did not resolve them, so their value is no measurement and their SE
    is NaN.  A claim resting on one passes them as `Claim(at_bound=…)` and is inconclusive."""

    params: dict[str, float]
    se: dict[str, float]
    r2: float
    n: int
    at_bound: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> float:
        return self.params[name]

    def describe(self, name: str) -> str:
        if name in self.at_bound:
            return f"{name} ≈ 0 (at bound; R² = {self.r2:.3f}, n = {self.n})"
        return f"{name} = {self.params[name]:.3g} ± {self.se[name]:.2g} (R² = {self.r2:.3f}, n = {self.n})"


def _clean(*arrays):
    arrays = [np.asarray(a, dtype=float) for a in arrays]
    keep = np.logical_and.reduce([np.isfinite(a) for a in arrays])
    return [a[keep] for a in arrays]


def _r2(y, pred) -> float:
    ss_res = float(np.sum((y - pred) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")


def linear(x, y) -> Fit:
    """Ordinary least squares y = slope·x + intercept, with standard errors."""
    x, y = _clean(x, y)
    n = len(x)
    if n < 2:
        nan = float("nan")
        return Fit({"slope": nan, "intercept": nan}, {"slope": nan, "intercept": nan}, nan, n)
    A = np.stack([x, np.ones_like(x)], axis=1)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    pred = A @ coef
    dof = n - 2
    if dof > 0:
        sigma2 = float(np.sum((y - pred) ** 2)) / dof
        cov = sigma2 * np.linalg.pinv(A.T @ A)
        se = np.sqrt(np.diag(cov))
    else:
        se = np.array([float("nan")] * 2)
    return Fit(
        {"slope": float(coef[0]), "intercept": float(coef[1])},
        {"slope": float(se[0]), "intercept": float(se[1])},
        _r2(y, pred),
        n,
    )


def power_law(x, y) -> Fit:
    """y = prefactor · x^slope, fitted by least squares on (log x, log y); non-positive y dropped."""
    x, y = _clean(x, y)
    keep = (x > 0) & (y > 0)
    f = linear(np.log(x[keep]), np.log(y[keep]))
    return Fit(
        {"slope": f["slope"], "prefactor": float(np.exp(f["intercept"]))},
        {"slope": f.se["slope"], "prefactor": float(np.exp(f["intercept"]) * f.se["intercept"])},
        f.r2,
        f.n,
    )


def joint_power_law(x1, x2, y) -> tuple[float, float]:
    """Exponents (a1, a2) of y = C·x1^a1·x2^a2: one least-squares law in log space over every point
    (positive inputs; the caller keeps the grid it reads, e.g. a window of cells)."""
    x1, x2, y = (np.asarray(a, dtype=float) for a in (x1, x2, y))
    A = np.column_stack([np.log(x1), np.log(x2), np.ones(len(y))])
    coef = np.linalg.lstsq(A, np.log(y), rcond=None)[0]
    return float(coef[0]), float(coef[1])


def nonneg_sum(terms: dict[str, np.ndarray], y) -> Fit:
    """y ≈ Σ_k c_k · terms[k] with every c_k ≥ 0, fitted in log space (relative errors).

    Start from the linear NNLS on relative residuals, then refine log(Σ c_k t_k) − log y with
    bounded least squares.  R² is that of log y; standard errors come from the Jacobian.
    """
    names = list(terms)
    cols = _clean(*[terms[k] for k in names], y)
    y = cols.pop()
    T = np.stack(cols, axis=1)
    keep = (y > 0) & np.all(T >= 0, axis=1)
    T, y = T[keep], y[keep]
    c0, _ = nnls(T / y[:, None], np.ones_like(y))
    scale = np.maximum(c0, 1e-12 * max(c0.max(), 1e-300))

    def residual(c):
        return np.log(np.maximum(T @ (c * scale), 1e-300)) - np.log(y)

    sol = least_squares(residual, np.ones(len(names)), bounds=(0, np.inf), method="trf")
    coef = sol.x * scale
    # A term whose largest contribution is below 1e-6 of the data sits at its bound c = 0.
    share = coef * T.max(axis=0) / y.max() if len(y) else np.zeros(len(names))
    at_bound = tuple(k for k, sh in zip(names, share) if sh < 1e-6)
    dof = len(y) - len(names)
    if dof > 0:
        J = sol.jac / scale  # d residual / d c
        sigma2 = float(np.sum(sol.fun**2)) / dof
        se = np.sqrt(np.abs(np.diag(sigma2 * np.linalg.pinv(J.T @ J))))
    else:
        se = np.full(len(names), float("nan"))
    se = [float("nan") if k in at_bound else float(e) for k, e in zip(names, se)]
    log_y = np.log(y)
    return Fit(
        dict(zip(names, map(float, coef))),
        dict(zip(names, se)),
        _r2(log_y, log_y + sol.fun),
        len(y),
        at_bound,
    )


def evaluate(fit: Fit, terms: dict[str, np.ndarray]) -> np.ndarray:
    """Σ_k c_k · terms[k] for a `nonneg_sum` fit (to draw the fitted curve)."""
    return sum(fit.params[k] * np.asarray(t, dtype=float) for k, t in terms.items())


def zero_crossing(x, y) -> float:
    """First x where the piecewise-linear interpolant of y(x) crosses zero (NaN if it never does)."""
    x, y = _clean(x, y)
    order = np.argsort(x)
    x, y = x[order], y[order]
    for i in range(len(x) - 1):
        if y[i] == 0:
            return float(x[i])
        if y[i] * y[i + 1] < 0:
            return float(x[i] - y[i] * (x[i + 1] - x[i]) / (y[i + 1] - y[i]))
    return float(x[-1]) if len(x) and y[-1] == 0 else float("nan")


def seed_bootstrap(
    table, statistic, n_boot: int = 200, rng_seed: int = 0, column: str = "seed"
) -> np.ndarray:
    """`statistic(resampled)` over `n_boot` resamples of the seeds of `table` (with replacement).

    A resample draws as many seeds as the table has and relabels the copies 0, 1, …, so a statistic
    that groups or aggregates by seed sees each copy as its own seed.  The SD of the returned values
    is the seed-bootstrap uncertainty of `statistic(table)` (NaN replicates are kept as NaN).  A
    statistic that returns k numbers (several claims read one costly summary) gives [n_boot, k].
    """
    codes, seeds = pd.factorize(table[column], sort=True)
    rows_of = [np.flatnonzero(codes == k) for k in range(len(seeds))]  # each seed's rows, in table order
    rng = np.random.default_rng(rng_seed)
    values = []
    for _ in range(n_boot):
        picks = rng.choice(len(seeds), size=len(seeds), replace=True)
        # one positional take per resample (a concat of per-seed copies cost most of the claims' time)
        sample = table.iloc[np.concatenate([rows_of[k] for k in picks])].reset_index(drop=True)
        sample[column] = np.repeat(np.arange(len(picks)), [len(rows_of[k]) for k in picks])
        values.append(np.asarray(statistic(sample), dtype=float))
    return np.asarray(values)


def seed_sd(table, statistic, n_boot: int = 100):
    """Seed-bootstrap SD of `statistic(table)`: NaN (an inconclusive claim) with fewer than two seeds.
    For a statistic of k numbers, the k SDs (as a list) from the same resamples."""
    if len(table) == 0 or table["seed"].nunique() < 2:
        return float("nan")
    values = seed_bootstrap(table, statistic, n_boot=n_boot)
    return bootstrap_sd(values) if values.ndim == 1 else [bootstrap_sd(v) for v in values.T]


def bootstrap_sd(values: np.ndarray) -> float:
    """SD of bootstrap replicates; NaN if more than 5 % of them could not be computed."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    if len(finite) < 0.95 * len(values) or len(finite) < 2:
        return float("nan")
    return float(np.std(finite, ddof=1))


def wilson(k: int, n: int, z: float = 1.0) -> tuple[float, float]:
    """Wilson score interval (low, high) at z standard errors of a share k/n of independent draws — the
    interval for a share read with no spread of its own: k = 0 or k = n still has width ([0, z²/(n + z²)]
    at k = 0), where the normal interval collapses to a point."""
    if n <= 0:
        return float("nan"), float("nan")
    p, q = k / n, z * z / n
    centre, half = (p + q / 2) / (1 + q), z * np.sqrt(p * (1 - p) / n + q / (4 * n)) / (1 + q)
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_u(k: int, n: int, z: float = 1.0) -> float:
    """u (one standard error) of a share k/n of independent draws: the Wilson interval's half-width at z
    over z (z = 1: the 1-SE interval; z = 1.96: the 95 % interval's half-width per SE, a little wider)."""
    low, high = wilson(k, n, z)
    return (high - low) / (2 * z)
