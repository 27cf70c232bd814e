"""The statements of the transformer paper that mfx tests (mfx.statements): id, quote, place, parts.

Barboni, de Hoop, Furuya, Peyré, "Training Infinitely Deep and Wide Transformers" (arXiv 2605.17660).
The quotes are from the project's summary (shared/seeds/004, German, with an English translation);
the paper's text itself was not available (shared/science/transformer.md §0), so every rate, constant
and block reading below is mfx's — the summary states none.
"""

from __future__ import annotations

from mfx.statements import Statement

_SUMMARY = "summary (shared/seeds/004)"

STATEMENTS: list[Statement] = [
    Statement(
        id="barboni.forward_wellposed",
        family="transformer",
        quote="„Er beweist, dass die Token-Evolution durch Flussabbildungen charakterisiert ist, die ODEs in "
        "Funktionenräumen erfüllen“; „es eine eindeutige, wohldefinierte Art gibt, wie diese durch die "
        "unendlichen Schichten fließt“ [It proves that the token evolution is characterised by flow maps "
        "solving ODEs in function spaces; there is a unique, well-defined way the data flows through the "
        "infinitely many layers]",
        place=f"{_SUMMARY} §'Hauptbeiträge: Gutgestelltheit' and §'Schlüsselkonzept 3.1'",
        parts={
            "depth": "the L-layer (Euler-in-depth) forward pass of a fixed parameter measure converges to the "
            "solution of the depth ODE (integrated by RK4, another code path) as L → ∞, uniformly in the "
            "number of heads H (the rate, first order, is mfx's)",
            "stable": "the flow map is Lipschitz in the input distribution: outputs of two token clouds at "
            "W2 distance δ differ by ≤ C·δ with C bounded as L, H grow (mfx's reading of well-posedness)",
        },
        untestable="existence and uniqueness as such (a proof in function spaces): mfx checks the numerical "
        "consequences, convergence of a discretisation and stability in the data",
    ),
    Statement(
        id="barboni.gradient_flow",
        family="transformer",
        quote="„dass Gradientenflusskurven im Raum der bedingten Wasserstein-Metrik existieren und eindeutig "
        "sind“ [that gradient-flow curves exist and are unique in the space of the conditional Wasserstein "
        "metric]",
        place=f"{_SUMMARY} §'Hauptbeiträge: Gutgestelltheit von Vorwärts- und Trainingsdynamiken'",
        parts={
            "steps": "GD with lr η·L·H at η, η/2, η/4, … converges to one curve of the flow (an RK4 "
            "integration of it), at first order in η (the order is mfx's)",
            "samplings": "independent samplings of the initial parameter law follow one limit curve: at the two "
            "largest H their mean trained changes differ by their Monte Carlo error only (mfx's reading), and two "
            "samplings approach each other as H grows (the rate −½ is mfx's, a derived claim)",
        },
        untestable="uniqueness in the space of measures (no numerical test can exclude a second solution); "
        "the COT metric itself is not computed",
    ),
    Statement(
        id="barboni.adjoint_gradient",
        family="transformer",
        quote="„Mithilfe der adjungierten Sensitivitätsanalyse leiten die Autoren eine explizite Formel für den "
        "bedingten Wasserstein-Gradienten des Trainingsrisikos ab. Dies beinhaltet adjungierte Variablen, die "
        "rückwärtsgerichtete ODEs erfüllen“ [Using adjoint sensitivity analysis the authors derive an "
        "explicit formula for the conditional Wasserstein gradient of the training risk, with adjoint "
        "variables solving backward ODEs]",
        place=f"{_SUMMARY} §'Hauptbeiträge: Explizite Gradientenformulierung'",
        parts={
            "": "the finite L×H network's per-head gradient L·H·∂R/∂θ tends to the limit's adjoint-ODE "
            "gradient G(s, θ) (the formula is reconstructed, science/transformer.md §2.1; the depth and "
            "width rates are mfx's)"
        },
        untestable="the paper's exact formula (its text was not available): mfx tests the reconstructed one",
    ),
    Statement(
        id="barboni.mean_field_limit",
        family="transformer",
        quote="„Das Modell behandelt Transformer als unendlich tief … und unendlich breit“; training the "
        "L×H network is the mean-field dynamics in the joint limit [The model treats transformers as "
        "infinitely deep and infinitely wide; the finite network's training approximates it]",
        place=f"{_SUMMARY} §'Methodik: Duale Mittelwert-Feld-Darstellung'",
        parts={
            "": "the trained L×H network's output tends to the limit's as L, H → ∞ (both the depth and the "
            "width error vanish); the rates 1/L and (LH)^(−1/2) are mfx's derivation, not the paper's"
        },
        untestable="the limit itself (mfx reads the convergence at the end of its grid's diagonal, relative to how "
        "far training moved the limit's output: transformer_limit); the summary gives no rate, so the rates are "
        "derived claims",
    ),
    Statement(
        id="barboni.linear_convergence",
        family="transformer",
        quote="„Unter der Annahme, dass der NTK bei der Initialisierung positiv ist (speziell der V-Teil des "
        "NTK) und der initiale Verlust hinreichend klein ist, beweist der Artikel, dass der Gradientenfluss "
        "mit einer linearen Konvergenzrate zu einem globalen Minimierer konvergiert“ [Assuming the NTK is "
        "positive at initialisation (specifically its V part) and the initial loss is small enough, gradient "
        "flow converges at a linear rate to a global minimiser]",
        place=f"{_SUMMARY} §'Hauptbeiträge: Konvergenz zu globalen Minima'",
        parts={
            "global_min": "λ_min(K_0) > 0 and a small initial loss: the loss reaches a global minimum (≥ 8 "
            "decades by t_8, when the derived bound promises them; the reading is mfx's)",
            "rate": "the decay is linear (exponential): late in training log R falls at a constant rate (the paper "
            "claim), at a rate set by the NTK: R(t) ≤ R(0)·exp(−λ_min(K_0)t/N) and the late rate of the slowest mode "
            "(the constants are mfx's derivation)",
        },
        untestable="the size of 'sufficiently small' (the summary gives none); that a large loss breaks the rate "
        "is not stated — at targets ×30, with a step where GD follows the flow, the runs keep the derivation's "
        "hypothesis (their kernel grows) and obey the bound (transformer_convergence, a derived claim)",
    ),
    Statement(
        id="barboni.ntk_equivalence",
        family="transformer",
        quote="„Der Artikel beweist, dass NTK-Injektivität äquivalent zur linearen Unabhängigkeit von "
        "Log-Sum-Exp-Funktionen modulo affiner Funktionen ist“ [The paper proves that NTK injectivity is "
        "equivalent to linear independence of the log-sum-exp functions modulo affine functions]",
        place=f"{_SUMMARY} §'Hauptbeiträge: NTK-Injektivitätsbedingungen'",
        parts={
            "qk": "mfx's reading: the Q/K/QK blocks of the attention NTK (L = 1) are positive ⇔ the Gram of "
            "the Λ_i modulo affine functions is — the summary does not name the block; for the V block and "
            "the full kernel the matching condition is modulo constants, so on translates the full kernel is "
            "positive while the Λ_i are dependent modulo affine (a finding, reported)",
        },
        untestable="which kernel the paper's theorem concerns (its text was not available); the summary's "
        "convergence theorem names the V part, whose condition is modulo constants",
    ),
    Statement(
        id="barboni.families",
        family="transformer",
        quote="„Es wird gezeigt, dass diese Bedingung von diversen Token-Verteilungen erfüllt wird, "
        "einschließlich: Diskreter Verteilungen, die eine Unterscheidbarkeitsbedingung erfüllen (fast sicher "
        "verifiziert für i.i.d.-Stichproben aus absolut stetigen Maßen); Gleichverteilungen auf Würfeln mit "
        "unterschiedlichen Radien; Symmetrischen multivariaten Laplace-Verteilungen mit unterschiedlichen "
        "Kovarianzmatrizen; Zwei-Komponenten-Gaußschen Mischverteilungen mit unterschiedlichen "
        "Trennparametern“ [The condition holds for discrete distributions satisfying a distinguishability "
        "condition (almost surely for i.i.d. samples of absolutely continuous laws), uniform laws on cubes of "
        "different radii, symmetric multivariate Laplace laws of different covariances, two-component "
        "Gaussian mixtures of different separations]",
        place=f"{_SUMMARY} §'Hauptbeiträge: NTK-Injektivitätsbedingungen'",
        parts={
            "closed_form": "cubes, Laplace laws and 2-GMMs of different parameters have Λ_i independent "
            "modulo affine functions (closed-form Gram positive), with closed forms that are the laws' own: the "
            "network's NTK on clouds drawn from cube and 2-GMM members is the kernel of their closed-form Λ_μ",
            "discrete": "N i.i.d. samples of an absolutely continuous law give independent Λ_i (every draw)",
        },
        untestable="the distinguishability condition itself (not given in the summary)",
    ),
]
