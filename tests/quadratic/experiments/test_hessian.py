from sweep_checks import quick_sweep_test


def test_quad_hessian_quick(quick_table, claims_of):
    claims = claims_of("quad_hessian")
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    assert len(claims) == 3 * 2 * 3 + 3 * 2 * 3  # 3 p × 2 constructed states × 3, 3 p × (ODE, SGD) × 3
    constructed = [c for c in claims if "reaches" not in c.statement]
    assert {c.kind for c in constructed} == {"identity"}
    assert {c.kind for c in claims if c not in constructed} == {"paper"}
    assert all("Bocchi" in c.source for c in claims if c.kind == "paper")


test_quick_sweep_reads = quick_sweep_test("quad_hessian")
