"""A pure-Python client of the mooncake-osgi store: upstream Mooncake's ``MooncakeDistributedStore``
API (:mod:`mooncake_osgi.store`) and a Pythonic one raising exceptions (:mod:`mooncake_osgi.client`).

It speaks the master RPC and the tcp transport of docs/protocol.md; it starts no process and loads
no JVM. Its dependencies are Debian's python3-cbor2, python3-xxhash and python3-numpy.
"""

from .client import ReplicateConfig, StoreClient
from .errors import StoreError
from .store import MooncakeDistributedStore

__all__ = ["MooncakeDistributedStore", "ReplicateConfig", "StoreClient", "StoreError"]
