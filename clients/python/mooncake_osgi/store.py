"""Upstream Mooncake's ``MooncakeDistributedStore`` (``mooncake-integration/store/store_py.cpp``),
with its signatures and return values, over :class:`~mooncake_osgi.client.StoreClient`.

Calls return 0 or a negative error code (bytes read for the ``get_into`` family, 1 / 0 / -1 for
``is_exist``), never raise for a store failure; ``get`` returns ``b""`` on failure, as upstream.
Buffers are passed as integer addresses and sizes, read and written in place through ``ctypes``.
"""

import ctypes
import logging
import os

from . import errors, tensor
from .client import ReplicateConfig, StoreClient
from .connect import TlsSettings

LOG = logging.getLogger(__name__)
SETUP_KEYS = ("local_hostname", "metadata_server", "global_segment_size", "local_buffer_size", "protocol",
              "rdma_devices", "master_server_addr")


def memory_at(address, size):
    """A writable memoryview of ``size`` bytes at ``address`` (no copy)."""
    if size == 0:
        return memoryview(bytearray(0))
    if not address:
        raise errors.InvalidParamsError("buffer address is 0")
    return memoryview((ctypes.c_char * size).from_address(address)).cast("B")


def _size(value):
    """A size as upstream's dict form gives it: an int or its decimal string."""
    return int(value) if not isinstance(value, str) else int(value.strip() or 0)


class BufferHandle(bytearray):
    """An object read by ``batch_get_buffer``: a buffer with upstream's ``ptr()`` and ``size()``."""

    def ptr(self):
        return ctypes.addressof((ctypes.c_char * len(self)).from_buffer(self)) if len(self) else 0

    def size(self):
        return len(self)


