"""One-pass SGD as the exact Markov chain of its overlaps: one step costs O(k³), k = p + p*, whatever N.

State. V = [W; W*] (k × N, student rows first) and M = V Vᵀ/N = [[Q, ρ], [ρᵀ, T]] (k × k, float64).

Step. With a fresh x ~ N(0, I_N), fields z = V x/√N = (λ, ν) and label noise √Δ ξ, SGD on ½ err² with
err = a Σλ² − a* Σν² − √Δ ξ moves only the student rows, by a rank-one term along x:
    W' = W + u xᵀ/√N,   u = −2 a η err λ   (p-vector; W* is fixed)
so, with d = [u; 0] (k-vector),
    M' = M + (d zᵀ + z dᵀ)/N + d dᵀ |x|²/N²,   i.e.
    Q' = Q + (c λλᵀ)(2/N + c |x|²/N²),   ρ' = ρ + c λνᵀ/N,   T' = T,   c = −2 a η err.
This holds for any readouts (a, a*): both `model.READOUTS` only change the numbers a, a*. Label noise
enters only through err (ξ is independent of x and of the past). The d dᵀ |x|²/N² term is the O(η²)
one: in expectation it is 4a²η² E[err² λλᵀ] |x|²/N² per step, i.e. the ODE's 4a²η²Φ per unit of
α = steps/N once |x|²/N → 1 (science §3.1); the chain keeps its exact finite-N value.

Law of (z, |x|²) given the past. x is independent of V (which depends on earlier inputs only), so
z ~ N(0, M), and splitting x into its projection on the row space of V (rank r) and the rest,
    |x|² = zᵀM⁺z + χ²_{N−r},  the χ² independent of z.
Rank-free form used here: for ANY k × k matrix A with A Aᵀ = M and g ~ N(0, I_k),
    (z, |x|²) =_d (A g, |g|² + χ²_{N−k}),   χ² independent of g   (needs N ≥ k).
Proof: P = Aᵀ M⁺ A is the orthogonal projector on range(Aᵀ) (rank r), z = A g = A P g, so zᵀM⁺z = gᵀPg,
and |g|² = gᵀPg + gᵀ(I−P)g with gᵀ(I−P)g ~ χ²_{k−r} independent of P g; χ²_{k−r} + χ²_{N−k} = χ²_{N−r}.
Equivalently: V = √N A E for a k-frame E (orthonormal rows) containing the row space, g = E x.
So (M_t) is a Markov chain with exactly the law of SGD's overlaps at finite N (jointly in t), a
singular or nearly singular M needs no rank decision and no pseudo-inverse, only a square root. The
one used is teacher-first: with At = chol(T) (fixed, T ≻ 0), B = ρ At⁻ᵀ and C Cᵀ = Q − B Bᵀ,
    A = [[C, B], [0, At]]   gives   A Aᵀ = [[C Cᵀ + B Bᵀ, B Atᵀ], [At Bᵀ, T]] = M,
so a step factors only the p × p Schur complement. C is its plain Cholesky factor while every pivot
exceeds CHOLESKY_TOL of Q's diagonal (Cholesky is backward stable whenever it completes), else a
diagonally pivoted Cholesky factor that stops when the largest remaining pivot is ≤ PIVOT_TOL·max diag M.
The dropped Schur complement is PSD with diagonal ≤ that bound, hence entrywise ≤ it, so A Aᵀ = M up to
a relative 1e-14 (backward stable). M near the solution manifold (Q_⊥ = Q − ρT⁻¹ρᵀ → 0) and matched
inits with dependent rows are such cases. M itself is updated only through the exact formula above,
never re-formed from A.

Initial law (`initial_overlaps`). Independent Gaussian G_s (p × N) and G_t (p* × N) give [G_s; G_t] =
L O with L the Bartlett factor of a Wishart(N, I_k) matrix (L_ii² ~ χ²_{N−i}, i = 0..k−1, L_ij ~ N(0,1)
for i > j) and O a k-frame; the weights are row-transforms of G: Gaussian student σ0 G_s; orthonormal
rows (model._orthonormal_rows: QR with positive diagonal) √N C⁻¹G with C = chol(G Gᵀ), the student's
C being L's leading p × p block; teacher rows then scaled by √diag(model.teacher_T). With F = [those
transforms applied to L's rows], M0 = F Fᵀ/N has exactly the law of model.overlaps of
model.student_weights / teacher_weights, at O(k³) cost. `init="idealised"` is model.idealised_init
(same numbers as the ODE's idealised init) with T = teacher_T; for the overlaps of given weights
(the full SGD's own start), use `overlaps_of`.

Randomness. Each seed has its own PCG64 streams, seeded by mfx.runtime.stream_seed(seed, "quadratic",
"chain", stream), drawn in fixed chunks of CHUNK steps, so seed s follows the same trajectory alone or
in any batch, whatever the logging grid and the thread count; a seed that has finished draws no more.
The step loop is compiled with numba: a step is a few hundred flops per seed, and the same step batched
over seeds in numpy or torch ran 30–90× slower (per-call overhead). The factorisation is a chain of
dependent square roots and divisions, so `_advance` steps up to LANES seeds at once with the seed index
innermost, compiled for each (p, p + p*) so that the loops over rows unroll and the loop over seeds
vectorises (VECTOR seeds per AVX-512 instruction, each seed's IEEE operations as with scalar lanes: the
trajectories did not change, bit for bit): ≈ 15 ns per seed-step at p = p* = 3, against 70 with scalar
lanes and 160 one seed at a time. Seed groups run in threads (`simulate`'s `threads`, numba without
the GIL). The draws are compiled too (`_draw`: numpy's own numbers, bit for bit, ≈ 29 instead of 84 ns
per seed-step at k = 6), so they are now ≈ 2/3 of the cost (benchmarks/bench_quadratic.py: the chain
≈ 1.5× its draws at p = p* = 2, ≈ 1.7× at 3; 2.8× and 3.6× with scalar lanes).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import torch
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array
from numba.np.random._constants import fi_double, ki_double, wi_double, ziggurat_nor_inv_r, ziggurat_nor_r

from mfx import runtime
from mfx.quadratic import model

INITS = ("gaussian", "orthogonal", "idealised")  # student kinds of model.STUDENTS, or the N → ∞ init
CHUNK = 2048  # steps of random numbers drawn per seed at a time
LANES = 16  # most seeds `_advance` steps together …
VECTOR = 8  # … in vectors of this many (float64 in 512 bits): groups are padded to a multiple
PIVOT_TOL = 1e-14  # pivoted Cholesky stops at pivots ≤ PIVOT_TOL · max diag M
CHOLESKY_TOL = 1e-8  # plain Cholesky gives way to the pivoted one at pivots ≤ CHOLESKY_TOL · their diagonal


def _rng(seed: int, *stream: object) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(runtime.stream_seed(seed, "quadratic", "chain", *stream)))


def _rng_state(seed: int, stream: str) -> np.ndarray:
    """The PCG64 state of `_rng(seed, stream)` as uint64 (state high, low, increment high, low)."""
    state = _rng(seed, stream).bit_generator.state["state"]
    return np.array(
        [v >> s & (2**64 - 1) for v in (state["state"], state["inc"]) for s in (64, 0)], np.uint64
    )


# The chain's draws, compiled: numpy's PCG64 bit generator, ziggurat normal and Marsaglia–Tsang gamma
# (numpy/random/src/distributions, as numba.np.random ports them, with numpy's ziggurat tables), inlined
# with the generator state in registers. The numbers are bit for bit those of numpy's
# Generator(PCG64(seed)).standard_normal / .chisquare, which the chain drew before (tests/test_bench.py,
# tests/quadratic/test_chain.py): numpy's own calls cost ≈ 10 ns a normal and 20 ns a χ² (a function
# pointer per 64 bits), ≈ 3 and ≈ 6 here.
_U0, _U1, _U8, _U11, _U58, _U63, _U64 = (np.uint64(v) for v in (0, 1, 8, 11, 58, 63, 64))
_MASK8, _MASK52 = np.uint64(0xFF), np.uint64(0x000FFFFFFFFFFFFF)
_MULT_HI, _MULT_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)  # PCG's 128-bit LCG
_TO_DOUBLE = 1.0 / 9007199254740992.0  # 2⁻⁵³: numpy's next_double from the top 53 bits


@intrinsic
def _umulhi(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64."""

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(product, ir.Constant(i128, 64)), ir.IntType(64))

    return numba.types.uint64(numba.types.uint64, numba.types.uint64), codegen


