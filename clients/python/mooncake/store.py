"""``mooncake.store`` as upstream names it, served by mooncake_osgi."""

from mooncake_osgi.client import ReplicateConfig
from mooncake_osgi.store import MooncakeDistributedStore

__all__ = ["MooncakeDistributedStore", "ReplicateConfig"]
