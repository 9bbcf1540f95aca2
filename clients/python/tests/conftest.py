import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from cluster import Cluster, wait_for  # noqa: E402


@pytest.fixture(scope="session")
def cluster():
    """A master and two storage nodes of 256 MiB, shared by the session's tests."""
    c = Cluster()
    try:
        master = c.start_master()
        c.start_storage("py-storage-1")
        c.start_storage("py-storage-2")
        wait_for("two storage segments", lambda: len(master.call("SEGMENTS")) == 2)
        master.close()
        yield c
    finally:
        c.stop()
