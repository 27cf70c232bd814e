def test_quad_implicit_bias_quick(quick_table, claims_of):
    table = quick_table("quad_implicit_bias")
    claims = claims_of("quad_implicit_bias", table)
    assert {c.statement.split(",")[0] for c in claims} >= {
        "ODE drift ||S(t) − S(0)||_F up to tau = 200",
        "ODE final polar factor vs polar(rho0)",
        "SGD drift exponent vs eta",
        "anisotropic-teacher drift",
    }
