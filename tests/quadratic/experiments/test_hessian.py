def test_quad_hessian_quick(quick_table, claims_of):
    table = quick_table("quad_hessian")
    claims = claims_of("quad_hessian", table)
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    assert len(claims) == 3 * 2 * 3  # 3 values of p × 2 states × 3 claims
