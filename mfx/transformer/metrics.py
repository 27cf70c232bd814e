"""What each column and metric of the transformer experiments' rows means, one line each (`mfx metrics`).

COLUMNS: the coordinate columns the family's rows carry; METRICS: per experiment, the values of its
`metric` column (`<block>` stands for an NTK block: full, V, QK, …).  tests/test_metrics.py checks that
every column and metric of each experiment's quick rows is here: a new metric comes with its line.
"""

COLUMNS = {
    "L": "depth L (layers)",
    "H": "heads per layer H (width)",
    "LH": "L·H, the number of heads",
    "L_ref": "depth of the reference (the continuous-depth limit up to O(1/L_ref))",
    "P": "heads of the reference's pool (a sample of the initial head law)",
    "N": "number of inputs (token clouds, or members of a family)",
    "n": "tokens per cloud",
    "d": "token dimension d",
    "dist": "family of the input clouds (cube, gmm2 = two-Gaussian mixture, laplace, discrete, controls …)",
    "step": "GD step",
    "time": "flow time t = step·η",
    "eta": "GD learning rate η",
    "case": "E2 case: the inputs and what is trained (conf/experiment/transformer_convergence.yaml)",
    "role": "what the case tests: injective, bound, kernel0, grid, or a control (large, duplicates, qk_*)",
    "eps": "target perturbation ε (small initial loss)",
    "train": "trained blocks: qkv (all), qk, or v",
    "spacing": "spacing of the members' parameters",
    "sigma_z": "scale σ_z of the tilts z ~ N(0, σ_z² I) of the closed-form Gram",
    "block": "NTK block (full, V, Q, K, QK) or Gram of the clouds (gram_constants, gram_affine)",
    "pool": "further pool of P heads, an independent draw of the initial law (E1's spread of the depth and width exponents over pools)",
    "sampling": "which run (0 or 1) of a pair of independent samplings of the initial law (transformer_adjoint)",
    "component": "flattened (input, coordinate) index of an output ŷ_i ∈ R^d (transformer_adjoint's gf_change)",
    "draw": "independent draw of a discrete family, of the clouds of the closed-form NTK comparison, or of "
    "transformer_adjoint's problem (curves, clouds, targets)",
    "kind": "what the family should give: positive (independent modulo affine), negative (a control), "
    "or its own name (gauss, iid: the finite-n cases)",
}

