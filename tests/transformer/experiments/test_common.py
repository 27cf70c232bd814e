import warnings

import pytest
import torch
from omegaconf import OmegaConf

from mfx import runtime
from mfx.transformer import families, model
from mfx.transformer.experiments import common


def test_mean_readout_warns_on_symmetric_clouds():
    m = OmegaConf.load("conf/model/transformer.yaml")
    rt = runtime.setup()
    m.readout = "mean"
    with pytest.warns(UserWarning, match="model.readout=mean on symmetric"):
        common._data(m, rt)
    m.dist = "discrete"  # not symmetric: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        common._data(m, rt)


def test_laplace_logits_outside_the_mgf_domain_warn_naming_the_parameters():
    c = families.clouds("laplace", [1.0, 2.0], 8, 2, runtime.generator(0, "l"))
    Q, K, _V = model.init_params(1, 64, 2, [0], s_qk=3.0)
    q0 = torch.tensor([1.0, 0.5], dtype=torch.float64)
    with pytest.warns(UserWarning, match="MGF domain.*model.beta"):
        common._check_laplace_domain(c, Q, K, q0, beta=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        common._check_laplace_domain(c, Q, K, q0, beta=1e-3)