@numba.njit(inline="always")
def _pcg64(st):
    """numpy's pcg64_next64 (128-bit LCG step, XSL-RR output): (64 random bits, next state)."""
    hi, lo, inc_hi, inc_lo = st
    product_lo = lo * _MULT_LO
    new_lo = product_lo + inc_lo
    new_hi = (
        _umulhi(lo, _MULT_LO) + lo * _MULT_HI + hi * _MULT_LO + inc_hi + (_U1 if new_lo < product_lo else _U0)
    )
    x, rot = new_hi ^ new_lo, new_hi >> _U58
    return (x >> rot) | (x << ((_U64 - rot) & _U63)), (new_hi, new_lo, inc_hi, inc_lo)


@numba.njit(inline="always")
def _uniform(st):
    r, st = _pcg64(st)
    return (r >> _U11) * _TO_DOUBLE, st


@numba.njit(inline="always")
def _normal(st):
    """numpy's random_standard_normal (256-layer ziggurat, exponential tail)."""
    while True:
        r, st = _pcg64(st)
        idx = r & _MASK8
        r >>= _U8
        rabs = (r >> _U1) & _MASK52
        x = rabs * wi_double[idx]
        if r & _U1:
            x = -x
        if rabs < ki_double[idx]:
            return x, st
        if idx == 0:
            while True:
                u, st = _uniform(st)
                xx = -ziggurat_nor_inv_r * np.log1p(-u)
                u, st = _uniform(st)
                yy = -np.log1p(-u)
                if yy + yy > xx * xx:
                    return (-(ziggurat_nor_r + xx) if (rabs >> _U8) & _U1 else ziggurat_nor_r + xx), st
        u, st = _uniform(st)
        if (fi_double[idx - 1] - fi_double[idx]) * u + fi_double[idx] < np.exp(-0.5 * x * x):
            return x, st


