#!/usr/bin/python3
"""Stores a block of a KV cache (a torch tensor) in a running mooncake-osgi cluster and loads it back.

    PYTHONPATH=clients/python /usr/bin/python3 clients/python/examples/torch_kv_roundtrip.py --master 127.0.0.1:50051

Two ways, as serving engines use the store:
- ``put_tensor`` / ``get_tensor``: the Mooncake tensor object (a 304-byte header with dtype and
  shape, then the bytes), so the reader needs to know nothing in advance;
- ``put_from`` / ``get_into`` with the tensor's address: the raw bytes, read straight into a
  preallocated tensor (vLLM's connector does this with its paged KV cache), no copy in Python.

TLS settings come from MOONCAKE_TLS_CERT / _KEY / _CA where the cluster has them. Exits 0 when both
round trips return the tensor bit for bit.
"""

import argparse
import sys
import uuid

import torch

from mooncake.store import MooncakeDistributedStore, ReplicateConfig


def kv_block(layers, heads, tokens, head_dim, dtype):
    """K and V of one block of tokens for every layer: [2, layers, heads, tokens, head_dim]."""
    generator = torch.Generator().manual_seed(7)
    return torch.randn(2, layers, heads, tokens, head_dim, generator=generator).to(dtype)


def check(condition, what):
    if not condition:
        sys.exit(f"round trip failed: {what}")


def main():
    p = argparse.ArgumentParser(description="put and get a KV-cache tensor through the store")
    p.add_argument("--master", default="127.0.0.1:50051", help="the master's host:port")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--tokens", type=int, default=256)
    p.add_argument("--head-dim", type=int, default=128)
    args = p.parse_args()

    store = MooncakeDistributedStore()
    rc = store.setup("127.0.0.1", "", 0, 0, "tcp", "", args.master)
    if rc != 0:
        sys.exit(f"cannot reach the master at {args.master}: code {rc}")
    prefix = f"example-kv-{uuid.uuid4().hex[:8]}"
    try:
        kv = kv_block(args.layers, args.heads, args.tokens, args.head_dim, torch.bfloat16)
        size = kv.numel() * kv.element_size()

        # 1. as a tensor object: dtype and shape travel with the bytes
        rc = store.put_tensor(f"{prefix}-obj", kv, ReplicateConfig(data_type="KVCACHE"))
        check(rc == 0, f"put_tensor returned {rc}")
        back = store.get_tensor(f"{prefix}-obj")
        check(back is not None and back.dtype == kv.dtype and back.shape == kv.shape and torch.equal(back, kv),
              "the tensor object read back differs")

        # 2. raw bytes, from the tensor's memory and into a preallocated one
        rc = store.put_from(f"{prefix}-raw", kv.data_ptr(), size, ReplicateConfig(data_type="KVCACHE"))
        check(rc == 0, f"put_from returned {rc}")
        into = torch.empty_like(kv)
        n = store.get_into(f"{prefix}-raw", into.data_ptr(), size)
        check(n == size, f"get_into returned {n}, not {size}")
        check(torch.equal(into, kv), "the raw bytes read back differ")

        print(f"KV block {tuple(kv.shape)} {kv.dtype} ({size} bytes): put_tensor/get_tensor and "
              f"put_from/get_into round trips are bit for bit")
    finally:
        store.remove(f"{prefix}-obj", True)
        store.remove(f"{prefix}-raw", True)
        store.close()


if __name__ == "__main__":
    main()
