"""Random draws of the ResNet experiments, one independent stream per (seed, role, sizes).

Within a rep (seed), the data (X, Y) and the fixed maps W_E, W_U are keyed by the seed only, so
every (L, M) of a sweep and the reference network share them: the fixed-D limit is conditional on
them (science §3).  For a D-sweep they are drawn once at D_max and each D takes the leading D
rows ("coupled randomness").  The unit parameters U, V are keyed by (seed, L, M, D, tag), so
each configuration, and the reference (tag "ref"), gets independent units.

Scalings (science §1.2, companion code): X, Y ~ N(0, 1); W_E ~ N(0, 1/d_in) so h_0 has Θ(1)
coordinates; W_U ~ N(0, d_out); u, v ~ N(0, D·I).
"""

from __future__ import annotations

import math

import torch

from mfx import runtime


def data(seeds, N, d_in, d_out, D, D_max=None, dtype=torch.float64, device="cpu"):
    """(X [S, N, d_in], Y [S, N, d_out], W_E [S, D, d_in], W_U [S, D, d_out]) for reps `seeds`."""
    D_max = D if D_max is None else D_max
    if D > D_max:
        raise ValueError(f"D = {D} > D_max = {D_max}")
    kw = {"dtype": dtype, "device": device}
    X = runtime.randn((N, d_in), seeds, "resnet", "X", N, d_in, **kw)
    Y = runtime.randn((N, d_out), seeds, "resnet", "Y", N, d_out, **kw)
    W_E = runtime.randn((D_max, d_in), seeds, "resnet", "W_E", D_max, d_in, **kw)[:, :D] / math.sqrt(d_in)
    W_U = runtime.randn((D_max, d_out), seeds, "resnet", "W_U", D_max, d_out, **kw)[:, :D] * math.sqrt(d_out)
    return X, Y, W_E.contiguous(), W_U.contiguous()


def units(seeds, L, M, D, tag="grid", paired=False, dtype=torch.float64, device="cpu"):
    """(U, V), each [S, L, M, D] with N(0, D) entries, independent for every (L, M, D, tag).

    paired=True (M even): unit j + M/2 copies u_j and negates v_j, so every block is exactly zero
    at initialisation (h_L = h_0: the "doubling trick" of lazy training), which removes the random
    initial residual of size alpha·√(D/(LM)) while keeping each unit's marginal law N(0, D·I).
    """
    kw = {"dtype": dtype, "device": device}
    half = M // 2 if paired else M
    if paired and M % 2:
        raise ValueError(f"paired units need an even M (got {M})")
    U = runtime.randn((L, half, D), seeds, "resnet", "U", L, M, D, tag, paired, **kw) * math.sqrt(D)
    V = runtime.randn((L, half, D), seeds, "resnet", "V", L, M, D, tag, paired, **kw) * math.sqrt(D)
    if paired:
        U, V = torch.cat([U, U], dim=2), torch.cat([V, -V], dim=2)
    return U, V
