import warnings

import pytest
import torch
from omegaconf import OmegaConf

from mfx import runtime
from mfx.experiment import get
from mfx.transformer import experiments, families, model

ISSUE_CLAIMS = {
    "transformer_limit": ["slope of the error", "depth and width trade"],
    "transformer_convergence": [
        "loss decrease",
        "R² of the log-linear",
        "late decay rate",
        "identical inputs",
        "QK-only training on a translate pair",
        "contrast",
    ],
    "transformer_ntk": [
        "positive families",
        "duplicates, translates, same-cov",
        "QK-block",
        "decreases monotonically",
        "λ_min → 0",
    ],
}


@pytest.mark.parametrize("name", list(ISSUE_CLAIMS))
def test_experiment_runs_end_to_end_and_its_claims_pass(run_experiment, name):
    table = run_experiment(name, "scale=quick")
    assert (table["status"] == "ok").all()
    claims = get(name).claims(table)
    assert len(claims) == len(ISSUE_CLAIMS[name])
    for claim, words in zip(claims, ISSUE_CLAIMS[name]):
        assert words in claim.statement
        assert claim.passed, claim
    figures = get(name).plot(table)
    assert figures


@pytest.mark.parametrize(
    "override,words",
    [
        ("model.dist=cubes", "discrete, cube, laplace, gmm2, gauss, duplicates, translates, same_cov, iid"),
        ("model.base=nope", "discrete, cube, laplace, gmm2, gauss"),
        ("model.L=0", "model.L"),
        ("model.n=0", "model.n"),
        ("model.train=q", "qkv, qk, v"),
        ("model.params=[]", "model.params"),
    ],
)
def test_bad_input_exits_2_naming_the_key(mfx_main, capsys, tmp_path, override, words):
    assert mfx_main("run", "experiment=transformer_limit", override, f"out={tmp_path / 'o'}") == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_convergence_unknown_case_lists_cases(mfx_main, capsys, tmp_path):
    assert mfx_main("run", "experiment=transformer_convergence", "model.case=foo", f"out={tmp_path}") == 2
    assert "injective" in capsys.readouterr().err


def test_mean_readout_warns_on_symmetric_clouds():
    m = OmegaConf.load("conf/model/transformer.yaml")
    rt = runtime.setup()
    m.readout = "mean"
    with pytest.warns(UserWarning, match="model.readout=mean on symmetric"):
        experiments._data(m, rt)
    m.dist = "discrete"  # not symmetric: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        experiments._data(m, rt)


def test_laplace_logits_outside_the_mgf_domain_warn_naming_the_parameters():
    c = families.clouds("laplace", [1.0, 2.0], 8, 2, runtime.generator(0, "l"))
    Q, K, _V = model.init_params(1, 64, 2, [0], s_qk=3.0)
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    with pytest.warns(UserWarning, match="MGF domain.*model.beta"):
        experiments._check_laplace_domain(c, Q, K, q0, beta=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        experiments._check_laplace_domain(c, Q, K, q0, beta=1e-3)
