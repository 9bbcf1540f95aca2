"""The package starts no process and loads no JVM: a client contributing a segment, putting and
getting, in a fresh interpreter where starting a process raises."""

import subprocess
import sys
import pathlib

PROBE = r'''
import os, subprocess, sys
def refuse(*a, **k):
    raise AssertionError("the client tried to start a process")
subprocess.Popen.__init__ = refuse
os.fork = os.posix_spawn = os.posix_spawnp = os.system = refuse
os.execv = os.execve = refuse
import mooncake_osgi
from mooncake_osgi import StoreClient
with StoreClient(sys.argv[1], global_segment_size=8 << 20) as c:
    c.put("noproc", b"x" * 100000)
    assert c.get("noproc") == b"x" * 100000
    c.remove("noproc", force=True)
    children = [open(f"/proc/self/task/{t}/children").read().split() for t in os.listdir("/proc/self/task")]
    assert not any(children), children
    maps = open("/proc/self/maps").read()
    assert "libjvm" not in maps and "jpype" not in " ".join(sys.modules), "a JVM is loaded"
print("ok")
'''


def test_the_client_starts_no_process_and_loads_no_jvm(cluster):
    root = pathlib.Path(__file__).resolve().parents[1]
    p = subprocess.run([sys.executable, "-c", PROBE, cluster.master_address], cwd=root, capture_output=True,
                       text=True, timeout=60, env={"PYTHONPATH": str(root)})
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
