"""A shim for code written against upstream Mooncake: ``from mooncake.store import
MooncakeDistributedStore, ReplicateConfig`` works without upstream installed, on mooncake_osgi.
Put this directory on ``sys.path`` only where upstream's ``mooncake`` package is not installed."""
