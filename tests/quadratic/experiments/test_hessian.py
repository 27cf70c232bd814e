from sweep_checks import quick_sweep_test


def test_quad_hessian_quick(quick_table, claims_of):
    claims = claims_of("quad_hessian")
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    # per (p, p*) of 3 p × 2 p* (p* = 1 with p > 1: the manifold of issue 38 §5): 2 constructed states × 3,
    # (ODE, SGD) × 4 at the reached minimum (p > 1: positive dimension) and × 3 at the reached plateau, and the
    # ODE's flat plateau
    assert len(claims) == 6 * (2 * 3 + 2 * 4 + 2 * 3 + 1)
    assert {c.statement.rsplit("p*=", 1)[1] for c in claims} == {"1", "2"}
    constructed = [c for c in claims if "reaches" not in c.statement]
    # closed forms at built states: derived checks (a wrong risk, q̄ or s fails them), not identities
    assert {c.kind for c in constructed} == {"derived"}
    assert all(c.statement_id for c in claims)
    saddle = [c for c in claims if "is a saddle" in c.statement]
    assert len(saddle) == 12 and {c.kind for c in saddle} == {"paper"}
    assert all(c.measured <= -0.5 for c in saddle)
    reached = [c for c in claims if "minimum" in c.statement and "reaches" in c.statement]
    assert {c.kind for c in reached} == {"paper"}
    dimension = [c for c in claims if "manifold of positive dimension" in c.statement]
    assert len(dimension) == 12 and all(c.measured >= 1 for c in dimension)
    flat = [c for c in claims if "is flat in most directions" in c.statement]
    assert len(flat) == 6 and {c.kind for c in flat} == {"paper"} and all(c.measured > 0.99 for c in flat)
    assert all("Bocchi" in c.source for c in claims if c.kind == "paper")


test_quick_sweep_reads = quick_sweep_test("quad_hessian")
