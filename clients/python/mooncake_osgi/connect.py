"""How this client reaches other processes: plain TCP, or mutual TLS with the cluster's CA.

TLS is switched on by a certificate, a key and the CA (PEM files; ``mooncake cert`` makes PKCS12
stores, ``openssl pkcs12 -nodes`` turns one into PEM), given in ``setup``'s dict form (``tls_cert``,
``tls_key``, ``tls_ca``) or in the environment (``MOONCAKE_TLS_CERT``, ``MOONCAKE_TLS_KEY``,
``MOONCAKE_TLS_CA``). Like the Java side (``ClusterTls``) it speaks TLS 1.3 only and trusts the
cluster CA alone; host names are not checked, the CA is the trust anchor. The same settings
secure the tcp data path (connections to peers' segments and this process's own segment server),
as the Java tcp transport's ``tls.*`` settings do, unless ``tls_data_path`` is false
(``MOONCAKE_TLS_DATA_PATH=false``) for a cluster whose tcp transport is plain.
"""

import os
import socket
import ssl
from dataclasses import dataclass


@dataclass(frozen=True)
class TlsSettings:
    cert: str
    key: str
    ca: str
    data_path: bool = True

    @staticmethod
    def of(config):
        """The TLS settings of a setup dict, else of the environment; None when neither names a certificate."""
        cert = config.get("tls_cert") or os.environ.get("MOONCAKE_TLS_CERT")
        key = config.get("tls_key") or os.environ.get("MOONCAKE_TLS_KEY")
        ca = config.get("tls_ca") or os.environ.get("MOONCAKE_TLS_CA")
        if not (cert or key or ca):
            return None
        if not (cert and key and ca):
            raise ValueError("TLS needs tls_cert, tls_key and tls_ca together (or MOONCAKE_TLS_CERT/KEY/CA)")
        data_path = config.get("tls_data_path", os.environ.get("MOONCAKE_TLS_DATA_PATH", True))
        return TlsSettings(cert, key, ca, _flag(data_path))

    def for_data_path(self):
        """The settings of tcp connections (None: plain)."""
        return self if self.data_path else None

    def context(self):
        return self._context(ssl.PROTOCOL_TLS_CLIENT)

    def server_context(self):
        """A segment server's context: TLS 1.3, a client certificate of the cluster CA required."""
        return self._context(ssl.PROTOCOL_TLS_SERVER)

    def _context(self, protocol):
        ctx = ssl.SSLContext(protocol)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(cafile=self.ca)
        ctx.load_cert_chain(certfile=self.cert, keyfile=self.key)
        return ctx


def _flag(value):
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(f"tls_data_path is true or false, not {value!r}")
    return text in ("true", "1", "yes")


def parse_address(address):
    """``host:port`` (an IPv6 host in brackets) as a (host, port) pair."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ValueError(f"not host:port: {address!r}")
    return host.strip("[]"), int(port)


def open_socket(address, timeout_s, tls=None):
    """A connected socket to ``host:port``, wrapped in TLS when ``tls`` is given."""
    sock = socket.create_connection(parse_address(address), timeout=timeout_s)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if tls is not None:
        sock = tls.context().wrap_socket(sock)
    return sock


def recv_exactly_into(sock, view):
    """Fills the memoryview ``view`` from ``sock``; an end of stream first is a ConnectionError."""
    got = 0
    n = len(view)
    while got < n:
        r = sock.recv_into(view[got:], n - got)
        if r == 0:
            raise ConnectionError(f"connection closed after {got} of {n} bytes")
        got += r


def recv_exactly(sock, n):
    buf = bytearray(n)
    recv_exactly_into(sock, memoryview(buf))
    return buf