METRICS = {
    "transformer_limit": {
        "err": "RMS over inputs of |ŷ − ŷ_ref| at t = T: the L×H network's total error",
        "err_t0": "the same at t = 0",
        "err_mc": "RMS of |ŷ_{L,H} − ŷ_{L,P}| at t = T: the width (sampling) error at depth L",
        "err_mc_t0": "the same at t = 0",
        "err_depth": "RMS of |ŷ_{L,P} − ŷ_ref| at t = T: the depth error of the full-pool network",
        "err_depth_t0": "the same at t = 0",
        "err_depth_pool": "err_depth of further pool `pool` (an independent draw of P heads of the initial law)",
        "err_mc_pool": "err_mc of H heads drawn from further pool `pool`, against that pool's full network",
        "travel_ref": "RMS over inputs of |ŷ_ref(T) − ŷ_ref(0)|: how far training moved the limit's output "
        "(the scale of the joint-limit claim)",
        "loss": "training loss R of the L×H network",
        "loss_ref": "training loss R of the reference",
    },
    "transformer_convergence": {
        "loss": "training loss R(t)",
        "lam_min_<block>": "smallest eigenvalue λ_min of that NTK block at this step",
        "lam_max_<block>": "largest eigenvalue λ_max of that NTK block at this step",
        "lam0": "λ_min(K_0) of the trained block at initialisation",
        "lam0_ratio": "λ_min/λ_max of K_0",
        "lam_T_over_lam0": "λ_min(K_T)/λ_min(K_0)",
        "lam_min_over_lam0": "smallest λ_min(K_t) along training over λ_min(K_0)",
        "grid_lam_min_Kinf": "λ_min of the limit's NTK at initialisation K_∞ (Monte Carlo over single heads)",
        "grid_lam_min_K0": "λ_min(K_0) of the full NTK at one (L, H) of the kernel grid",
        "grid_lam_dev": "λ_min(K_0) − λ_min(K_∞) at that (L, H)",
        "grid_kernel_dev": "‖K_0 − K_∞‖_F / ‖K_∞‖_F at that (L, H)",
        "log10_decrease": "log10 R(0)/R(T)",
        "rel_decrease": "(R(0) − R(T))/R(0)",
        "log10_R_t8_over_R0": "log10 R(t_8)/R(0) at t_8 = 8·ln 10·N/λ_min(K_0), when the bound promises 8 decades "
        "(a loss that underflows counts as 1e-300)",
        "t8": "t_8 = 8·ln 10·N/λ_min(K_0): the flow time at which the global-minimum claim reads R",
        "first_order_rate": "predicted decay rate of R at t = 0, (rᵀ K_0 r/N²)/R(0)",
        "late_rate": "decay rate of R fitted on the late, linear phase",
        "late_r2": "R² of that late-rate fit",
        "late_points": "points in that late-rate fit",
        "bound_rate_T": "GD decay rate of the slowest mode of K_T, −(2/η) ln|1 − η λ_min(K_T)/N|",
        "bound_rate_0": "the same for K_0",
        "rate_ratio_T": "late rate over the GD rate of λ_min(K_T)",
        "rate_ratio_0": "late rate over the GD rate of λ_min(K_0)",
        "bound_rate_ratio": "smallest achieved rate ln(R(0)/R(t))/t over the bound's λ_0/N (≥ 1: under it)",
        "final_over_irreducible": "R(T) over the irreducible loss of the best constant output",
        "final_dev_irreducible": "|R(T)/R_irr − 1|",
        "diverged_at": "flow time of the first non-finite loss",
        "max_rise": "largest R(t_{k+1})/R(t_k) over the recorded steps above 1e-20·R(0): > 1 where GD overshot the flow",
    },
    "transformer_ntk": {
        "cf_ratio": "λ_min/λ_max of the closed-form Gram of the Λ_μ modulo affine functions",
        "cf_lam_min": "λ_min of that closed-form Gram",
        "cf_lam_max": "λ_max of that closed-form Gram",
        "merge_lam_min": "λ_min of the closed-form Gram (N = 2) as the members' spacing shrinks",
        "ntk_ratio": "λ_min/λ_max of an empirical NTK block at initialisation",
        "ntk_lam_min": "λ_min of that empirical NTK block",
        "cf_err2": "‖K_net − K_cf‖²_F: the network's NTK block (L = 1) minus the kernel of the closed-form Λ_μ, one seed",
        "cf_norm2": "‖K_cf‖²_F: the squared norm of the closed-form Λ_μ's kernel block, one seed",
        "cf_mc2": "the Monte Carlo error expected of n tokens: ‖K_a − K_b‖²_F/4 over random halves a, b of the clouds",
        "block_ratio": "λ_min/λ_max of a block (or Gram) of the block table (at L = 1 and L = block_L)",
        "disc_ratio": "λ_min/λ_max of the Gram of one discrete-family draw",
        "disc_lam_min": "λ_min of that Gram",
        "disc_conv_ratio": "λ_min/λ_max of the Gram of the convolution set (an exact null)",
    },
    "transformer_adjoint": {
        "risk_limit": "risk of the limit (mean-field) model, forward flow",
        "err_depth": "relative RMS error of the L·H-scaled head gradients to the adjoint's, heads = the measure",
        "err_richardson": "the same for Richardson's 2g_{2L} − g_L (the O(1/L) term removed)",
        "err_mc": "width series: RMS over heads and entries of |g − g_w| over that of |G|, g_w the same heads' "
        "gradient in the width-limit network at depth L (the Monte Carlo error of the value draws)",
        "wp_err": "RMS over inputs of |ŷ_L − ŷ_RK4| of the Euler network of H head curves vs the depth ODE, over "
        "the RMS displacement |ŷ_RK4 − q0|",
        "wp_lip": "stability ratio: max over directions of RMS_i |ŷ(X + δξ) − ŷ(X)| / δ (W2(μ_i, μ'_i) ≤ δ)",
        "gf_err": "RMS over inputs of |ŷ_GD(T) − ŷ_flow(T)| (GD at η vs the flow by RK4 in t) over the distance travelled",
        "gf_stiff": "per seed, the flow's stiffness: the largest |eigenvalue| of L·H·∇²R along the RK4 flow (every 4th "
        "node); GD's η is read where η·λ ≤ 1 (max over seeds)",
        "gf_pair": "RMS over inputs of the difference of two samplings' trained changes ŷ(T) − ŷ(0), over the RMS change at the largest H",
        "gf_loss_drop": "R(T)/R(0) of the worse run of a pair of the two-samplings series",
        "gf_change": "one component of one run's trained change ŷ(T) − ŷ(0), two-samplings series, two largest H",
    },
}
