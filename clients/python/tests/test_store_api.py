"""Upstream's MooncakeDistributedStore calls against a real cluster, with upstream's return values."""

import ctypes
import math

import numpy as np
import pytest

from mooncake.store import MooncakeDistributedStore, ReplicateConfig
from mooncake_osgi import errors


@pytest.fixture
def store(cluster):
    s = MooncakeDistributedStore()
    assert s.setup("127.0.0.1", "unused-metadata-server", 0, 16 << 20, "tcp", "", cluster.master_address) == 0
    yield s
    s.remove_all(True)
    assert s.close() == 0


def addr(array):
    return array.ctypes.data


def test_setup_positional_and_dict_forms_and_a_bad_master(cluster):
    s = MooncakeDistributedStore()
    assert s.setup({"local_hostname": "127.0.0.1", "metadata_server": "", "global_segment_size": "0",
                    "local_buffer_size": str(1 << 20), "protocol": "rdma", "rdma_devices": "",
                    "master_server_addr": cluster.master_address}) == 0
    assert s.close() == 0
    dead = MooncakeDistributedStore()
    assert dead.setup("127.0.0.1", "", 0, 0, "tcp", "", "127.0.0.1:1") == errors.CODES["RPC_FAIL"]
    assert dead.put("k", b"v") == errors.CODES["INTERNAL_ERROR"], "a store not set up fails every call"
    assert dead.get("k") == b"" and dead.batch_is_exist(["k"]) == [-1]


def test_put_get_and_metadata_calls(store):
    assert store.put("api-a", b"hello") == 0
    assert store.put("api-a", b"other") == 0, "an existing key is kept, as upstream's put does"
    assert store.get("api-a") == b"hello"
    assert store.get("api-missing") == b""
    assert store.is_exist("api-a") == 1 and store.is_exist("api-missing") == 0
    assert store.batch_is_exist(["api-a", "api-missing"]) == [1, 0]
    assert store.get_size("api-a") == 5
    assert store.get_size("api-missing") == errors.CODES["OBJECT_NOT_FOUND"]
    assert store.remove("api-a") == errors.CODES["OBJECT_HAS_LEASE"], "just read: its lease holds"
    assert store.remove("api-a", True) == 0
    assert store.remove("api-a") == errors.CODES["OBJECT_NOT_FOUND"]
    assert store.put("api bad key", b"x") == errors.CODES["INVALID_KEY"]
    assert store.put_parts("api-parts", b"ab", memoryview(b"cd"), bytearray(b"ef")) == 0
    assert store.get("api-parts") == b"abcdef"


def test_put_from_get_into_with_addresses(store):
    src = np.random.default_rng(1).integers(0, 255, 3 << 20, dtype=np.uint8)
    assert store.register_buffer(addr(src), src.nbytes) == 0
    assert store.put_from("api-buf", addr(src), src.nbytes, ReplicateConfig(replica_num=2)) == 0
    dst = np.zeros(4 << 20, dtype=np.uint8)
    assert store.get_into("api-buf", addr(dst), dst.nbytes) == src.nbytes
    assert np.array_equal(dst[:src.nbytes], src)
    small = np.zeros(10, dtype=np.uint8)
    assert store.get_into("api-buf", addr(small), small.nbytes) == errors.CODES["BUFFER_TOO_SMALL"]
    assert store.get_into("api-none", addr(dst), dst.nbytes) == errors.CODES["OBJECT_NOT_FOUND"]
    assert store.unregister_buffer(addr(src)) == 0
    assert store.unregister_buffer(addr(src)) < 0


def test_batch_calls(store):
    bufs = [np.full(1000 + i, i, dtype=np.uint8) for i in range(4)]
    keys = [f"api-batch-{i}" for i in range(4)]
    assert store.batch_put_from(keys, [addr(b) for b in bufs], [b.nbytes for b in bufs]) == [0, 0, 0, 0]
    outs = [np.zeros(2000, dtype=np.uint8) for _ in range(5)]
    got = store.batch_get_into(keys + ["api-batch-none"], [addr(o) for o in outs], [o.nbytes for o in outs])
    assert got == [1000, 1001, 1002, 1003, errors.CODES["OBJECT_NOT_FOUND"]]
    assert all(np.all(outs[i][:1000 + i] == i) for i in range(4))
    handles = store.batch_get_buffer(keys[:2] + ["api-batch-none"])
    assert handles[2] is None
    assert handles[1].size() == 1001 and len(handles[1]) == 1001 and bytes(handles[1]) == bytes([1]) * 1001
    assert ctypes.string_at(handles[0].ptr(), 3) == b"\0\0\0"
    assert store.remove_by_regex("^api-batch-[01]$", True) == 2
    assert store.batch_is_exist(keys) == [0, 0, 1, 1]
    assert store.remove_all(True) == 2


def test_our_replicate_config_additions_reach_the_master(store):
    config = ReplicateConfig(replica_num=2, with_soft_pin=True, data_type="KVCACHE", recompute_cost_ms=12.5,
                             group_id="conversation-a", group_only=False)
    assert store.put("api-config", b"x" * 100, config) == 0
    info = store.client.query("api-config")
    assert info["dataType"] == "KVCACHE" and info["recomputeCostMs"] == 12.5 and info["groupId"] == "conversation-a"
    assert len(info["replicas"]) == 2
    assert math.isnan(ReplicateConfig().recompute_cost_ms)
