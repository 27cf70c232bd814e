from sweep_checks import quick_sweep_test


def test_quad_hessian_quick(quick_table, claims_of):
    claims = claims_of("quad_hessian")
    statements = " ".join(c.statement for c in claims)
    assert "negative eigenvalues at the plateau" in statements and "at the solution" in statements
    # per (p, p*) of p ∈ {2, 3, 4} × p* ∈ {1, 2} (p* = 1 with p > 1: the manifold of issue 38 §5): 2 constructed
    # states × 3, (ODE, SGD) × 4 at the reached minimum (p > 1: positive dimension) and × 3 at the reached
    # plateau, and the ODE's flat plateau; p = 1: (1, 1) with 3 per method at its isolated minimum, (1, 2) with
    # no solution state and no minimum
    assert len(claims) == 6 * (2 * 3 + 2 * 4 + 2 * 3 + 1) + (2 * 3 + 2 * 3 + 2 * 3 + 1) + (3 + 2 * 3 + 1)
    assert {c.statement.rsplit("p*=", 1)[1] for c in claims} == {"1", "2"}
    constructed = [c for c in claims if "reaches" not in c.statement]
    # closed forms at built states: derived checks (a wrong risk, q̄ or s fails them), not identities
    assert {c.kind for c in constructed} == {"derived"}
    assert all(c.statement_id for c in claims)
    saddle = [c for c in claims if "is a saddle" in c.statement]
    assert len(saddle) == 16 and {c.kind for c in saddle} == {"paper"}
    assert all(c.measured <= -0.5 for c in saddle)
    reached = [c for c in claims if "minimum" in c.statement and "reaches" in c.statement]
    # derived: no extra zero mode at p = p* (no sized mistake); identity: no rotation at p = 1
    assert {c.kind for c in reached if "p=1, p*=1" not in c.statement and "p=2, p*=2" not in c.statement} == {
        "paper"
    }
    isolated = [c for c in reached if "is isolated" in c.statement]
    assert len(isolated) == 2 and {c.statement_id for c in isolated} == {"bocchi.manifold/isolated"}
    # every count is read on every seed: u from their agreement, never 0 for these random draws
    counts = [c for c in reached if c.kind != "identity"]
    assert all(c.u > 0 and "seeds agree" in c.how for c in counts)
    dimension = [c for c in claims if "manifold of positive dimension" in c.statement]
    assert len(dimension) == 12 and all(c.measured >= 1 for c in dimension)
    flat = [c for c in claims if "is flat in most directions" in c.statement]
    assert len(flat) == 8 and {c.kind for c in flat} == {"paper"} and all(c.measured > 0.99 for c in flat)
    assert all("Bocchi" in c.source for c in claims if c.kind == "paper")


test_quick_sweep_reads = quick_sweep_test("quad_hessian")
