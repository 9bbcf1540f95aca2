"""Runs tests/java/JavaPeer.java (the Java client) against a cluster, from the built distribution's jars;
``bench`` starts tests/java/JavaBench.java for clients/python/bench.py."""

import pathlib
import re
import subprocess

from cluster import HOME

SOURCE = pathlib.Path(__file__).resolve().parent / "java" / "JavaPeer.java"
BENCH = SOURCE.parent / "JavaBench.java"
JARS = ("store-api", "store-client", "store-memory", "master-rpc", "transport-tcp", "jackson-dataformat-cbor",
        "jackson-databind", "jackson-core", "jackson-annotations")


def java():
    out = subprocess.run(["bash", "-c", f"source {HOME}/bin/java-home.sh && echo $JAVA_HOME"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return str(pathlib.Path(out) / "bin" / "java")


def classpath():
    """The newest version of each jar (a distribution may hold an API bundle's older version too)."""
    newest = {}
    for j in (HOME / "system").rglob("*.jar"):
        for n in JARS:
            version = j.name[len(n) + 1:-len(".jar")]
            if j.name.startswith(n + "-") and version[:1].isdigit():
                if n not in newest or _order(version) > _order(newest[n][0]):
                    newest[n] = (version, j)
    missing = set(JARS) - set(newest)
    assert not missing, f"the distribution at {HOME} lacks {missing}"
    return ":".join(str(j) for _, j in newest.values())


def _order(version):
    """3.1.0-SNAPSHOT after 3.0.1: numbers compared as numbers."""
    return [int(p) for p in re.findall(r"\d+", version)]


def run(master_address, *args):
    """JavaPeer's exit status and stderr."""
    p = subprocess.run([java(), "--enable-native-access=ALL-UNNAMED", "-cp", classpath(), str(SOURCE), master_address,
                        *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def bench(master_address, chunk_bytes):
    """A running JavaBench (stdin/stdout pipes, text) once it said it is ready."""
    p = subprocess.Popen([java(), "--enable-native-access=ALL-UNNAMED", "-cp", classpath(), str(BENCH), master_address,
                          str(chunk_bytes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    if p.stdout.readline().strip() != "ready":
        p.kill()
        raise AssertionError("JavaBench did not start (its stderr is above)")
    return p
