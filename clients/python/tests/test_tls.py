"""The client over mutual TLS (docs/security.md): certificates from ``mooncake cert cluster``, turned
into PEM; the identity in the certificate decides what a client may do. Its own cluster: a TLS
master, a Java storage node, and Python processes contributing segments with the node certificate,
served over TLS on the tcp data path and guarded by the grants the master signs with each segment's
key."""

import os

import pytest

from cluster import LOGS, Cluster, make_certificates, pem, wait_for
from mooncake.store import MooncakeDistributedStore
from mooncake_osgi import ReplicateConfig, StoreClient, errors, tcp
from mooncake_osgi.client import tcp_address
from mooncake_osgi.grants import Grant
from mooncake_osgi.master import MasterClient, object_key


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    certs = make_certificates(tmp_path_factory.mktemp("certs"))
    c = Cluster("py-tls", tls_dir=certs)
    try:
        c.start_master().close()
        c.start_storage("py-tls-storage", segment_bytes=64 << 20)  # mounts while the first tests run
        yield c
    finally:
        c.stop()


def test_puts_and_gets_over_tls_into_a_python_contributed_segment(tls_cluster):
    certs = tls_cluster.tls_dir
    with StoreClient(tls_cluster.master_address, tls=pem(certs, "node"), global_segment_size=32 << 20) as node:
        with StoreClient(tls_cluster.master_address, tls=pem(certs, "client")) as client:
            data = os.urandom(3 << 20)
            client.put("tls-a", data, ReplicateConfig(preferred_segment=node.segment.name))
            assert client.get("tls-a") == data
            assert client.query("tls-a")["replicas"][0]["segmentName"] == node.segment.name
            with StoreClient(tls_cluster.master_address, tls=pem(certs, "client"), tenant="other") as stranger:
                with pytest.raises(errors.AccessDeniedError):
                    stranger.get("tls-a")
            client.remove("tls-a", force=True)


def test_the_data_path_is_mutual_tls_and_every_transfer_needs_its_grant(tls_cluster):
    certs = tls_cluster.tls_dir
    with StoreClient(tls_cluster.master_address, tls=pem(certs, "node"), global_segment_size=8 << 20) as node:
        with StoreClient(tls_cluster.master_address, tls=pem(certs, "client")) as client:
            client.put("tls-g", b"granted bytes", ReplicateConfig(preferred_segment=node.segment.name))
            lease = client.master.call("GET_REPLICA_LIST", object_key("default", "tls-g"))
            replica = lease["replicas"][0]
            grant = Grant.of_message(replica["grant"])
            assert replica["segmentName"] == node.segment.name and not grant.write
            address = tcp_address(replica)
            out = bytearray(13)
            client.transport.read_into(address, node.segment.name, replica["offset"], memoryview(out), grant)
            assert out == b"granted bytes"
            with pytest.raises(tcp.TransferError, match="ACCESS_DENIED"):
                client.transport.read_into(address, node.segment.name, replica["offset"], memoryview(out))
            plain = tcp.TcpRequester(timeout_s=5.0)
            try:
                with pytest.raises(tcp.TransferError):
                    plain.read_into(address, node.segment.name, replica["offset"], memoryview(out), grant)
            finally:
                plain.close()
            client.remove("tls-g", force=True)


def test_python_and_a_java_storage_node_over_tls_with_grants(tls_cluster):
    """Python writes into and reads from the Java node's segment, and the reverse direction's
    server is Python's: an object with one replica in each, both reached over TLS under grants."""
    certs = tls_cluster.tls_dir
    with StoreClient(tls_cluster.master_address, tls=pem(certs, "node"), global_segment_size=8 << 20) as node:
        with StoreClient(tls_cluster.master_address, tls=pem(certs, "client")) as client:
            admin = MasterClient(tls_cluster.master_address, 3.0, pem(certs, "admin"))
            others = lambda: [s["name"] for s in admin.call("SEGMENTS") if s["name"] != node.segment.name]  # noqa: E731
            wait_for("the Java storage node's segment", others)
            java_segment = others()[0]
            admin.close()
            serving = [line for line in (LOGS / "py-tls-storage.log").read_text().splitlines()
                       if "tcp transport serving segments" in line]
            assert serving and "(TLS(" in serving[0], (
                f"the storage node's tcp transport is plain ({serving}): the storage profile must pass tls.keystore, "
                "tls.truststore and tls.password to org.mooncake.osgi.transport.tcp")
            data = os.urandom(5 << 20)
            client.put("tls-j", data, ReplicateConfig(replica_num=2, preferred_segments=[java_segment,
                                                                                         node.segment.name]))
            lease = client.master.call("GET_REPLICA_LIST", object_key("default", "tls-j"))
            assert {r["segmentName"] for r in lease["replicas"]} == {java_segment, node.segment.name}
            assert all(r["grant"] is not None for r in lease["replicas"])
            for replica in lease["replicas"]:  # each replica, read alone over TLS under its grant
                out = bytearray(len(data))
                client.transport.read_into(tcp_address(replica), replica["segmentName"],
                                           replica["offset"], memoryview(out), Grant.of_message(replica["grant"]))
                assert out == data, replica["segmentName"]
            java = next(r for r in lease["replicas"] if r["segmentName"] == java_segment)
            plain = tcp.TcpRequester(timeout_s=5.0)
            try:
                with pytest.raises(tcp.TransferError):
                    plain.read_into(tcp_address(java), java_segment, java["offset"],
                                    memoryview(bytearray(16)), Grant.of_message(java["grant"]))
            finally:
                plain.close()
            client.remove("tls-j", force=True)


def test_without_a_certificate_the_master_is_unreachable(tls_cluster):
    with pytest.raises(errors.RpcFailError):
        MasterClient(tls_cluster.master_address, 3.0).call("SEGMENTS")


def test_setup_takes_tls_from_its_dict_and_from_the_environment(tls_cluster, monkeypatch):
    certs = tls_cluster.tls_dir
    store = MooncakeDistributedStore()
    assert store.setup({"local_hostname": "127.0.0.1", "master_server_addr": tls_cluster.master_address,
                        "global_segment_size": "0", "tls_cert": str(certs / "client.pem"),
                        "tls_key": str(certs / "client.pem"), "tls_ca": str(certs / "ca.crt")}) == 0
    assert store.is_exist("tls-none") == 0
    assert store.close() == 0
    monkeypatch.setenv("MOONCAKE_TLS_CERT", str(certs / "client.pem"))
    monkeypatch.setenv("MOONCAKE_TLS_KEY", str(certs / "client.pem"))
    monkeypatch.setenv("MOONCAKE_TLS_CA", str(certs / "ca.crt"))
    assert store.setup("127.0.0.1", "", 0, 0, "tcp", "", tls_cluster.master_address) == 0
    assert store.is_exist("tls-none") == 0
    assert store.close() == 0
    plain = MooncakeDistributedStore()
    monkeypatch.delenv("MOONCAKE_TLS_CERT")
    monkeypatch.delenv("MOONCAKE_TLS_KEY")
    monkeypatch.delenv("MOONCAKE_TLS_CA")
    assert plain.setup("127.0.0.1", "", 0, 0, "tcp", "", tls_cluster.master_address) == errors.CODES["RPC_FAIL"]
