"""A storage node killed in the middle of a get: the read fails over to the next replica with a
clean result, and an object whose only replica died fails with a store error, never garbage.
Its own cluster, since it kills nodes."""

import os

import pytest

from cluster import Cluster, wait_for
from mooncake_osgi import ReplicateConfig, StoreClient, errors


@pytest.fixture(scope="module")
def doomed_cluster():
    c = Cluster("py-faults")
    try:
        master = c.start_master()
        c.start_storage("py-doomed-1")
        c.start_storage("py-doomed-2")
        wait_for("two storage segments", lambda: len(master.call("SEGMENTS")) == 2)
        master.close()
        yield c
    finally:
        c.stop()


def test_a_storage_node_killed_mid_get_fails_over_to_the_next_replica(doomed_cluster):
    with StoreClient(doomed_cluster.master_address) as client:
        data = os.urandom(24 << 20)
        client.put("doomed-two", data, ReplicateConfig(replica_num=2))
        alone = os.urandom(8 << 20)
        first = client.query("doomed-two")["replicas"][0]
        client.put("doomed-one", alone, ReplicateConfig(preferred_segment=first["segmentName"]))
        assert client.query("doomed-one")["replicas"][0]["segmentName"] == first["segmentName"]

        killed = []

        def kill_after_first_slice(address, moved):
            if not killed:
                killed.append(doomed_cluster.pid_serving(address))
                doomed_cluster.kill(killed[0])

        client.transport.after_slice = kill_after_first_slice
        out = bytearray(len(data))
        assert client.get_into("doomed-two", out) == len(data)
        assert killed, "the get was interrupted by the kill"
        assert out == data, "read whole from the surviving replica"
        client.transport.after_slice = None
        with pytest.raises((errors.TransferFailError, errors.ObjectNotFoundError)):
            client.get("doomed-one")
