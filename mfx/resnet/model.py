"""The 2LP ResNet of science/resnet.md §1.2, its hand-written backward pass and full-batch GD.

Shapes (S = reps/seeds, batched; every rep is an independent network with its own data):
    X    [S, N, d_in]    inputs            Y    [S, N, d_out]  targets
    W_E  [S, D, d_in]    fixed embedding   W_U  [S, D, d_out]  fixed readout
    U, V [S, L, M, D]    unit parameters u_{j,l}, v_{j,l} (init N(0, D·I): entry std √D)

Forward, with c = alpha/(L M):
    h_0 = W_E x,   P_l = <u_{j,l}, h_{l-1}>/D  [S, N, M],   h_l = h_{l-1} + c Σ_j v_{j,l} σ(P_{j,l}),
    f = W_Uᵀ h_L / D,   Loss = (1/(2 N d_out)) Σ_n ‖f(x_n) − y_n‖²  (per rep; reps are independent).
GD on U and V only (W_E, W_U fixed) with the mean-field rate eta·L·M·D/alpha² (science §2), so that
the per-unit step is O(eta) whatever L, M, D and alpha.

The layer dimension is unbound once and the layer loop works on views (no O(L²) indexing
backward); the backward pass is written by hand (as the author's Julia code does) and checked
against autograd and a plain per-rep loop in tests/resnet/test_model.py.  On the CPU, `forward`,
`gd_step` and so `train` run a compiled version of the same formulas when numba is installed (see
"Compiled CPU path" below; MFX_NUMBA=0 turns it off); CUDA and autograd use the torch code.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from dataclasses import dataclass

import numpy as np
import torch
from torch.autograd import forward_ad

SIGMAS = {
    # name: (σ(P), σ'(P) given P and A = σ(P))
    "tanh": (torch.tanh, lambda P, A: 1 - A * A),
    "relu": (torch.relu, lambda P, A: (P > 0).to(P.dtype)),
    "sin": (torch.sin, lambda P, A: torch.cos(P)),
}


@dataclass
class Cache:
    """What the backward pass needs from the forward pass: per layer l = 1..L, h_{l-1}, P_l, σ(P_l)."""

    h: list[torch.Tensor]  # L × [S, N, D]
    P: list[torch.Tensor]  # L × [S, N, M]
    A: list[torch.Tensor]  # L × [S, N, M]
    h_L: torch.Tensor  # [S, N, D]
    sigma: str


def forward(W_E, W_U, U, V, X, alpha, sigma="tanh"):
    """Outputs f [S, N, d_out], final features h_L [S, N, D] and the Cache for `backward`/`jvp`."""
    if _fast_ok(W_E, W_U, U, V, X):
        return _forward_fast(W_E, W_U, U, V, X, alpha, sigma)
    _, L, M, D = U.shape
    act = SIGMAS[sigma][0]
    c = alpha / (L * M)
    h = torch.bmm(X, W_E.transpose(1, 2))
    hs, Ps, As = [], [], []
    for U_l, V_l in zip(U.unbind(1), V.unbind(1)):
        P = torch.bmm(h, U_l.transpose(1, 2)) / D
        A = act(P)
        hs.append(h)
        Ps.append(P)
        As.append(A)
        h = torch.baddbmm(h, A, V_l, alpha=c)
    f = torch.bmm(h, W_U) / D
    return f, h, Cache(hs, Ps, As, h, sigma)


def loss(f, Y):
    """Per-rep loss (1/(2 N d_out)) Σ ‖f − y‖², shape [S]."""
    N, d_out = Y.shape[-2:]
    return 0.5 * ((f - Y) ** 2).sum(dim=(-2, -1)) / (N * d_out)


def output_grad(f, Y, W_U):
    """∂Loss/∂h_L = (f − Y) W_Uᵀ / (D N d_out), shape [S, N, D]."""
    D = W_U.shape[1]
    N, d_out = Y.shape[-2:]
    return torch.bmm(f - Y, W_U.transpose(1, 2)) / (D * N * d_out)


def backward(cache: Cache, U, V, G_L, alpha):
    """Gradients (∂/∂U, ∂/∂V) [S, L, M, D] of the scalar Σ_s <G_L[s], h_L[s]> (G_L = ∂Loss/∂h_L)."""
    _, L, M, D = U.shape
    dsig = SIGMAS[cache.sigma][1]
    c = alpha / (L * M)
    Us, Vs = U.unbind(1), V.unbind(1)
    gU, gV = [None] * L, [None] * L
    G = G_L
    for l in range(L - 1, -1, -1):
        A = cache.A[l]
        gV[l] = torch.bmm(A.transpose(1, 2), G) * c
        dP = torch.bmm(G, Vs[l].transpose(1, 2)) * dsig(cache.P[l], A) * c  # ∂/∂P_l, [S, N, M]
        gU[l] = torch.bmm(dP.transpose(1, 2), cache.h[l]) / D
        G = torch.baddbmm(G, dP, Us[l], alpha=1 / D)
    return torch.stack(gU, 1), torch.stack(gV, 1)


def jvp(cache: Cache, W_U, U, V, dU, dV, alpha):
    """Directional derivative of f at (U, V) along (dU, dV): [S, N, d_out] (forward-mode, by hand)."""
    _, L, M, D = U.shape
    dsig = SIGMAS[cache.sigma][1]
    c = alpha / (L * M)
    dh = torch.zeros_like(cache.h[0])
    for l, (U_l, V_l, dU_l, dV_l) in enumerate(zip(U.unbind(1), V.unbind(1), dU.unbind(1), dV.unbind(1))):
        dP = (torch.bmm(dh, U_l.transpose(1, 2)) + torch.bmm(cache.h[l], dU_l.transpose(1, 2))) / D
        dA = dsig(cache.P[l], cache.A[l]) * dP
        dh = dh + c * (torch.bmm(dA, V_l) + torch.bmm(cache.A[l], dV_l))
    return torch.bmm(dh, W_U) / D


def learning_rate(L, M, D, alpha, eta):
    """Raw GD rate on U and V: eta·L·M·D/alpha² (science §2)."""
    return eta * L * M * D / alpha**2


def gd_step(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, sigma="tanh"):
    """One full-batch GD step on (U, V) in place at rate eta·L·M·D/alpha²; returns f, h_L before it."""
    if _fast_ok(W_E, W_U, U, V, X, Y) and U.is_contiguous() and V.is_contiguous():
        return _gd_step_fast(W_E, W_U, U, V, X, Y, alpha, eta, sigma)
    _, L, M, D = U.shape
    f, h_L, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    gU, gV = backward(cache, U, V, output_grad(f, Y, W_U), alpha)
    lr = learning_rate(L, M, D, alpha, eta)
    U.sub_(gU, alpha=lr)
    V.sub_(gV, alpha=lr)
    return f, h_L


def train(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K full-batch GD steps on (U, V) from the given initialisation (inputs are not modified).

    Returns a dict with
        f     [S, K+1, N, d_out]  outputs at steps k = 0..K (k = 0: initialisation)
        h_L   [S, K+1, N, D]      final-layer features at every step
        loss  [S, K+1]
        U, V  [S, L, M, D]        the parameters after K steps
    A diverging run is not an error: its values become inf/NaN and are returned as such.
    """
    U, V = U.clone(), V.clone()
    fs, hs = [], []
    for _ in range(K):
        f, h_L = gd_step(W_E, W_U, U, V, X, Y, alpha, eta, sigma)
        fs.append(f)
        hs.append(h_L)
    f, h_L, _ = forward(W_E, W_U, U, V, X, alpha, sigma)
    fs.append(f)
    hs.append(h_L)
    f = torch.stack(fs, 1)
    return {"f": f, "h_L": torch.stack(hs, 1), "loss": loss(f, Y[:, None]), "U": U, "V": V}


