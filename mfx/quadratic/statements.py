"""The statements of the quadratic paper that mfx tests (mfx.statements): id, quote, place, parts.

Bocchi, Regimbeau, Lucibello, Saglietti, Cammarota, arXiv 2604.03068, read through the summary in
shared/seeds/003_* (German; quoted first, translated in brackets) — the paper's full text was not
available (science/quadratic.md §0).  The summary gives no numbers: every size a claim tests against
(a slope, a count, a ratio) is derived here (science/quadratic.md, mfx/quadratic/analysis.py) and its
claim says so; a part that only derived or identity claims serve counts "in part".
"""

from __future__ import annotations

from mfx.statements import Statement

F = "quadratic"
S = "summary 003"

STATEMENTS: list[Statement] = [
    Statement(
        "bocchi.init",
        F,
        "Um das Problem der trivialen Fixpunkte bei quadratischen Aktivierungen zu umgehen (wo "
        "Null-Initialisierung zu keinem Lernen führt), werden die Student-Gewichte orthogonal mit kleiner "
        "zufälliger Überlappung zum Teacher initialisiert. [To avoid the trivial fixed points of quadratic "
        "activations (where a zero initialisation leads to no learning), the student weights are initialised "
        "orthogonally with a small random overlap with the teacher.]",
        f"{S} §2 'Methodik', Initialisierung",
        {
            "setup": "the default students (model.init=orthogonal) have Q0 = σ0² I exactly (identity) and a "
            "random teacher overlap of the derived size E N|ρ0|_F² = r²σ0² p p* (rho0_scale r = 1)",
            "learns": "from that init SGD and the ODE leave the plateau and come within 1 % of the floor by a "
            "fixed time (quad_norms, N = 1e4)",
            "zero_init": "a zero init does not learn: SGD from W0 = 0 stays there, the ODE from ρ0 = 0 stays on "
            "the plateau (identities of the gradient ∝ λ and of dρ ∝ ρ)",
        },
        untestable="the summary gives neither σ0 nor the overlap's size (mfx: σ0 = 1, r = 1, i.e. ρ0 of an "
        "independent draw). 'setup' has no paper claim: the init is mfx's input, not a result — Q0 = σ0² I is an "
        "identity of the orthonormalised rows and E N|ρ0|_F² = r²σ0²pp* a derived law of the draw, and no mistake "
        "of the dynamics can fail either; what the paper asserts of its init, that it learns, is the paper claim "
        "'learns'. 'zero_init' has no paper claim: W0 = 0 stays put because SGD's step ∝ λ = 0, and the ODE keeps "
        "ρ = 0 because dρ ∝ ρ — identities of the update rules (tested as such), true of any code that "
        "implements them; SGD from a zero overlap with unit norms does learn at finite N (its noise starts ρ: "
        "quad_norms reports it), so 'zero' is read as the trivial fixed point W0 = 0",
    ),
    Statement(
        "bocchi.ode_limit",
        F,
        "Im hochdimensionalen Limit (N → ∞) konvergieren die stochastischen SGD-Updates gegen "
        "deterministische gewöhnliche Differentialgleichungen (ODEs), die die Evolution dieser Matrizen "
        "beschreiben. [In the high-dimensional limit N → ∞ the stochastic SGD updates converge to "
        "deterministic ordinary differential equations for the overlap matrices.]",
        f"{S} §2 'Methodik', Deterministische ODEs",
        {
            "levels": "one-pass SGD's risk levels (plateau, the p < p* limit) equal the ODE's at the same g",
            "time": "SGD follows the ODE on one τ = aηα axis: the descent after the escape and the exit "
            "rate of ε_pl − ε (the first-crossing ratios also read it, with less power: derived)",
            "escape_slope": "SGD's escape time grows with ln N at the ODE's slope",
        },
        untestable="the convergence rate in N is not stated; SGD's finite-N early escape (an N-free shift of "
        "τ_esc, science §3.4) is outside the statement",
    ),
    Statement(
        "bocchi.norms",
        F,
        "Norm-Lernen: Zuerst passen sich die Normen der Student-Perzeptronen an einen attraktiven Fixpunkt "
        "an, während die Überlappungen mit dem Teacher vernachlässigbar bleiben. [Norm learning: first the "
        "norms of the student perceptrons adapt to an attractive fixed point, while the overlaps with the "
        "teacher stay negligible.]",
        f"{S} §3A 'Dynamik und Flucht aus dem Plateau', phase 1",
        {
            "fixed_point": "diag Q settles at the attractive fixed point q̄(g) (its value is derived here)",
            "first": "the norms settle well before the escape (τ_norm/τ_esc ≤ ½, derived bound)",
            "overlaps": "the overlaps stay at their initial order N^-1/2 while the norms learn",
        },
        untestable="the summary gives no fixed point and no time scale; both are derived (norms.py docstring)",
    ),
    Statement(
        "bocchi.plateau",
        F,
        "Plateau-Phase: Die Normen sind stabilisiert, aber die Überlappungen ρ sind noch sehr klein. Das "
        "Risiko sinkt kaum. [Plateau phase: the norms are stabilised, but the overlaps ρ are still very "
        "small. The risk hardly decreases.]",
        f"{S} §3A, phase 2",
        {
            "level": "the risk stays level ('sinkt kaum'): once the norms have settled (within δ of q̄(g)), "
            "SGD's ε falls by ≤ 5 % of ε_pl − floor over the first half of the time to the escape (quad_norms; "
            "the share expected ≈ 2 % is derived), and the level it rests at is ε_pl = 1/(p+2) + 1/p* "
            "(derived, science §4.1)"
        },
        untestable="the summary gives no plateau level (ε_pl is derived here) and no size for 'kaum' (the 5 % "
        "bound is ours); 'the overlaps ρ are still very small' is read through the risk (ε_pl − ε = "
        "2aa*κ²|ρ|_F² + O(ρ⁴)), its |ρ| reported, and at the plateau's start by bocchi.norms/overlaps",
    ),
    Statement(
        "bocchi.escape_moderate",
        F,
        "Überparametrisierung (p > p*) beschleunigt die Flucht aus diesem Plateau nur moderat. "
        "[Overparameterisation (p > p*) accelerates the escape from this plateau only moderately.]",
        f"{S} §3A, Ergebnis; also the summary's first paragraph ('nur geringfügig beschleunigt')",
        {
            "faster": "the escape at p = 8 > p* comes earlier than at p = p*, by a margin (one-sided)",
            "modest": "by a shift small against the escape time itself (its size is derived from the "
            "prefactor: analysis.escape_theory)",
        },
        untestable="'moderat' has no size in the summary: the margin and the derived shift are ours. 'modest' has "
        "no paper claim: in τ units τ_esc = ln N/(8a*) + C(p) (analysis.escape_theory), so the shift C(p*) − C(8) "
        "is N-free by the ODE's algebra (the rate claims' identity) and its share of τ_esc falls as 1/ln N — ODE, "
        "paper seed 0: 0.26/1.95, 0.31/3.58, 0.31/5.11 τ at N = 1e6 (13, 9, 6 % at p* = 1, 2, 3), 0.26/1.09 at "
        "N = 1e3 — so any bound on that share would choose an N, not read the summary; its size stays the derived "
        "prefactor's (the shift-size claim)",
    ),
    Statement(
        "bocchi.time_scale",
        F,
        "Sie ändert nicht die charakteristische Zeitskala (die durch die Komplexität des Teachers p* bestimmt "
        "ist), sondern beeinflusst nur den Vorfaktor der exponentiellen Abnahme des Verlusts. [It does not "
        "change the characteristic time scale (set by the teacher's complexity p*), but only affects the "
        "prefactor of the exponential decrease of the loss.]",
        f"{S} §3A, Ergebnis",
        {
            "rate": "the escape rate (ln N slope of τ_esc, exit rate of ε_pl − ε) does not depend on p",
            "set_by_p_star": "the time scale is set by p*: at a fixed p the exit rate differs between consecutive "
            "p* by a margin, the simpler teacher's faster; its size (ln N slope 1/(8a*), exit rate 8a*) is derived",
            "prefactor": "p changes the prefactor of ε_pl − ε ≈ A e^{rate·τ} (its ratio is derived)",
        },
        untestable="'rate' has no paper claim. The summary names no learning-rate convention, but its "
        "sentence before ('Überparametrisierung beschleunigt die Flucht … nur moderat') fixes one: at one η for "
        "every p, in α = M/N, the exit rate is aη·2k(aη) ∝ a = 1/p for the mean readout (quad_escape's fixed-η "
        "rows: p = 8 escapes 5.6–5.8×, 3.4×, 2.4× later in α than p = p* = 1, 2, 3, quick seed 0 and paper "
        "seed 8912), so wider students would escape much later, not faster. The statement is therefore about τ = aηα with g = aη fixed, where the "
        "gradient-flow rate 8a* is free of p by the ODE's algebra (c + 2aq̄ = 0 on the plateau): its "
        "p-spread claims are identities. What is not an identity is tested as derived: at one η across p the "
        "ODE's rate in τ falls with g = aη (q̄(g) > q̄(0): by 16 % at p = p* = 1, η = 0.1) and matches "
        "the derived finite-g rate 2k(g) at every p ('escape.exit_rate_eta'), which a p-dependent rate fails",
    ),
    Statement(
        "bocchi.escape_sigma_max",
        F,
        "Der Fluchtzeitpunkt wird maßgeblich durch den zufällig größten Anfangsüberlappungswert bestimmt, "
        "nicht durch die Anzahl der Neuronen p. [The escape time is set mainly by the randomly largest "
        "initial overlap, not by the number of neurons p.]",
        f"{S} §3A, Ergebnis",
        {
            "contrast": "σ_max(ρ0) explains more of τ_esc's variance over seeds and p than p does beyond it",
            "slope": "τ_esc falls with ln σ_max(ρ0) at the derived slope −1/(4a*)",
            "alternatives": "σ_max(ρ0) explains τ_esc's seed-to-seed variance better than the other summaries of "
            "ρ0 — ||ρ0||_F, σ_min(ρ0) and the nuclear norm (the trace of a non-square ρ0) — on initial overlaps "
            "with a controlled spectrum (singular values log-uniform over a decade, p* ≥ 2)",
        },
        untestable="at p* = 1 ρ0 is a vector and every summary of it is |ρ0|: 'alternatives' is read at p* ≥ 2; "
        "'the trace' of a non-square ρ0 has no meaning and is read as its nuclear norm",
    ),
    Statement(
        "bocchi.manifold",
        F,
        "Im Gegensatz zu p* = 1 (wo isolierte Lösungen existieren), bildet bei p* > 1 und p ≥ p* die Menge "
        "der Lösungen mit Null-Fehler eine kontinuierliche Mannigfaltigkeit. … Die Dimension dieser "
        "Mannigfaltigkeit ist positiv, sobald p > 1, selbst wenn p = p*. [Unlike p* = 1 (isolated "
        "solutions), for p* > 1 and p ≥ p* the zero-loss solutions form a continuous manifold … of positive "
        "dimension as soon as p > 1, even when p = p*.]",
        f"{S} §3B 'Kontinuierliche Lösungsmannigfaltigkeit'",
        {
            "reached": "SGD and the ODE reach zero loss for p ≥ p* (ε_g below a bound by a fixed time)",
            "dimension": "the minimum training reaches lies on a manifold of positive dimension for p > 1 (p* = 1 "
            "and p = p* included): it has rotation zero modes (their number p·p* − p*(p*+1)/2 is derived)",
            "isolated": "at p = p* = 1 the minimum training reaches is isolated: a strict minimum, no eigenvalue "
            "in or below the zero band (no rotation, no surplus direction)",
        },
        untestable="that the zero-loss set at p = p* = 1 is the two points ±s w* is an identity of a w² = a* w*²; "
        "'isolated' is read at the minimum training reaches, as its Hessian's gap (the paper gives no size, and "
        "no realistic mistake of the target's size closes a gap of 4aa*: its resolution is coarse by the "
        "statement). At p* = 1 < p the summary's own 'positive as soon as p > 1' applies, and is tested",
    ),
    Statement(
        "bocchi.conserved",
        F,
        "Die Matrix S(t) = ρ(t)[ρ(t)ᵀρ(t)]^(-1/2) bleibt während der gesamten Dynamik konstant. [The matrix "
        "S(t) = ρ(t)[ρ(t)ᵀρ(t)]^(-1/2) stays constant during the whole dynamics.]",
        f"{S} §3C 'Implizite Bias und Lösungsauswahl', Mechanismus",
        {"": "the ODE keeps S fixed (T = I, Q0 ∝ I); SGD drifts from it by its noise (√g, derived)"},
        untestable="in the ODE the conservation is an identity of its algebra (science §5.3); the summary "
        "states it of the ODEs, so no paper claim can fail it. SGD does not carry it either: its drift of S is "
        "set while ρ ~ N^-1/2, where the noise is of the same order, so it grows as √g and does not shrink "
        "with N (science §5.5; the √g law is a derived claim) — the sentence is not true of SGD at any N, "
        "and its consequence for SGD is tested by bocchi.closest_solution",
    ),
    Statement(
        "bocchi.closest_solution",
        F,
        "Die SGD-Dynamik konvergiert konsistent zu der Lösung auf der Mannigfaltigkeit, die euklidisch am "
        "nächsten zur Initialisierung liegt. [The SGD dynamics consistently converges to the solution on the "
        "manifold that is Euclidean-closest to the initialisation.]",
        f"{S} §3C, Ergebnis",
    ),
    Statement(
        "bocchi.hessian_plateau",
        F,
        "Plateau: Entspricht einem Sattelpunkt mit mindestens einem negativen Eigenwert, aber einer großen "
        "Anzahl von Null-Eigenwerten (flache Richtungen). [Plateau: a saddle point with at least one negative "
        "eigenvalue, but a large number of zero eigenvalues (flat directions).]",
        f"{S} §3D 'Hessian-Analyse und Geometrie'",
        {
            "saddle": "at the plateau that training reaches, λ_min < 0 by a margin, with p·p* negative "
            "directions (the count derived, science §6.1)",
            "flat": "many zero eigenvalues there: p(p−1)/2 + p(N − p − p*) (derived, science §6.1)",
        },
    ),
    Statement(
        "bocchi.hessian_minima",
        F,
        "Globale Minima: Entspricht einem 'marginalen Minimum' (alle Eigenwerte ≥ 0). Die Null-Eigenwerte "
        "teilen sich in zwei Gruppen: 1. Richtungen, die der Rotationssymmetrie entsprechen … 2. Zusätzliche "
        "Null-Richtungen, die spezifisch durch Überparametrisierung (p > p*) entstehen. [Global minima are "
        "marginal minima (all eigenvalues ≥ 0). The zero eigenvalues split into two groups: 1. directions of "
        "the rotation symmetry … 2. extra zero directions that come from overparameterisation (p > p*).]",
        f"{S} §3D",
        {
            "marginal": "no eigenvalue below the zero band at the minima the ODE and SGD reach (p > 1 or p > p*: the "
            "minima with zero modes; a seed not at a minimum counts as a miss)",
            "rotations": "the rotation zero modes there number the orbit's dimension p·p* − p*(p*+1)/2",
            "extra": "the other zero modes number (p − p*)(N − p*), none at p = p*",
        },
        untestable="'none at p = p*' is the derived count (p − p*)(N − p*) at p = p*, read as derived claims: it "
        "has no sized realistic mistake — at p = p* the reached Q has full rank, so the modes ⟂ the teacher's span "
        "sit at 2a(c + 2aλ_i(Q)) = 4aa* (Q = T, mean readout), 20× the zero band, and a teacher scale off in "
        "training moves them through the band only in a window of sizes (ranges 'hessian.reached_extra_none'); "
        "only training that stops on the plateau creates them (no size). The paper's size of the extra modes is "
        "tested at p > p*. 'Marginal' is read where the minima have zero modes (p > 1 or p > p*); p = p* = 1 is "
        "the isolated solution of bocchi.manifold (a strict minimum)",
    ),
]
