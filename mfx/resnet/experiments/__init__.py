"""The eight ResNet experiments, one module per figure (run, validate, claims, registration):

    depth   resnet_depth   Fig. 2 (error rates): error vs depth L at fixed D, one curve per M
    width   resnet_width   Fig. 2 (error rates): error vs width M at fixed L, one curve per L
    dim     resnet_dim     √D dependence (2LP bound): embedding-space error vs D at fixed L, M
    ratio   resnet_ratio   Thm 3 with D/M the controlled ratio: h_L error on a grid of M × D/M at fixed L
    departure resnet_departure  where Thm 3's bound stops holding: output error K/0, inside and beyond D = O(M)
    lazy    resnet_lazy    lazy ODE regime: alpha sweep, feature movement, distance to tangent model
    phase   resnet_phase   phase diagram: residual scale D^gamma/(LM) × the largest stable rate
    limit   resnet_limit   tight 1/L and 1/√(LM) exponents against the RK4 mean ODE (`meanode`)

`common` holds what they share (draws, the cached reference, error rows, validation); the fits that
claims and figures both evaluate are in `mfx.resnet.analysis`, the figures in `mfx.resnet.plots`.
"""

from mfx.resnet.experiments import departure, depth, dim, lazy, limit, phase, ratio, width  # noqa: F401  (importing registers them)
