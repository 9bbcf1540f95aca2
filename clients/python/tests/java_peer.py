"""Runs tests/java/JavaPeer.java (the Java client) against a cluster, from the built distribution's jars."""

import pathlib
import subprocess

from cluster import HOME

SOURCE = pathlib.Path(__file__).resolve().parent / "java" / "JavaPeer.java"
JARS = ("store-api", "store-client", "store-memory", "master-rpc", "transport-tcp", "jackson-dataformat-cbor",
        "jackson-databind", "jackson-core", "jackson-annotations")


def java():
    out = subprocess.run(["bash", "-c", f"source {HOME}/bin/java-home.sh && echo $JAVA_HOME"], capture_output=True,
                         text=True, check=True).stdout.strip()
    return str(pathlib.Path(out) / "bin" / "java")


def classpath():
    jars = [j for j in (HOME / "system").rglob("*.jar") if any(j.name.startswith(n + "-") for n in JARS)]
    found = {n for n in JARS for j in jars if j.name.startswith(n + "-")}
    missing = set(JARS) - found
    assert not missing, f"the distribution at {HOME} lacks {missing}"
    return ":".join(str(j) for j in jars)


def run(master_address, *args):
    """JavaPeer's exit status and stderr."""
    p = subprocess.run([java(), "--enable-native-access=ALL-UNNAMED", "-cp", classpath(), str(SOURCE), master_address,
                        *map(str, args)], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr
