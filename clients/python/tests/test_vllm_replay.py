"""The calls vLLM's MooncakeStoreConnector makes on the store, in its order and with its argument
types, replayed against a real cluster through the ``mooncake.store`` shim.

Source: vllm-project/vllm, vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/worker.py
and store/data.py at commit 6d6eb50d7926f6f72b1980c35738ae75454d7ab4 (docs/python.md):
``MooncakeStoreWorker.__init__`` builds the store and calls ``setup(dict)`` with the sizes as
strings; ``register_kv_caches`` calls ``register_buffer(base_addr, region_len)`` per KV-cache
storage; the sending thread calls ``batch_is_exist(keys)`` and ``batch_put_from_multi_buffers(keys,
addrs, sizes)`` for the missing keys (one address and size per K/V segment of a block); the
receiving thread ``batch_get_into_multi_buffers(keys, addrs, sizes)``; ``lookup`` calls
``batch_is_exist`` again. Keys look like ``model@tp_rank:0@pcp0@dcp0@pp_rank:0@<hash>``.
"""

import numpy as np

from mooncake.store import MooncakeDistributedStore

BLOCK_LEN = 16 * 1024  # bytes of one block in one K or V segment
NUM_BLOCKS = 8


def key(block_hash):
    return f"Qwen2.5-7B-Instruct@tp_rank:0@pcp0@dcp0@pp_rank:0@{block_hash}"


def test_the_connectors_calls_in_order(cluster):
    # a K/V-first layout: one storage of 2 x NUM_BLOCKS blocks, K segment then V segment
    kv = np.random.default_rng(3).integers(0, 255, 2 * NUM_BLOCKS * BLOCK_LEN, dtype=np.uint8)
    base = kv.ctypes.data
    bases = [base, base + NUM_BLOCKS * BLOCK_LEN]

    store = MooncakeDistributedStore()
    config = {"local_hostname": "127.0.0.1", "metadata_server": "P2PHANDSHAKE",
              "global_segment_size": str(0), "local_buffer_size": str(64 << 20), "protocol": "tcp",
              "rdma_devices": "", "master_server_addr": cluster.master_address}
    assert store.setup(config) == 0
    assert store.register_buffer(base, kv.nbytes) == 0

    hashes = [f"{i:064x}" for i in range(4)]
    keys = [key(h) for h in hashes]
    block_ids = [5, 1, 7, 2]

    def prepare_value(block_id):
        return [b + block_id * BLOCK_LEN for b in bases], [BLOCK_LEN, BLOCK_LEN]

    exists = store.batch_is_exist(keys)
    assert exists == [0, 0, 0, 0] and all(type(e) is int for e in exists)
    missing = [i for i, e in enumerate(exists) if e != 1]
    addrs, sizes = zip(*(prepare_value(block_ids[i]) for i in missing))
    res = store.batch_put_from_multi_buffers([keys[i] for i in missing], list(addrs), list(sizes))
    assert res == [0, 0, 0, 0] and all(type(r) is int for r in res)
    assert store.batch_is_exist(keys + [key("f" * 64)]) == [1, 1, 1, 1, 0]  # the lookup

    # another engine's cache receives them into other blocks
    dst = np.zeros_like(kv)
    dst_bases = [dst.ctypes.data, dst.ctypes.data + NUM_BLOCKS * BLOCK_LEN]
    target_ids = [0, 3, 4, 6]
    addrs = [[b + t * BLOCK_LEN for b in dst_bases] for t in target_ids]
    res = store.batch_get_into_multi_buffers(keys, addrs, [[BLOCK_LEN, BLOCK_LEN]] * 4)
    assert res == [2 * BLOCK_LEN] * 4
    for src_id, dst_id in zip(block_ids, target_ids):
        for seg in range(2):
            at_src = seg * NUM_BLOCKS * BLOCK_LEN + src_id * BLOCK_LEN
            at_dst = seg * NUM_BLOCKS * BLOCK_LEN + dst_id * BLOCK_LEN
            assert np.array_equal(kv[at_src:at_src + BLOCK_LEN], dst[at_dst:at_dst + BLOCK_LEN])
    assert store.remove_by_regex("^Qwen2\\.5-7B-Instruct@.*", True) == 4
    assert store.close() == 0