class MooncakeDistributedStore:
    def __init__(self):
        self._client = None
        self._registered = {}

    def _guard(self, call, failure_value=None):
        """``call``'s result, or on a store failure ``failure_value`` (default: the negative code)."""
        if self._client is None:
            LOG.error("the store is not set up")
            return errors.CODES["INTERNAL_ERROR"] if failure_value is None else failure_value
        try:
            return call(self._client)
        except errors.StoreError as e:
            LOG.debug("store call failed: %s", e)
            return e.code if failure_value is None else failure_value

    # -- setup ---------------------------------------------------------------------------------

    def setup(self, local_hostname, metadata_server=None, global_segment_size=16 << 20, local_buffer_size=16 << 20,
              protocol="tcp", rdma_devices="", master_server_addr="127.0.0.1:50051", engine=None):
        """Connects to the master; ``setup(dict)`` takes the same names as keys, plus this store's
        ``tenant``, ``client_id``, ``tls_cert`` / ``tls_key`` / ``tls_ca`` and ``tls_data_path``. Returns 0 or a
        negative code.
        ``metadata_server``, ``local_buffer_size``, ``rdma_devices`` and ``engine`` have no use here (the
        master keeps the metadata, data moves over tcp straight into the caller's buffers)."""
        if isinstance(local_hostname, dict):
            config = dict(local_hostname)
        else:
            config = dict(zip(SETUP_KEYS, (local_hostname, metadata_server, global_segment_size, local_buffer_size,
                                           protocol, rdma_devices, master_server_addr)))
        if config.get("protocol", "tcp") != "tcp":
            LOG.warning("protocol %s is not served by this client; using tcp", config.get("protocol"))
        try:
            self._client = StoreClient(
                config.get("master_server_addr") or config.get("master_server_address") or "127.0.0.1:50051",
                tenant=config.get("tenant") or os.environ.get("MOONCAKE_TENANT", "default"),
                client_id=config.get("client_id") or os.environ.get("MOONCAKE_CLIENT_ID"),
                tls=TlsSettings.of(config),
                global_segment_size=_size(config.get("global_segment_size", 0)),
                local_hostname=config.get("local_hostname") or "127.0.0.1")
            self._client.master.call("SEGMENTS")  # reach the master now (any identity may): a bad address fails setup
            return 0
        except errors.StoreError as e:
            LOG.error("setup failed: %s", e)
            self._close_quietly()
            return e.code
        except (OSError, ValueError) as e:
            LOG.error("setup failed: %s", e)
            self._close_quietly()
            return errors.CODES["INVALID_PARAMS"] if isinstance(e, ValueError) else errors.CODES["RPC_FAIL"]

    def _close_quietly(self):
        if self._client is not None:
            try:
                self._client.close()
            except errors.StoreError:
                pass
            self._client = None

    def close(self):
        if self._client is None:
            return 0
        try:
            self._client.close()
            return 0
        except errors.StoreError as e:
            return e.code
        finally:
            self._client = None

    @property
    def client(self):
        """The Pythonic client underneath (None before setup)."""
        return self._client

    # -- buffers ---------------------------------------------------------------------------------

    def register_buffer(self, buffer_ptr, size):
        """Records a buffer (tcp needs no registration: any address works; kept for upstream's callers)."""
        if not buffer_ptr or size <= 0:
            return errors.CODES["INVALID_PARAMS"]
        self._registered[buffer_ptr] = size
        return 0

    def unregister_buffer(self, buffer_ptr):
        return 0 if self._registered.pop(buffer_ptr, None) is not None else errors.CODES["INVALID_PARAMS"]

    # -- put -----------------------------------------------------------------------------------

    def _put(self, c, key, views, config):
        try:
            c.put(key, views, config)
        except errors.ObjectAlreadyExistsError:
            pass  # as upstream's client: the object is there (keys name content)
        return 0

    def put(self, key, value, config=None):
        return self._guard(lambda c: self._put(c, key, [memoryview(value).cast("B")], config or ReplicateConfig()))

    def put_parts(self, key, *parts, config=None):
        return self._guard(lambda c: self._put(c, key, [memoryview(p).cast("B") for p in parts],
                                               config or ReplicateConfig()))

    def put_from(self, key, buffer_ptr, size, config=None):
        return self._guard(lambda c: self._put(c, key, [memory_at(buffer_ptr, size)], config or ReplicateConfig()))

    def batch_put_from(self, keys, buffer_ptrs, sizes, config=None):
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [errors.CODES["INVALID_PARAMS"]] * len(keys)
        return self._batch_put(keys, [[memory_at(p, s)] for p, s in zip(buffer_ptrs, sizes)], config)

    def batch_put_from_multi_buffers(self, keys, all_buffer_ptrs, all_sizes, config=None):
        """Each key's object is the concatenation of its buffers."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [errors.CODES["INVALID_PARAMS"]] * len(keys)
        return self._batch_put(keys, [[memory_at(p, s) for p, s in zip(ps, ss)]
                                      for ps, ss in zip(all_buffer_ptrs, all_sizes)], config)

    def put_batch(self, keys, values, config=None):
        results = self._batch_put(keys, [[memoryview(v).cast("B")] for v in values], config)
        return next((r for r in results if r != 0), 0) if isinstance(results, list) else results

    def _batch_put(self, keys, views, config):
        def run(c):
            out = c.put_batch(keys, views, config or ReplicateConfig())
            return [0 if r is None or isinstance(r, errors.ObjectAlreadyExistsError) else r.code for r in out]
        result = self._guard(run)
        return result if isinstance(result, list) else [result] * len(keys)

    # -- get -----------------------------------------------------------------------------------

    def get(self, key):
        result = self._guard(lambda c: bytes(c.get(key)), b"")
        return result if isinstance(result, bytes) else b""

    def get_buffer(self, key):
        def run(c):
            out = BufferHandle(c.size(key))
            c.get_into(key, out)
            return out
        result = self._guard(run)
        return result if isinstance(result, BufferHandle) else None

    def batch_get_buffer(self, keys):
        return [self.get_buffer(k) for k in keys]

    def get_batch(self, keys):
        return [self.get(k) for k in keys]

    def get_into(self, key, buffer_ptr, size):
        return self._guard(lambda c: c.get_into(key, memory_at(buffer_ptr, size)))

    def batch_get_into(self, keys, buffer_ptrs, sizes):
        if not len(keys) == len(buffer_ptrs) == len(sizes):
            return [errors.CODES["INVALID_PARAMS"]] * len(keys)
        return self._batch_get(keys, [[memory_at(p, s)] for p, s in zip(buffer_ptrs, sizes)])

    def batch_get_into_multi_buffers(self, keys, all_buffer_ptrs, all_sizes, prefer_same_node=True):
        """Each key's object is read across its buffers in order; per key bytes read or a negative code."""
        if not len(keys) == len(all_buffer_ptrs) == len(all_sizes):
            return [errors.CODES["INVALID_PARAMS"]] * len(keys)
        return self._batch_get(keys, [[memory_at(p, s) for p, s in zip(ps, ss)]
                                      for ps, ss in zip(all_buffer_ptrs, all_sizes)])

    def _batch_get(self, keys, views):
        def run(c):
            return [r if isinstance(r, int) else r.code for r in c.get_batch_into(keys, views)]
        result = self._guard(run)
        return result if isinstance(result, list) else [result] * len(keys)

    # -- metadata ------------------------------------------------------------------------------

    def is_exist(self, key):
        result = self._guard(lambda c: 1 if c.exists(key) else 0)
        return result if result in (0, 1) else -1

    def batch_is_exist(self, keys):
        result = self._guard(lambda c: [1 if r is True else 0 if r is False else -1 for r in c.exists_batch(keys)])
        return result if isinstance(result, list) else [-1] * len(keys)

    def get_size(self, key):
        return self._guard(lambda c: c.size(key))

    def remove(self, key, force=False):
        return self._guard(lambda c: c.remove(key, force) or 0)

    def remove_by_regex(self, regex_pattern, force=False):
        return self._guard(lambda c: c.remove_by_regex(regex_pattern, force))

    def remove_all(self, force=False):
        return self._guard(lambda c: c.remove_all(force))

    # -- tensors -------------------------------------------------------------------------------

    def put_tensor(self, key, value, config=None):
        """Stores a numpy array or torch tensor as a Mooncake tensor object; 0 or a negative code."""
        try:
            header, payload = tensor.torch_parts(value) if tensor.is_torch(value) else tensor.numpy_parts(value)
        except tensor.TensorFormatError as e:
            LOG.error("put_tensor %s: %s", key, e)
            return errors.CODES["INVALID_PARAMS"]
        config = config or ReplicateConfig(data_type="TENSOR")
        return self._guard(lambda c: self._put(c, key, [memoryview(header), payload], config))

    def get_tensor(self, key, as_numpy=None):
        """The tensor stored under ``key`` (torch where installed, else numpy; ``as_numpy`` chooses), or None."""
        buf = self.get_buffer(key)
        if buf is None:
            return None
        try:
            if as_numpy is None:
                try:
                    import torch  # noqa: F401
                    as_numpy = False
                except ImportError:
                    as_numpy = True
            return tensor.to_numpy(buf) if as_numpy else tensor.to_torch(buf)
        except tensor.TensorFormatError as e:
            LOG.error("get_tensor %s: %s", key, e)
            return None