@numba.njit(inline="always")
def _gamma(st, shape):
    """numpy's random_standard_gamma for shape ≥ 1 (Marsaglia–Tsang)."""
    b = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9 * b)
    while True:
        while True:
            X, st = _normal(st)
            V = 1.0 + c * X
            if V > 0.0:
                break
        V = V * V * V
        U, st = _uniform(st)
        if U < 1.0 - 0.0331 * (X * X) * (X * X):
            return b * V, st
        if np.log(U) < 0.5 * X * X + b * (1.0 - V + np.log(V)):
            return b * V, st


@numba.njit(cache=True, nogil=True)
def _draw(state, g, chi2, noise, df, noise_scale):
    """One seed's chunk: g [CHUNK, k] normals from stream 0, chi2 [CHUNK] ~ χ²_df from stream 1 (left
    alone when df = 0) and noise [CHUNK or 0] = noise_scale · normals from stream 2, as numpy's
    standard_normal(out=g), chisquare(df, CHUNK) and standard_normal(out=noise) · noise_scale would;
    state [3, 4] (`_rng_state` per stream) is advanced in place."""
    st = (state[0, 0], state[0, 1], state[0, 2], state[0, 3])
    for t in range(g.shape[0]):
        for i in range(g.shape[1]):
            g[t, i], st = _normal(st)
    state[0, 0], state[0, 1], state[0, 2], state[0, 3] = st
    if df > 0:
        st = (state[1, 0], state[1, 1], state[1, 2], state[1, 3])
        for t in range(chi2.shape[0]):
            x, st = _gamma(st, df / 2.0)
            chi2[t] = 2.0 * x
        state[1, 0], state[1, 1], state[1, 2], state[1, 3] = st
    st = (state[2, 0], state[2, 1], state[2, 2], state[2, 3])
    for t in range(noise.shape[0]):
        x, st = _normal(st)
        noise[t] = x * noise_scale
    state[2, 0], state[2, 1], state[2, 2], state[2, 3] = st


def overlaps_of(W: torch.Tensor, W_star: torch.Tensor) -> torch.Tensor:
    """M = [W; W*][W; W*]ᵀ/N [S, p+p*, p+p*] (float64, CPU) from W [S, p, N] and W* [S, p*, N]."""
    V = torch.cat([W, W_star], dim=1).double().cpu()
    return torch.bmm(V, V.transpose(1, 2)) / V.shape[-1]


def _orthonormal_transform(rows: np.ndarray, N: int) -> np.ndarray:
    """Frame coordinates of √N · orthonormalised rows: √N C⁻¹ rows with C = chol(rows rowsᵀ)."""
    C = np.linalg.cholesky(rows @ rows.T)
    return np.sqrt(N) * np.linalg.solve(C, rows)


def _bartlett(rng: np.random.Generator, k: int, N: int) -> np.ndarray:
    """Lower-triangular L with L Lᵀ ~ Wishart(N, I_k)."""
    L = np.zeros((k, k))
    for i in range(k):
        L[i, i] = np.sqrt(rng.chisquare(N - i))
        L[i, :i] = rng.standard_normal(i)
    return L