def train_tangent(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K GD steps (same rate as `train`) on the tangent model f_lin(θ) = f(θ_0) + J(θ_0)(θ − θ_0).

    This is the network linearised around its initialisation (the "neural tangent" dynamics of
    the lazy regime).  Returns {"f": [S, K+1, N, d_out]}, its outputs at steps 0..K.
    """
    _, L, M, D = U.shape
    lr = learning_rate(L, M, D, alpha, eta)
    f0, _, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    dU, dV = torch.zeros_like(U), torch.zeros_like(V)
    fs = [f0]
    for _ in range(K):
        gU, gV = backward(cache, U, V, output_grad(fs[-1], Y, W_U), alpha)
        dU.sub_(gU, alpha=lr)
        dV.sub_(gV, alpha=lr)
        fs.append(f0 + jvp(cache, W_U, U, V, dU, dV, alpha))
    return {"f": torch.stack(fs, 1)}


def local_updates(W_E, W_U, U0, U, V, X, alpha=1.0, sigma="tanh"):
    """Local feature updates <u_{j,l} − u⁰_{j,l}, h_{l-1}>/D at parameters (U, V): [S, L, N, M].

    The change of each unit's pre-activation caused by its own update (science §4.1), evaluated
    on the current features h_{l-1} of the network (U, V).
    """
    D = U.shape[-1]
    _, _, cache = forward(W_E, W_U, U, V, X, alpha, sigma)
    dU = (U - U0).unbind(1)
    return torch.stack([torch.bmm(h, dU_l.transpose(1, 2)) / D for h, dU_l in zip(cache.h, dU)], 1)


def forward_blockwise_linear(W_E, W_U, U0, V0, dU, dV, X, alpha, sigma="tanh"):
    """Outputs [S, N, d_out] of the network whose blocks are linearised in their own parameters.

    Block l is replaced by its first-order expansion around (U0, V0) at the *current* input h:
        h_l = h + c [σ(P0) (V0 + dV_l) + (σ'(P0) ⊙ <dU_l, h>/D) V0],   P0 = <U0_l, h>/D,
    so the model is linear in (dU, dV) layer by layer but h still flows nonlinearly through depth:
    the "neural tangent ODE" that the lazy (alpha → ∞) regime converges to (science §1.1).  With
    L = 1 it is exactly the tangent model f(θ0) + J(θ0)(θ − θ0).  Differentiable by autograd.
    dU, dV: tensors [S, L, M, D] or sequences of L per-layer tensors [S, M, D] (train_blockwise_linear).
    """
    _, L, M, D = U0.shape
    act, dact = SIGMAS[sigma]
    c = alpha / (L * M)
    h = torch.bmm(X, W_E.transpose(1, 2))
    layers = lambda W: W.unbind(1) if torch.is_tensor(W) else W
    for U_l, V_l, dU_l, dV_l in zip(U0.unbind(1), V0.unbind(1), layers(dU), layers(dV)):
        P0 = torch.bmm(h, U_l.transpose(1, 2)) / D
        A0 = act(P0)
        Q = torch.bmm(h, dU_l.transpose(1, 2)) / D
        h = h + c * (torch.bmm(A0, V_l + dV_l) + torch.bmm(dact(P0, A0) * Q, V_l))
    return torch.bmm(h, W_U) / D


def train_blockwise_linear(W_E, W_U, U, V, X, Y, alpha=1.0, eta=1.0, K=15, sigma="tanh"):
    """K GD steps (rate of `train`) on the blockwise-linearised network; {"f": [S, K+1, N, d_out]}."""
    _, L, M, D = U.shape
    lr = learning_rate(L, M, D, alpha, eta)
    # one leaf per layer: autograd then hands back each layer's gradient as it is, where leaves
    # [S, L, M, D] made it stack them every step (a copy of the whole parameter set: the 256 × 256
    # tangent-limit reference, 8 reps, K = 15, took 8.1 s CPU, now 6.6, medians of 3); same bits
    dU = [torch.zeros_like(U_l, requires_grad=True) for U_l in U.unbind(1)]
    dV = [torch.zeros_like(V_l, requires_grad=True) for V_l in V.unbind(1)]
    fs = []
    for k in range(K + 1):
        f = forward_blockwise_linear(W_E, W_U, U, V, dU, dV, X, alpha, sigma)
        fs.append(f.detach())
        if k == K:
            break
        grads = torch.autograd.grad(loss(f, Y).sum(), (*dU, *dV))
        with torch.no_grad():
            for w, g in zip((*dU, *dV), grads):
                w.sub_(g, alpha=lr)
    return {"f": torch.stack(fs, 1)}


# ---------------------------------------------------------------------------------------------
# Compiled CPU path (numba, optional).  At the sizes of the experiments (N = 10, M = D = 16) one
# torch op on the rep batch costs 5–20 µs, so the ~13 ops per layer of the torch path above are
# dispatch-bound.  Here each layer of the forward pass is one compiled call plus one vectorised
# numpy σ over all reps (numpy's SIMD tanh is ~10× libm's, so σ stays outside the compiled code),
# and the whole backward pass, with the update of each layer's U, V in place as soon as its
# gradient is known, is one compiled call; every small product is one BLAS gemm (~0.15 µs).
# The formulas are those of the torch path.  Only rounding differs: the summation order inside
# the products, and 1/D, c and the rate folded into the weights or the update (exact when D is a
# power of two); float64 results agree with the torch path to ~1e-15 relative.  Used for CPU
# tensors that need no autograd; everything else (CUDA, autograd, numba absent) takes the torch
# path.
# ---------------------------------------------------------------------------------------------

_numba = importlib.import_module("numba") if importlib.util.find_spec("numba") else None

# False forces the torch path (tests, benchmarks; MFX_NUMBA=0 in the environment: today's torch
# numerics bit for bit, e.g. to compare tables made before the compiled path existed)
FAST = _numba is not None and os.environ.get("MFX_NUMBA", "1") != "0"
_NP_ACT = {"tanh": np.tanh, "relu": lambda P, out: np.maximum(P, 0, out=out), "sin": np.sin}
_KIND = {"tanh": 0, "relu": 1, "sin": 2}

if _numba is not None:
    _jit = _numba.njit(cache=True, nogil=True, error_model="numpy")

    @_jit
    def _transpose(b, k, t):  # t = k bᵀ
        for i in range(b.shape[0]):
            for j in range(b.shape[1]):
                t[j, i] = k * b[i, j]

    @_jit
    def _forward_layer(H, A, P_l, U, V, l, scal):
        """h_l = h_{l-1} + c σ(P_{l-1}) V_{l-1} (if l ≥ 1), then P_l = h_l (U_l/D)ᵀ (if l < L).

        H [L+1, S, N, D], A [L, S, N, M] (layer-major), P_l [S, N, M], U, V [S, L, M, D];
        scal: `_scalars`."""
        S, L, M = U.shape[0], U.shape[1], U.shape[2]
        N, D = H.shape[2], H.shape[3]
        c, inv_D = scal[0], scal[1]
        tmp = np.empty((N, D), H.dtype)
        t = np.empty((D, M), H.dtype)
        t1 = tmp.reshape(N * D)
        for s in range(S):
            h = H[l, s]
            if l >= 1:
                np.dot(A[l - 1, s], V[s, l - 1], tmp)
                h1 = h.reshape(N * D)
                hp = H[l - 1, s].reshape(N * D)
                for i in range(N * D):
                    h1[i] = hp[i] + c * t1[i]
            if l < L:
                _transpose(U[s, l], inv_D, t)
                np.dot(h, t, P_l[s])

    @_jit
    def _backward_update(H, A, DS, U, V, G_L, scal, kind):
        """The backward pass of `backward` for every rep and layer; each layer's U, V is updated
        in place (U −= lr ∂U, V −= lr ∂V) as soon as its gradient is known, so nothing of size
        L is allocated.  DS holds σ'(P) when kind = 2 (sin); tanh and relu take it from A."""
        S, L, M, D = U.shape
        N = H.shape[2]
        c, inv_D, ku, kv, one = scal[0], scal[1], scal[2], scal[3], scal[4]
        dt = H.dtype
        Vt = np.empty((D, M), dt)
        G_all = G_L.copy()
        tmp = np.empty((N, D), dt)
        dP = np.empty((N, M), dt)
        gU = np.empty((M, D), dt)
        gV = np.empty((M, D), dt)
        t1, dP1 = tmp.reshape(N * D), dP.reshape(N * M)
        gU1, gV1 = gU.reshape(M * D), gV.reshape(M * D)
        for l in range(L - 1, -1, -1):  # layer-major, as the forward pass: its last layers are
            for s in range(S):  # still in cache when the backward pass starts
                G = G_all[s]
                G1 = G.reshape(N * D)
                a = A[l, s]
                a1 = a.reshape(N * M)
                np.dot(a.T, G, gV)  # ∂V / (c) = σ(P)ᵀ G
                _transpose(V[s, l], one, Vt)
                np.dot(G, Vt, dP)  # ∂P = (G Vᵀ) ⊙ σ'(P) c
                if kind == 0:
                    for i in range(N * M):
                        dP1[i] = dP1[i] * (one - a1[i] * a1[i]) * c
                elif kind == 1:
                    for i in range(N * M):
                        dP1[i] = dP1[i] * c if a1[i] > 0 else dP1[i] * 0
                else:
                    ds1 = DS[l, s].reshape(N * M)
                    for i in range(N * M):
                        dP1[i] = dP1[i] * ds1[i] * c
                np.dot(dP.T, H[l, s], gU)  # ∂U · D = ∂Pᵀ h
                np.dot(dP, U[s, l], tmp)  # G += ∂P U / D
                for i in range(N * D):
                    G1[i] = G1[i] + inv_D * t1[i]
                u1 = U[s, l].reshape(M * D)
                v1 = V[s, l].reshape(M * D)
                for i in range(M * D):
                    u1[i] = u1[i] - ku * gU1[i]
                    v1[i] = v1[i] - kv * gV1[i]


def _fast_ok(*tensors) -> bool:
    """The compiled path applies: numba present, plain CPU float tensors of one dtype, no autograd
    (reverse or forward mode) and no torch.func transform."""
    if not FAST:
        return False
    dtype = tensors[0].dtype
    if dtype not in (torch.float32, torch.float64):
        return False
    grad = torch.is_grad_enabled()
    for t in tensors:
        if type(t) is not torch.Tensor or t.device.type != "cpu" or t.dtype != dtype:
            return False
        if (grad and t.requires_grad) or forward_ad.unpack_dual(t).tangent is not None:
            return False
        try:
            t.numpy()
        except RuntimeError:  # a tensor wrapped by torch.func (vmap, jvp, grad) has no storage
            return False
    return True


def _scalars(alpha, lr, L, M, D, dtype):
    """(c, 1/D, lr/D, lr c, 1) in the tensors' dtype, so that float32 arithmetic stays float32."""
    c = alpha / (L * M)
    return np.array([c, 1 / D, lr / D, lr * c, 1], dtype=dtype)


_WORK = threading.local()


def _workspace(shapes, dtype):
    """Scratch numpy arrays of these shapes, kept from one GD step to the next (per thread; only
    the last set of shapes is kept).  Large fresh buffers cost a page fault per 4 KiB on every
    step, more than the arithmetic at the sizes of the experiments."""
    key = (tuple(shapes), np.dtype(dtype))
    if getattr(_WORK, "key", None) != key:
        _WORK.key, _WORK.arrays = None, None  # free the old set first
        _WORK.arrays = tuple(np.empty(shape, dtype) for shape in shapes)
        _WORK.key = key
    return _WORK.arrays


def _forward_layers(Hn, An, Pn, Un, Vn, DS, alpha, sigma):
    """The layer loop of the compiled forward pass: fills H[1:], A, P (all layers if Pn has L
    of them, else P is scratch) and σ'(P) into DS if given."""
    L = An.shape[0]
    M, D = Un.shape[2], Un.shape[3]
    scal = _scalars(alpha, 0.0, L, M, D, Hn.dtype)
    act = _NP_ACT[sigma]
    keep_P = Pn.shape[0] == L
    for l in range(L):
        P_l = Pn[l if keep_P else 0]
        _forward_layer(Hn, An, P_l, Un, Vn, l, scal)
        act(P_l, out=An[l])
        if DS is not None:
            np.cos(P_l, out=DS[l])
    _forward_layer(Hn, An, Pn[0], Un, Vn, L, scal)


def _forward_fast(W_E, W_U, U, V, X, alpha, sigma):
    """`forward` on the compiled path (fresh buffers: the Cache keeps them)."""
    S, L, M, D = U.shape
    N = X.shape[1]
    dtype = U.dtype
    H = torch.empty(L + 1, S, N, D, dtype=dtype)
    A = torch.empty(L, S, N, M, dtype=dtype)
    P = torch.empty(L, S, N, M, dtype=dtype)
    torch.bmm(X, W_E.transpose(1, 2), out=H[0])
    _forward_layers(H.numpy(), A.numpy(), P.numpy(), _np(U), _np(V), None, alpha, sigma)
    h_L = H[L]
    f = torch.bmm(h_L, W_U) / D
    return f, h_L, Cache(list(H[:L].unbind(0)), list(P.unbind(0)), list(A.unbind(0)), h_L, sigma)


def _np(t):
    return t.detach().contiguous().numpy()


def _gd_step_fast(W_E, W_U, U, V, X, Y, alpha, eta, sigma):
    """`gd_step` on the compiled path (U, V contiguous CPU tensors, updated in place)."""
    S, L, M, D = U.shape
    N = X.shape[1]
    Un, Vn = U.numpy(), V.numpy()
    shapes = [(L + 1, S, N, D), (L, S, N, M), (1, S, N, M)]
    if sigma == "sin":
        shapes.append((L, S, N, M))
    Hn, An, Pn, *DS = _workspace(shapes, Un.dtype)
    DS = DS[0] if DS else None
    H = torch.from_numpy(Hn)
    torch.bmm(X, W_E.transpose(1, 2), out=H[0])
    _forward_layers(Hn, An, Pn, Un, Vn, DS, alpha, sigma)
    h_L = H[L].clone()
    f = torch.bmm(h_L, W_U) / D
    G_L = output_grad(f, Y, W_U)
    scal = _scalars(alpha, learning_rate(L, M, D, alpha, eta), L, M, D, Hn.dtype)
    DS = An if DS is None else DS
    _backward_update(Hn, An, DS, Un, Vn, _np(G_L), scal, _KIND[sigma])
    return f, h_L
