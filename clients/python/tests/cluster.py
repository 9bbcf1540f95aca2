"""A real cluster on loopback for the tests: a master and storage nodes started with the built
distribution's ``bin/mooncake`` (as ``distribution``'s ClusterIT does), logs in
``target/python-cluster-logs``."""

import os
import pathlib
import signal
import socket
import subprocess
import time

from mooncake_osgi import errors
from mooncake_osgi.connect import TlsSettings
from mooncake_osgi.master import MasterClient

ROOT = pathlib.Path(__file__).resolve().parents[3]
HOME = pathlib.Path(os.environ.get("MOONCAKE_HOME", ROOT / "distribution" / "target" / "mooncake"))
LOGS = pathlib.Path(__file__).resolve().parents[1] / "target" / "python-cluster-logs"


def security_args():
    """How the test cluster is secured: every process of it gets these arguments. Plain text for now
    (the cluster profiles refuse to start without TLS unless told ``tls.insecure=true``)."""
    return ["--set", "tls.insecure=true"]


def make_certificates(directory):
    """A test cluster's CA and certificates (``mooncake cert cluster``), and PEM copies of the client,
    node and admin ones for Python's ssl module."""
    subprocess.run(["bash", str(HOME / "bin" / "mooncake"), "cert", "cluster", str(directory)], check=True,
                   capture_output=True)
    password = (directory / "password").read_text().strip()
    for name in ("client", "node", "admin"):
        subprocess.run(["openssl", "pkcs12", "-in", str(directory / f"{name}.p12"), "-passin", f"pass:{password}",
                        "-nodes", "-out", str(directory / f"{name}.pem")], check=True, capture_output=True)
    return directory


def pem(directory, name):
    """The TLS settings of certificate ``name`` made by :func:`make_certificates`."""
    return TlsSettings(str(directory / f"{name}.pem"), str(directory / f"{name}.pem"), str(directory / "ca.crt"))


def tls_args(directory, name):
    password = (directory / "password").read_text().strip()
    return ["--set", f"tls.keystore={directory / (name + '.p12')}", "--set",
            f"tls.truststore={directory / 'truststore.p12'}", "--set", f"tls.password={password}"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, condition, timeout_s=90):
    """Polls ``condition`` until it is true; fails naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except (errors.StoreError, OSError) as e:
            last = e
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what} (last error: {last}; logs in {LOGS})")


class Cluster:
    def __init__(self, name="py", tls_dir=None):
        self.name = name
        self.tls_dir = tls_dir
        if not (HOME / "bin" / "mooncake").exists():
            raise AssertionError(f"no distribution at {HOME}: build it first (./mvnw -pl distribution -am install)")
        LOGS.mkdir(parents=True, exist_ok=True)
        self.rpc_port = free_port()
        self.master_address = f"127.0.0.1:{self.rpc_port}"
        self.processes = {}

    def start(self, instance, *args, identity="node"):
        """Starts a process; in a TLS cluster with the certificate ``identity`` (see :func:`make_certificates`)."""
        log = open(LOGS / f"{instance}.log", "wb")
        cmd = ["bash", str(HOME / "bin" / "mooncake"), "start", "--headless", "--instance", instance, *args,
               *(security_args() if self.tls_dir is None else tls_args(self.tls_dir, identity))]
        self.processes[instance] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        return self.processes[instance]

    def start_master(self):
        self.start(f"{self.name}-master", "--profile", "master", "--set", f"rpc.port={self.rpc_port}", "--set",
                   "admin.port=0", identity="master")
        master = MasterClient(self.master_address, 3.0, None if self.tls_dir is None else pem(self.tls_dir, "admin"))
        wait_for("the master", lambda: master.call("STATS") is not None)
        return master

    def start_storage(self, instance, segment_bytes=256 << 20):
        return self.start(instance, "--profile", "storage", "--master", self.master_address,
                          "--set", f"segment.size={segment_bytes}")

    def kill(self, instance):
        p = self.processes.pop(instance)
        p.send_signal(signal.SIGKILL)
        p.wait()

    def pid_serving(self, address):
        """The instance whose process listens on ``host:port``."""
        port = int(address.rsplit(":", 1)[1])
        inodes = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            with open(table) as f:
                for line in list(f)[1:]:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":
                        inodes.add(fields[9])
        for instance, p in self.processes.items():
            try:
                for fd in os.listdir(f"/proc/{p.pid}/fd"):
                    link = os.readlink(f"/proc/{p.pid}/fd/{fd}")
                    if link.startswith("socket:[") and link[8:-1] in inodes:
                        return instance
            except OSError:
                continue
        raise AssertionError(f"no cluster process listens on {address}")

    def stop(self):
        for p in self.processes.values():
            p.terminate()
        for p in self.processes.values():
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.processes.clear()