def initial_overlaps(
    seeds,
    p: int,
    p_star: int,
    N: int,
    *,
    teacher: str = "orthonormal",
    init: str = "gaussian",
    dtype: torch.dtype = torch.float64,
    sigma0: float = 1.0,
    anisotropy: float = 0.0,
    rho0_scale: float = 1.0,
) -> torch.Tensor:
    """M0 [S, p+p*, p+p*] with the exact law of [W0; W*][W0; W*]ᵀ/N at initialisation.

    teacher: model.TEACHERS ("orthonormal": T = teacher_T exactly; "gaussian": i.i.d. N(0, 1) rows).
    init: "gaussian" | "orthogonal" (the student kinds of model.student_weights, scale sigma0) or
    "idealised" (model.idealised_init: Q0 = σ0² I, ρ0 = σ0 G/√N, T = teacher_T; the teacher kind is
    then irrelevant). anisotropy: model.teacher_T's κ (rows of W* scaled by √diag T). rho0_scale: as
    model.student_weights (the students' Gaussian rows' part in the teacher's span × r, in frame
    coordinates: the frame is orthonormal, so the projection is the one in R^N). Needs N ≥ p + p*.
    """
    k = p + p_star
    if teacher not in model.TEACHERS:
        raise ValueError(f"teacher must be one of {model.TEACHERS} (got {teacher!r})")
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS} (got {init!r})")
    if N < k:
        raise ValueError(f"the overlap chain needs N ≥ p + p* (got N={N}, p+p*={k})")
    T = model.teacher_T(p_star, anisotropy)
    if init == "idealised":
        rho0, Q0 = model.idealised_init(p, p_star, N, seeds, sigma0, rho0_scale)
        M = np.zeros((len(seeds), k, k))
        M[:, :p, :p], M[:, :p, p:], M[:, p:, :p], M[:, p:, p:] = Q0, rho0, rho0.transpose(0, 2, 1), T
        if np.any(np.linalg.eigvalsh(M)[:, 0] < 0):
            raise ValueError(f"idealised init at N={N} is not a Gram matrix (|ρ0| > σ0); use a larger N")
        return torch.from_numpy(M).to(dtype)
    t_scale = np.sqrt(np.diag(T))[:, None]
    Ms = []
    for s in seeds:
        L = _bartlett(_rng(s, "init"), k, N)
        Ls, Lt = L[:p], L[p:]
        if rho0_scale != 1.0:
            Ls = Ls - (1.0 - rho0_scale) * np.linalg.solve(Lt @ Lt.T, Lt @ Ls.T).T @ Lt
        F = np.empty((k, k))
        F[:p] = sigma0 * (_orthonormal_transform(Ls, N) if init == "orthogonal" else Ls)
        F[p:] = t_scale * (_orthonormal_transform(L[p:], N) if teacher == "orthonormal" else L[p:])
        Ms.append(F @ F.T / N)
    return torch.from_numpy(np.stack(Ms)).to(dtype)


@numba.njit(cache=True)
def _teacher_root(M, p, At, At_inv):
    """At = chol(T) and At⁻¹ (both lower) for the fixed teacher block T = M[p:, p:]; False unless T ≻ 0."""
    r = M.shape[0] - p
    if not _cholesky(M[p:, p:], M[p:, p:], At):
        return False
    for j in range(r):  # forward substitution, column j of At⁻¹
        for i in range(r):
            acc = 1.0 if i == j else 0.0
            for c in range(i):
                acc -= At[i, c] * At_inv[c, j]
            At_inv[i, j] = acc / At[i, i]
    return True


@numba.njit(cache=True)
def _factor(M, p, At, At_inv, A, S, R, used):
    """Fill the student rows of A = [[C, B], [0, At]] so that A Aᵀ = M (module docstring): B = ρ At⁻ᵀ,
    C C ᵀ = S = Q − B Bᵀ (plain Cholesky while every pivot exceeds CHOLESKY_TOL of Q's diagonal, else
    the pivoted one). A's teacher rows [0, At] are set once per seed by the caller."""
    k = M.shape[0]
    r = k - p
    for i in range(p):
        for j in range(r):
            acc = 0.0
            for c in range(j + 1):
                acc += M[i, p + c] * At_inv[j, c]
            A[i, p + j] = acc
    for i in range(p):
        for j in range(i + 1):
            acc = M[i, j]
            for c in range(r):
                acc -= A[i, p + c] * A[j, p + c]
            S[i, j] = acc
            S[j, i] = acc
    C = A[:p, :p]
    if not _cholesky(S, M, C):
        scale = 0.0
        for i in range(k):
            scale = max(scale, M[i, i])
        _pivoted_cholesky(S, C, R, used, PIVOT_TOL * scale)


