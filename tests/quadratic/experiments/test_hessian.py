def test_quad_hessian_quick(run_experiment, claims_of):
    table = run_experiment("quad_hessian", "scale=quick")
    claims = claims_of("quad_hessian", table)
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    assert len(claims) == 3 * 2 * 3  # 3 values of p × 2 states × 3 claims
