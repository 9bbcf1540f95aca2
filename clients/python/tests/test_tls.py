"""The client over the master RPC's mutual TLS (docs/security.md): certificates from ``mooncake
cert cluster``, turned into PEM; the identity in the certificate decides what a client may do. Its
own cluster: a TLS master, and a Python process contributing the segment with the node certificate."""

import os

import pytest

from cluster import Cluster, make_certificates, pem
from mooncake.store import MooncakeDistributedStore
from mooncake_osgi import StoreClient, errors
from mooncake_osgi.master import MasterClient


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    certs = make_certificates(tmp_path_factory.mktemp("certs"))
    c = Cluster("py-tls", tls_dir=certs)
    try:
        c.start_master().close()
        yield c
    finally:
        c.stop()


def test_puts_and_gets_over_tls_into_a_python_contributed_segment(tls_cluster):
    certs = tls_cluster.tls_dir
    with StoreClient(tls_cluster.master_address, tls=pem(certs, "node"), global_segment_size=32 << 20) as node:
        with StoreClient(tls_cluster.master_address, tls=pem(certs, "client")) as client:
            data = os.urandom(3 << 20)
            client.put("tls-a", data)
            assert client.get("tls-a") == data
            assert client.query("tls-a")["replicas"][0]["segmentName"] == node.segment.name
            with StoreClient(tls_cluster.master_address, tls=pem(certs, "client"), tenant="other") as stranger:
                with pytest.raises(errors.AccessDeniedError):
                    stranger.get("tls-a")
            client.remove("tls-a", force=True)


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
