"""What each column and metric of the ResNet experiments' rows means, one line each (`mfx metrics`).

COLUMNS: the coordinate columns the family's rows carry; METRICS: per experiment, the values of its
`metric` column.  tests/test_metrics.py checks that every column and metric of each experiment's
quick rows is here: a new metric comes with its line.
"""

COLUMNS = {
    "L": "depth L (number of residual blocks)",
    "M": "hidden width M of a block",
    "D": "embedding dimension D",
    "alpha": "residual multiplier α: h_l = h_{l−1} + (α/(LM)) Σ_j v_j σ(⟨u_j, h_{l−1}⟩/D)",
    "step": "GD step k (0 … K)",
    "L_ref": "depth of the reference network the errors are measured against",
    "M_ref": "width of the reference network",
    "d_out": "output dimension d_out",
    "init": "initialisation of the units: iid, or paired (every block zero at init)",
    "gamma": "exponent γ of the residual scale D^γ/(LM) (α = D^(γ−1/2))",
    "rate": "normalised learning rate η = raw rate/(L·M·D) of one run of the rate search",
    "M_p": "particles of the unit law μ (the pool the networks draw their units from)",
    "L_r": "RK4 steps in depth of the mean-ODE reference",
    "draws": "independent networks drawn per rep and (L, M)",
}

_ERRORS = {
    "err_f": "RMS over (data point, output) of f − f_ref, the output error to the reference",
    "err_h": "per-coordinate RMS of h_L − h_L,ref, the embedding-space error to the reference",
    "loss": "training loss",
    "err_df": "RMS over (n, output) of (f_k − f_0) − (f_ref,k − f_ref,0): the error of what training moved (0 untrained)",
    "err_dh": "per-coordinate RMS of (h_L,k − h_L,0) − (h_L,ref,k − h_L,ref,0): the same in embedding space",
}

# resnet_dim's rows (and those of resnet_ratio and resnet_departure, which run its job) split the h_L error
_DIM_ERRORS = {
    **_ERRORS,
    "err_h_span": "h_L error in the span of W_U (per coordinate of that span)",
    "err_h_perp": "h_L error orthogonal to the span of W_U (per coordinate)",
}

METRICS = {
    "resnet_depth": _ERRORS,
    "resnet_width": _ERRORS,
    "resnet_dim": _DIM_ERRORS,
    "resnet_ratio": _DIM_ERRORS,  # resnet_dim's job at D = ratio·M
    "resnet_departure": _DIM_ERRORS,  # resnet_ratio's job
    "resnet_lazy": {
        "local_update": "RMS over (l, j, n) of ⟨u_K − u_0, h_{l−1}⟩/D: the units' own feature movement",
        "rel_dU": "‖U_K − U_0‖/‖U_0‖, the relative movement of the first-layer weights",
        "lin_dist": "RMS of f − f_lin, f_lin the blockwise-linearised network (the lazy tangent ODE)",
        "tangent_dist": "RMS of f − the fully linearised network f(θ0) + J(θ0)(θ − θ0)",
        "dist_f": "RMS of f − f_0, how far the output moved from its initial value",
        "loss": "training loss",
        "lim_dist": "RMS of f − f_lim at step K, f_lim the tangent mean-ODE limit (sizes L = M, both inits)",
    },
    "resnet_limit": {
        "err_one": "RMS over draws and (n, output) of f_r − f_lim: one network's error to the mean ODE",
        "err_euler": "RMS over (n, output) of the pool's Euler network − f_lim (every layer holds the whole pool)",
        "loss": "the networks' training loss (mean over draws)",
        "chaos": "RMS distance of the trained units' displacements to their limit copies' (same pool particle, RK4 mean ODE), relative to the copies' RMS",
        "chaos_euler": "the same for the pool's Euler network (every layer holds the pool): the depth (1/L) part alone",
    },
    "resnet_phase": {
        "stable": "1 if the run at this rate stayed stable (finite loss, not above the initial), else 0",
        "lr_max": "the largest stable normalised rate η_max found by the search",
        "local_update": "median over (l, j, n) of |⟨u_K − u_0, h_{l−1}⟩/D| at 0.1·η_max",
        "movement": "per-coordinate RMS of h_L(K) − h_L(0) at 0.1·η_max: the feature movement",
        "diversity": "‖ΠV_0‖/‖ΠV_K‖: share of the trained down-projections still their own init",
    },
}
