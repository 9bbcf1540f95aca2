"""The examples run against the test cluster, as a user would run them."""

import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
TORCH_REQUIRED = os.environ.get("MOONCAKE_PYTHON_TORCH_REQUIRED", "false") == "true"


def test_torch_kv_roundtrip(cluster):
    try:
        import torch  # noqa: F401
    except ImportError:
        if TORCH_REQUIRED:
            pytest.fail("torch is required (-Dmooncake.python.torch.required=true): apt-get install python3-torch")
        pytest.skip("python3-torch is not installed (CI sets -Dmooncake.python.torch.required=true where it is)")
    env = dict(os.environ, PYTHONPATH=str(EXAMPLES.parent))
    p = subprocess.run([sys.executable, str(EXAMPLES / "torch_kv_roundtrip.py"), "--master", cluster.master_address],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr
    assert "round trips are bit for bit" in p.stdout
