"""put_tensor / get_tensor store the Mooncake tensor object, byte for byte the EPD connectors'
format: the same golden dump as connectors/epd-api's TensorHeaderTest."""

import os
import pathlib

import numpy as np
import pytest

from mooncake.store import MooncakeDistributedStore
from mooncake_osgi import tensor

GOLDEN = (pathlib.Path(__file__).resolve().parents[3] / "connectors" / "epd-api" / "src" / "test" / "resources"
          / "org" / "mooncake" / "osgi" / "epd" / "api" / "golden-f32-2x3.hex")
TORCH_REQUIRED = os.environ.get("MOONCAKE_PYTHON_TORCH_REQUIRED", "false") == "true"


def golden():
    """The dump's bytes: each line "offset: hex bytes", as xxd -g1 prints them, '#' lines comments."""
    lines = GOLDEN.read_text().splitlines()
    return bytes.fromhex("".join(l.split(":", 1)[1].replace(" ", "") for l in lines if ":" in l and not l.startswith("#")))


def test_the_golden_dump_is_what_the_codec_writes_and_reads():
    header, payload = tensor.numpy_parts(np.array([[0, 1, 2], [3, 4.5, -1]], dtype=np.float32))
    assert header + bytes(payload) == golden()
    assert len(header) == tensor.SIZE == 304
    array = tensor.to_numpy(golden())
    assert array.dtype == np.float32 and array.shape == (2, 3) and array[1, 1] == 4.5


@pytest.mark.parametrize("damage, why", [
    (lambda b: b.__setitem__(0, 0x12), "magic"),
    (lambda b: b.__setitem__(4, 2), "version"),
    (lambda b: b.__setitem__(8, 99), "unknown dtype"),
    (lambda b: b.__setitem__(12, 9), "ndim"),
    (lambda b: b.__setitem__(16, 1), "layout kind"),
    (lambda b: b.__setitem__(24, 0), "data offset"),
    (lambda b: b.__setitem__(32, 28), "data bytes"),
    (lambda b: b.__setitem__(40 + 16, 7), "past ndim"),
    (lambda b: b.__setitem__(200, 1), "reserved"),
])
def test_a_damaged_header_is_refused_saying_what(damage, why):
    b = bytearray(golden())
    damage(b)
    with pytest.raises(tensor.TensorFormatError, match=why):
        tensor.to_numpy(b)


@pytest.fixture
def store(cluster):
    s = MooncakeDistributedStore()
    assert s.setup("127.0.0.1", "", 0, 0, "tcp", "", cluster.master_address) == 0
    yield s
    s.remove_all(True)
    s.close()


def test_numpy_tensors_round_trip_through_the_store_as_tensor_objects(store):
    for dtype in ("float32", "float16", "int64", "uint8", "bool"):
        a = (np.arange(2 * 3 * 4) % 7).astype(dtype).reshape(2, 3, 4)
        assert store.put_tensor(f"t-{dtype}", a) == 0
        back = store.get_tensor(f"t-{dtype}", as_numpy=True)
        assert back.dtype == a.dtype and back.shape == a.shape and np.array_equal(back, a)
    raw = store.get(f"t-float32")
    assert raw[:4] == b"NOOM" and len(raw) == 304 + 24 * 4
    assert store.client.query("t-float32")["dataType"] == "TENSOR"
    assert store.get_tensor("t-missing", as_numpy=True) is None


def test_a_64_mib_tensor(store):
    a = np.random.default_rng(5).standard_normal(16 << 20, dtype=np.float32).reshape(4096, 4096)
    assert store.put_tensor("t-big", a) == 0
    assert np.array_equal(store.get_tensor("t-big", as_numpy=True), a)


def test_torch_tensors_where_torch_is_installed(store):
    try:
        import torch
    except ImportError:
        if TORCH_REQUIRED:
            pytest.fail("torch is required (-Dmooncake.python.torch.required=true): apt-get install python3-torch")
        pytest.skip("python3-torch is not installed (CI sets -Dmooncake.python.torch.required=true where it is)")
    for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.int32):
        t = torch.arange(24).reshape(2, 3, 4).to(dtype)
        assert store.put_tensor(f"tt-{dtype}", t) == 0
        back = store.get_tensor(f"tt-{dtype}")
        assert back.dtype == t.dtype and torch.equal(back, t)
    header, _ = tensor.torch_parts(torch.tensor([[0, 1, 2], [3, 4.5, -1]], dtype=torch.float32))
    assert header == golden()[:304]