@numba.njit(cache=True)
def _cholesky(S, D, C):
    """Lower-triangular C with C Cᵀ = S; False (C unusable) at a pivot ≤ CHOLESKY_TOL · D's diagonal."""
    n = S.shape[0]
    for j in range(n):
        d = S[j, j]
        for c in range(j):
            d -= C[j, c] * C[j, c]
        if not d > CHOLESKY_TOL * D[j, j]:
            return False
        root = np.sqrt(d)
        C[j, j] = root
        inv = 1.0 / root
        for i in range(j + 1, n):
            v = S[i, j]
            for c in range(j):
                v -= C[i, c] * C[j, c]
            C[i, j] = v * inv
        for i in range(j):
            C[i, j] = 0.0
    return True


@numba.njit(cache=True)
def _pivoted_cholesky(S, C, R, used, tol):
    """C with C Cᵀ = S up to the dropped Schur complement: Cholesky with diagonal pivoting on the work
    matrix R, stopped at pivots ≤ tol (the rest of C stays zero)."""
    n = S.shape[0]
    for i in range(n):
        used[i] = False
        for j in range(n):
            R[i, j] = S[i, j]
            C[i, j] = 0.0
    for col in range(n):
        piv, best = -1, tol
        for i in range(n):
            if not used[i] and R[i, i] > best:
                piv, best = i, R[i, i]
        if piv < 0:
            return
        used[piv] = True
        root = np.sqrt(best)
        C[piv, col] = root
        for i in range(n):
            if not used[i]:
                C[i, col] = R[i, piv] / root
        for i in range(n):
            if not used[i]:
                for j in range(n):
                    if not used[j]:
                        R[i, j] -= C[i, col] * C[j, col]


@numba.njit(cache=True)
def _fields(A, g, chi2, z):
    """z = A g and |x|² = |g|² + χ²_{N−k} (returned)."""
    k = A.shape[0]
    x2 = chi2
    for i in range(k):
        x2 += g[i] * g[i]
        acc = 0.0
        for j in range(k):
            acc += A[i, j] * g[j]
        z[i] = acc
    return x2


@numba.njit(cache=True)
def _update(M, z, x2, noise, p, a, a_star, eta, N):
    """One SGD step on M [k, k] in place, from the fields z [k], |x|² and the label noise √Δ ξ."""
    k = M.shape[0]
    err = -noise
    for i in range(p):
        err += a * z[i] * z[i]
    for m in range(p, k):
        err -= a_star * z[m] * z[m]
    c = -2.0 * a * eta * err
    q = c * (2.0 / N + c * x2 / (N * N))
    for i in range(p):
        for j in range(p):
            M[i, j] += q * z[i] * z[j]
        for m in range(p, k):
            d = c * z[i] * z[m] / N
            M[i, m] += d
            M[m, i] += d


@intrinsic
def _frame_array(typingctx, shape, dtype):
    """A C-contiguous array of the literal `shape` and `dtype` in the calling function's stack frame
    (zeroed once per call). Unlike np.empty's heap arrays, LLVM knows it aliases nothing else and knows
    its strides, so loops over its last axis vectorise without runtime overlap checks."""
    if not all(isinstance(d, numba.types.IntegerLiteral) for d in shape):
        return None
    dims = [d.literal_value for d in shape]
    array_type = numba.types.Array(dtype.dtype, len(dims), "C")

    def codegen(context, builder, signature, args):
        item = context.get_data_type(dtype.dtype)
        itemsize = context.get_abi_sizeof(item)
        data = cgutils.alloca_once(builder, item, size=int(np.prod(dims)))
        intp = context.get_value_type(numba.types.intp)
        strides = [itemsize * int(np.prod(dims[i + 1 :])) for i in range(len(dims))]
        array = make_array(array_type)(context, builder)
        populate_array(
            array, data, [intp(d) for d in dims], [intp(s) for s in strides], intp(itemsize), meminfo=None
        )
        return array._getvalue()

    return array_type(shape, dtype), codegen


