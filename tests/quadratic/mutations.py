"""The quadratic family's SGD mistakes, one place for the can-fail tests (`test_claims_can_fail.py`) and
the command-line runner (`scripts/mutations.py`, which measures their power at any scale and seed).
Each mutation takes a `pytest.MonkeyPatch`."""

from __future__ import annotations

from mfx.quadratic import chain, sgd
from tests.power_entry import Entry


def sgd_with(monkeypatch, *, eta_factor=1.0, a_star=None, which=("overlap", "full")):
    """Wrap the SGD of `which` methods (overlap chain, full SGD): learning rate × eta_factor, labels with
    readout `a_star` instead of the model's."""
    for module in [chain] * ("overlap" in which) + [sgd] * ("full" in which):
        original = module.simulate

        def wrapped(*args, _original=original, _i=6 if module is chain else 5, **kwargs):
            args = list(args)
            i = _i  # position of eta
            args[i] = args[i] * eta_factor
            if a_star is not None:
                args[i - 1] = a_star
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, "simulate", wrapped)


# the SGD time axis off by a factor f: SGD steps at f·η while its τ axis assumes η (issue 21 §5: the goal
# is that every time-axis claim detects f = 1.1 at paper scale)
def _eta_times(f: float):
    return lambda mp: sgd_with(mp, eta_factor=f)


MUTATIONS = {f"sgd_eta_x{f:g}": _eta_times(f) for f in (1.05, 1.1, 1.2, 1.3)}


# The power table's entries (scripts/power.py): name → sized mistake over its sizes.
POWER = {
    "quad_curves_eta": Entry(
        "quad_curves", "SGD at (1 + s)·η, its τ axis assuming η", lambda mp, s: sgd_with(mp, eta_factor=1 + s)
    ),
    "quad_escape_eta": Entry(
        "quad_escape", "SGD at (1 + s)·η, its τ axis assuming η", lambda mp, s: sgd_with(mp, eta_factor=1 + s)
    ),
}
