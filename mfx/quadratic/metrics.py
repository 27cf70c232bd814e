"""What each column and metric of the quadratic experiments' rows means, one line each (`mfx metrics`).

COLUMNS: the coordinate columns the family's rows carry; METRICS: per experiment, the values of its
`metric` column (`<k>` stands for a number).  tests/test_metrics.py checks that every column and
metric of each experiment's quick rows is here: a new metric comes with its line.
"""

COLUMNS = {
    "p": "student units p (hidden width of the student)",
    "p_star": "teacher units p*",
    "N": "input dimension N (of the SGD, or of the ODE's idealised initialisation)",
    "eta": "SGD learning rate η",
    "g": "learning rate in τ units, g = a·η (0: gradient flow)",
    "alpha": "time in samples per dimension, α = SGD steps / N",
    "tau": "time τ = g·α (the ODE's time)",
    "sigma0": "the students' initial scale σ0 (Q0 = σ0² I)",
    "rho0_scale": "size r of the initial teacher overlap (ρ0 entries of variance r²σ0²/N)",
    "readout": "readout convention: mean (a = 1/p, a* = 1/p*) or sum (a = a* = 1)",
    "method": "what made the row: sgd (one-pass SGD), ode (overlap ODE), ode_g / ode_matched / ode_gf / "
    "ode_anisotropic (ODE at the SGD's g / from each SGD run's own start / g → 0 / anisotropic teacher), "
    "xcheck_full / xcheck_overlap (full SGD vs the overlap chain, same seeds)",
    "eps_floor": "lowest reachable risk ε_g of an underparameterised student (p < p*; 0 for p ≥ p*)",
    "eps_pl": "plateau risk ε_pl = (a* tr T)²/(p+2) + a*² tr T²",
    "state": "where the Hessian is taken: plateau, solution (the ODE's), trajectory (along the ODE), "
    "reached (end state of the ODE or SGD), mid_plateau (the plateau the ODE or SGD reaches)",
    "source": "who computed the value: autograd (Hessian of the risk), theory (closed form), ode, sgd",
    "multiplicity": "how many eigenvalues share this value",
    "entry": "index of the entry of ρ (row-major over p × p*)",
}

METRICS = {
    "quad_curves": {
        "eps": "population risk ε_g(ρ, Q)",
        "trQ": "tr Q, the students' squared norms summed",
        "rho_F": "‖ρ‖_F, the Frobenius norm of the student–teacher overlaps",
        "Q_eig_<k>": "k-th largest eigenvalue of Q",
    },
    "quad_escape": {
        "tau_esc": "escape time: first τ at which ε_g falls below the escape threshold under ε_pl",
        "eps": "population risk ε_g along the run (kept every few outputs, first seeds)",
        "ln_sigma_max": "ln σ_max(ρ0), the largest singular value of the initial overlaps",
        "rho0_F2": "‖ρ0‖_F², the initial overlaps' squared norm",
        "exit_rate": "rate of ε_pl − ε_g ≈ A e^{rate·τ} fitted in the exit window",
        "exit_prefactor": "prefactor A of that fit",
        "ln_rho0_F2_ref": "E ln ‖ρ0‖_F² of the ODE's init by a Monte Carlo of the same init code (the largest N; one "
        "value on every seed's row): the acceleration claim's control-variate reference",
        "ln_rho0_F2_ref_se": "the Monte Carlo standard error of ln_rho0_F2_ref",
        "ln_sigma_min": "ln σ_min(ρ0), the smallest singular value of the initial overlaps (ode_spectrum rows)",
        "ln_fro": "ln ‖ρ0‖_F, the log Frobenius norm of the initial overlaps (ode_spectrum rows)",
        "ln_nuclear": "ln ‖ρ0‖_*, the log nuclear norm (sum of singular values: the trace of a non-square ρ0) "
        "of the initial overlaps (ode_spectrum rows)",
    },
    "quad_hessian": {
        "eigenvalue": "a Hessian eigenvalue (units 4aa*; see multiplicity)",
        "lambda_min": "smallest Hessian eigenvalue (units 4aa*)",
        "eps": "population risk ε_g at that state",
        "n_negative": "count of eigenvalues below the zero band (with multiplicity)",
        "n_zero": "count of eigenvalues inside the zero band |λ| ≤ band·4aa*",
        "n_tangent": "zero modes along the rotation generators (tangent to the solution manifold)",
        "n_extra": "zero modes off that tangent space: n_zero − n_tangent (overparameterisation)",
        "zero_max": "largest |λ| counted as zero (units 4aa*)",
        "positive_min": "smallest eigenvalue above the zero band (units 4aa*)",
        "zero_share": "share of the p·N Hessian directions inside the zero band at the reached plateau, read "
        "where the norms are settled (ODE only)",
        "tau_settled": "τ at which zero_share is read: the norms' (tr Q/p) flattest point before the escape",
        "rho_F2": "‖ρ‖_F² at the reached mid-plateau state",
        "tau_read": "τ at which the reached plateau is read (½ of the run's own escape time)",
        "tau_esc": "the run's escape time (first τ with ε_g halfway from ε_pl to its limit; NaN: none by the horizon)",
        "level": "derived λ_min/(4aa*) at ρ = 0, Q = q̄(g) I (the teacher directions' eigenvalue)",
    },
    "quad_implicit_bias": {
        "drift": "‖polar(ρ) − polar(ρ0)‖_F, how far the conserved polar factor S moved",
        "d_closest": "‖W − s S0 W*‖_F²/N, distance to the solution the conserved S0 selects",
        "d_nearest": "distance to the nearest solution on the manifold",
        "d_random": "distance to a random solution (control)",
        "eps": "population risk ε_g",
        "rho_final": "an entry of ρ at the end of the run",
        "rho_predicted": "that entry as predicted, s·polar(ρ0)",
    },
    "quad_norms": {
        "q_max": "largest diagonal entry of Q (a student's squared norm)",
        "q_min": "smallest diagonal entry of Q",
        "rho_norm": "‖ρ‖_F, the overlaps with the teacher",
        "eps": "population risk ε_g",
        "q_bar": "fixed point q̄(g) of the norms on the plateau (with the O(η²) term)",
        "tau_norm": "norm-learning time: when the norms come within δ of q̄ (theory at g = 0)",
        "eps_pl": "plateau risk ε_pl (theory row)",
        "eps_floor": "lowest reachable risk of an underparameterised student (theory row)",
        "eps_end": "where training at the run's g ends (theory row, norms.eps_floor: above eps_floor for p < p*)",
        "rho0_sq": "N‖ρ0‖_F²/(r²σ0² p p*) of the paper's init, per seed (expectation 1; method init_sgd)",
        "Q0_dev": "max |Q0/σ0² − I| of the paper's init, per seed (0 for orthogonal students; method init_sgd)",
    },
}