@functools.cache
def _advance(p: int, k: int):
    """The chain's step loop for p student and k − p teacher rows (a compiled kernel per (p, k)):
    advance(M, G, chi2, noise, start, n, a, a_star, eta, N, alive) makes n chain steps for every seed s
    with alive[s], using draws G[s, start:start+n] (normals [.., k]), chi2[s, ...] (χ²_{N−k}) and
    noise[s, ...] (√Δ ξ; an empty last axis means Δ = 0). A seed whose M stops being finite is set to
    NaN and marked dead. Runs without the GIL (seed groups in threads).

    The arithmetic of `factor` + `_fields` + `_update` (to round-off: the error adds the teacher's fields
    first), on up to LANES seeds at once with the seed index innermost, in vectors of VECTOR seeds (groups
    padded to whole vectors; 8 to 64 lanes cost the same within 10 %): p and k are compile-time constants,
    so the loops over rows unroll and each step is three straight-line loops over the seeds (gather the
    draws; B, Sc = Q − B Bᵀ and plain Cholesky; fields and update), which LLVM's loop vectoriser takes
    because the seeds' working arrays live in the stack frame (`_frame_array`; as np.empty arrays they
    needed more runtime overlap checks than it allows) and the group's size is a runtime number (a loop
    over a constant 8 seeds unrolls into scalar code: numba leaves the SLP vectoriser off). Padding seeds step with eta = 0
    from M = I and are never written back. A seed whose plain Cholesky fails takes the scalar pivoted
    one. Within a call only the student rows of each seed's M are updated (ρᵀ is written back with
    them) and divergence is checked at the end."""
    r = k - p

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def advance(M, G, chi2, noise, start, n, a, a_star, eta, N, alive):
        with_noise = noise.shape[1] > 0
        Ml = _frame_array((k, k, LANES), np.float64)
        At, Ati = _frame_array((r, r, LANES), np.float64), _frame_array((r, r, LANES), np.float64)
        B, Sc = _frame_array((p, r, LANES), np.float64), _frame_array((p, p, LANES), np.float64)
        C, g = _frame_array((p, p, LANES), np.float64), _frame_array((k, LANES), np.float64)
        x2, err = _frame_array((LANES,), np.float64), _frame_array((LANES,), np.float64)
        et, ok = _frame_array((LANES,), np.float64), _frame_array((LANES,), np.bool_)
        lane = _frame_array((LANES,), np.int64)
        Mb, At1, Ati1 = np.empty((k, k)), np.empty((r, r)), np.empty((r, r))
        S1, C1, R1, used = np.empty((p, p)), np.empty((p, p)), np.empty((p, p)), np.empty(p, np.bool_)
        # the alive seeds, packed into groups: a finished seed frees its lane, so the cost follows the
        # seeds still running, not the slowest seed of each group
        idx = np.flatnonzero(alive)
        n_live = len(idx)
        for j0 in range(0, n_live, LANES):
            L = min(LANES, (n_live - j0 + VECTOR - 1) // VECTOR * VECTOR)  # padded to whole vectors
            for b in range(L):
                s = idx[min(j0 + b, n_live - 1)]
                live = j0 + b < n_live
                lane[b] = s
                et[b] = eta[s] if live else 0.0
                for i in range(k):
                    for j in range(k):
                        Mb[i, j] = M[s, i, j] if live else (1.0 if i == j else 0.0)
                        Ml[i, j, b] = Mb[i, j]
                _teacher_root(Mb, p, At1, Ati1)  # the teacher block is fixed (T ≻ 0 checked by simulate)
                At[:, :, b], Ati[:, :, b] = At1, Ati1
            for t in range(start, start + n):
                for b in range(L):
                    s = lane[b]
                    x2[b] = chi2[s, t]
                    err[b] = -noise[s, t] if with_noise else 0.0
                    for i in range(k):
                        g[i, b] = G[s, t, i]
                n_bad = 0
                for b in range(L):
                    # B = ρ At⁻ᵀ and the Schur complement Sc = Q − B Bᵀ (`_factor`)
                    for i in range(p):
                        for j in range(r):
                            acc = 0.0
                            for c in range(j + 1):
                                acc += Ml[i, p + c, b] * Ati[j, c, b]
                            B[i, j, b] = acc
                    for i in range(p):
                        for j in range(i + 1):
                            acc = Ml[i, j, b]
                            for c in range(r):
                                acc -= B[i, c, b] * B[j, c, b]
                            Sc[i, j, b] = acc
                            Sc[j, i, b] = acc
                    # C Cᵀ = Sc: plain Cholesky (`_cholesky`), flagged where a pivot is too small
                    good_all = True
                    for j in range(p):
                        acc = Sc[j, j, b]
                        for c in range(j):
                            acc -= C[j, c, b] * C[j, c, b]
                        good = acc > CHOLESKY_TOL * Ml[j, j, b]
                        good_all &= good
                        root = np.sqrt(acc if good else 1.0)
                        C[j, j, b] = root
                        inv = 1.0 / root
                        for i in range(j + 1, p):
                            acc = Sc[i, j, b]
                            for c in range(j):
                                acc -= C[i, c, b] * C[j, c, b]
                            C[i, j, b] = acc * inv
                        for i in range(j):
                            C[i, j, b] = 0.0
                    ok[b] = good_all
                    n_bad += 0 if good_all else 1
                if n_bad > 0:
                    for b in range(L):
                        if not ok[b]:
                            scale = 0.0
                            for i in range(k):
                                scale = max(scale, Ml[i, i, b])
                            S1[:, :] = Sc[:, :, b]
                            _pivoted_cholesky(S1, C1, R1, used, PIVOT_TOL * scale)
                            C[:, :, b] = C1
                for b in range(L):
                    # fields z = A g (A = [[C, B], [0, At]]), |x|² = |g|² + χ² and the error (`_fields`)
                    x2b = x2[b]
                    for i in range(k):
                        x2b += g[i, b] * g[i, b]
                    z = _frame_array((k,), np.float64)
                    e = err[b]
                    for m in range(r):
                        acc = 0.0
                        for c in range(m + 1):
                            acc += At[m, c, b] * g[p + c, b]
                        z[p + m] = acc
                        e -= a_star * acc * acc
                    for i in range(p):
                        acc = 0.0
                        for c in range(i + 1):
                            acc += C[i, c, b] * g[c, b]
                        for c in range(r):
                            acc += B[i, c, b] * g[p + c, b]
                        z[i] = acc
                        e += a * acc * acc
                    # M' = M + (d zᵀ + z dᵀ)/N + d dᵀ|x|²/N² on the student rows (`_update`)
                    c_b = -2.0 * a * et[b] * e
                    q = c_b * (2.0 / N + c_b * x2b / (N * N))
                    for i in range(p):
                        for j in range(p):
                            Ml[i, j, b] += q * z[i] * z[j]
                        for m in range(p, k):  # ρ only: its transpose is written back once, below
                            Ml[i, m, b] += c_b * z[i] * z[m] / N
            # a seed whose M stopped being finite ran on in NaN (no exception: error_model="numpy");
            # checking once per call, not per step, leaves every finite seed's numbers as they are
            for b in range(min(L, n_live - j0)):
                s = idx[j0 + b]
                finite = True
                for i in range(p):
                    for j in range(k):
                        finite = finite and np.isfinite(Ml[i, j, b])
                if not finite:
                    M[s] = np.nan
                    alive[s] = False
                    continue
                for i in range(p):
                    for j in range(k):
                        M[s, i, j] = Ml[i, j, b]
                    for m in range(p, k):
                        M[s, m, i] = Ml[i, m, b]

    return advance


def factor(M: np.ndarray, p: int) -> np.ndarray:
    """The square root A [k, k] (A Aᵀ = M) that the chain uses for one M [k, k] with p student rows."""
    M = np.ascontiguousarray(M, dtype=np.float64)
    k = M.shape[0]
    A, At_inv = np.zeros((k, k)), np.empty((k - p, k - p))
    if not _teacher_root(M, p, A[p:, p:], At_inv):
        raise ValueError("the teacher block of M is not positive definite")
    _factor(M, p, A[p:, p:], At_inv, A, np.empty((p, p)), np.empty((p, p)), np.empty(p, np.bool_))
    return A


def fields(M: np.ndarray, p: int, g: np.ndarray, chi2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The chain's sampler for one M [k, k]: (z [n, k], |x|² [n]) from g [n, k] ~ N(0, I) and
    chi2 [n] ~ χ²_{N−k}."""
    A = factor(M, p)
    z = np.empty_like(g, dtype=np.float64)
    x2 = np.array([_fields(A, g[i], float(chi2[i]), z[i]) for i in range(len(g))])
    return z, x2


def step(M: np.ndarray, z, x2: float, p: int, a: float, a_star: float, eta: float, N: int, noise=0.0):
    """One SGD step on M [k, k] (float64 numpy, in place) driven by given fields z [k] = [W; W*] x/√N,
    |x|² and label noise √Δ ξ: the chain's update, for feeding it the inputs of a full run."""
    _update(M, np.asarray(z, dtype=np.float64), float(x2), float(noise), p, a, a_star, float(eta), N)


class _Draws:
    """Per-seed random numbers in chunks of CHUNK steps: normals g [S, CHUNK, k], χ²_{N−k} [S, CHUNK] and
    label noise √Δ ξ [S, CHUNK] (empty when Δ = 0), each from its own generator per seed."""

    def __init__(self, seeds, k, N, Delta):
        self.df, self.noise_scale = float(N - k), Delta**0.5
        self.state = np.stack([np.stack([_rng_state(s, x) for x in ("g", "chi2", "xi")]) for s in seeds])
        S = len(seeds)
        self.g = np.empty((S, CHUNK, k))
        self.chi2 = np.zeros((S, CHUNK))
        self.noise = np.empty((S, CHUNK if Delta > 0 else 0))

    def refill(self, seeds: range):
        for i in seeds:
            _draw(self.state[i], self.g[i], self.chi2[i], self.noise[i], self.df, self.noise_scale)


def simulate(
    M0,
    p: int,
    N: int,
    seeds,
    a: float,
    a_star: float,
    eta,
    log_steps,
    Delta: float = 0.0,
    stop: Callable[[np.ndarray, np.ndarray], bool | np.ndarray] | None = None,
    threads: int | None = None,
) -> dict:
    """Run the overlap chain from M0 [S, p+p*, p+p*] and log (ρ, Q) at `log_steps`: sgd.simulate's contract.

    eta: a number or a tensor [S]. `log_steps` are increasing step counts (0 allowed); the run ends at the
    last one, or earlier at a logged step where `stop(rho [S,p,p*], Q [S,p,p])` returns True. `stop` may
    also return a mask [S]: those seeds are finished (not advanced any more, NaN in later logs) and the
    run ends when all are. Returns {"steps" [K], "rho" [K,S,p,p*], "Q" [K,S,p,p]} (float64 numpy); a
    diverged seed shows NaN. The teacher Gram T of each seed is M0[:, p:, p:] (fixed, must be ≻ 0).
    threads: seed groups run in parallel threads (default: torch's thread count, set by mfx.runtime);
    each seed's draws and steps are its own, so the numbers do not depend on it.
    """
    M = np.array(torch.as_tensor(M0).detach().cpu().double().numpy(), dtype=np.float64, order="C")
    S, k = M.shape[0], M.shape[1]
    if N < k:
        raise ValueError(f"the overlap chain needs N ≥ p + p* (got N={N}, p+p*={k})")
    if np.any(np.linalg.eigvalsh(M[:, p:, p:])[:, 0] <= 0):
        raise ValueError("the overlap chain needs a positive definite teacher Gram T")
    eta = np.ascontiguousarray(torch.as_tensor(eta, dtype=torch.float64).cpu().expand(S).numpy())
    alive = np.isfinite(M).all(axis=(1, 2))
    finished = np.zeros(S, dtype=bool)
    draws = _Draws(seeds, k, N, Delta)
    threads = max(1, min(threads or torch.get_num_threads(), S))
    groups = [range(S * i // threads, S * (i + 1) // threads) for i in range(threads)]
    log_steps = [int(t) for t in log_steps]
    steps, rhos, Qs = [], [], []
    t, pos = 0, CHUNK

    def work(group, pos, n):
        sl = slice(group.start, group.stop)
        run = alive[sl] & ~finished[sl]
        if pos == 0:  # only the seeds still running: a finished or diverged seed never steps again
            draws.refill(group.start + np.flatnonzero(run))
        _advance(p, k)(
            M[sl], draws.g[sl], draws.chi2[sl], draws.noise[sl], pos, n, a, a_star, eta[sl], N, run
        )
        alive[sl] &= run | finished[sl]

    bar = runtime.progress(total=log_steps[-1], desc="chain steps", unit="step", unit_scale=True)
    with ThreadPoolExecutor(threads) as pool:
        for i, target in enumerate(log_steps):
            while t < target:
                pos %= CHUNK
                n = min(target - t, CHUNK - pos)
                list(pool.map(work, groups, [pos] * threads, [n] * threads))
                pos += n
                t += n
                bar.update(n)
            rho, Q = M[:, :p, p:].copy(), M[:, :p, :p].copy()
            rho[finished], Q[finished] = np.nan, np.nan
            steps.append(t), rhos.append(rho), Qs.append(Q)
            done = False if stop is None else stop(rho, Q)
            if np.ndim(done):
                finished |= np.asarray(done, dtype=bool)
                done = bool(np.all(finished | ~alive))
            if i == len(log_steps) - 1 or done:
                break
    bar.close()
    return {"steps": np.array(steps), "rho": np.stack(rhos), "Q": np.stack(Qs)}
