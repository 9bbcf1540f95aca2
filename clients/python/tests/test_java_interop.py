"""Keys written by the Java client read by Python and the reverse, byte for byte; and objects held
in a segment the Python process contributes, served by its thread, read by the Java client. Both
sides' segments check grants: each reads the other's only under the grants the master signed."""

import os

import pytest

from java_peer import run
from mooncake_osgi import ReplicateConfig, StoreClient, tcp
from mooncake_osgi.master import object_key

SIZES = (1, 70_000, 5 << 20)


def test_java_writes_python_reads_and_the_reverse(cluster, tmp_path):
    with StoreClient(cluster.master_address) as client:
        ops, mine, theirs = [], {}, {}
        for size in SIZES:
            theirs[size] = os.urandom(size)
            (tmp_path / f"in-{size}").write_bytes(theirs[size])
            ops.append(f"put:j2p-{size}:{tmp_path}/in-{size}:2")
            mine[size] = os.urandom(size)
            client.put(f"p2j-{size}", mine[size])
            ops.append(f"get:p2j-{size}:{tmp_path}/out-{size}")
        status, err = run(cluster.master_address, *ops)
        assert status == 0, err
        for size in SIZES:
            assert (tmp_path / f"out-{size}").read_bytes() == mine[size], "Python's object read by Java"
            assert client.get(f"j2p-{size}") == theirs[size], "Java's object read by Python"
        status, err = run(cluster.master_address, f"get:p2j-none:{tmp_path}/none")
        assert status == 3 and " OBJECT_NOT_FOUND: " in err, err
        client.remove_all(force=True)


def test_a_java_segment_refuses_a_python_request_without_its_grant(cluster):
    with StoreClient(cluster.master_address) as client:
        client.put("jg-a", b"java-held bytes")
        replica = client.master.call("GET_REPLICA_LIST", object_key("default", "jg-a"))["replicas"][0]
        assert replica["grant"]["write"] is False, "the storage node mounted its segment with a grant key"
        address = next(e["address"] for e in replica["endpoints"] if e["protocol"] == "tcp")
        out = bytearray(15)
        with pytest.raises(tcp.TransferError, match="ACCESS_DENIED"):
            client.transport.read_into(address, replica["segmentName"], replica["offset"], memoryview(out))
        assert out == bytes(15)
        client.remove("jg-a", force=True)


def test_java_reads_objects_held_in_a_python_contributed_segment(cluster, tmp_path):
    with StoreClient(cluster.master_address, global_segment_size=64 << 20) as owner:
        segment = owner.segment.name
        assert any(s["name"] == segment for s in owner.segments())
        data = os.urandom(9 << 20)
        owner.put("py-held", data, ReplicateConfig(preferred_segment=segment))
        assert [r["segmentName"] for r in owner.query("py-held")["replicas"]] == [segment]
        status, err = run(cluster.master_address, f"get:py-held:{tmp_path}/out")
        assert status == 0, err
        assert (tmp_path / "out").read_bytes() == data
        with StoreClient(cluster.master_address) as reader:
            assert reader.get("py-held") == data
        owner.remove("py-held", force=True)
    with StoreClient(cluster.master_address) as after:
        assert all(s["name"] != segment for s in after.segments()), "close unmounted the segment"
