import json
import os
import platform
import threading
import warnings

import pytest
import torch
from omegaconf import OmegaConf

from mfx import cache, locks, runtime
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


def test_shared_artifact_is_computed_once_while_another_process_holds_the_lock(tmp_path):
    """Parallel jobs (joblib, submitit) wait for the one computing the reference, then load it."""
    key = {"what": "reference"}
    folder = tmp_path / "locks" / f"ref-{cache.key_hash(key)}"
    folder.mkdir(parents=True)
    (folder / locks.LOCK).write_text(json.dumps({"host": platform.node(), "pid": os.getpid()}))
    calls, got = [], {}

    def waiter():
        got["value"] = common._shared("ref", key, lambda: calls.append(1) or {"x": torch.ones(2)}, tmp_path)

    th = threading.Thread(target=waiter)
    th.start()
    th.join(0.5)
    assert th.is_alive()  # waits while the lock is held
    cache.cached("ref", key, lambda: {"x": torch.full((2,), 7.0)}, root=tmp_path)  # the holder computes
    (folder / locks.LOCK).unlink()
    th.join(10)
    assert not calls and torch.equal(got["value"]["x"], torch.full((2,), 7.0))
