#!/usr/bin/python3
"""bench python: the Python client's ``put_from`` / ``get_into`` beside the Java client over the same
tcp path and redis-py against a local redis-server, in one run.

    /usr/bin/python3 clients/python/bench.py [--out DIR] [--sizes 64KiB,1MiB,16MiB] [--rounds 5]
                                             [--bytes-per-run 128MiB] [--systems python,java,redis]

It starts a master and one storage node from the built distribution (``MOONCAKE_HOME``, default
``distribution/target/mooncake``; plain TCP, no TLS) and a redis-server without persistence. Every
system moves the same objects with one thread and one connection: a run puts ``bytes-per-run`` in
objects of one size (one replica), then gets them all back into one preallocated buffer, and
removes them (a 2 GiB segment, so that no run's objects are evicted under it). After a
warm-up run per system and size, rounds alternate the systems (in a rotating order) so that a
drift of the machine hits them alike; the medians of the rounds are compared. Progress goes to
stderr; ``results.json`` and ``throughput.png`` (matplotlib) go to ``--out``.

Goals (docs/python.md): from 1 MiB, Python >= 0.7x the Java client and >= 1.5x redis-py.
"""

import argparse
import json
import os
import pathlib
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "tests")]

import numpy as np  # noqa: E402

from mooncake.store import MooncakeDistributedStore, ReplicateConfig  # noqa: E402
from mooncake_osgi import StoreClient  # noqa: E402
from mooncake_osgi.tcp import DEFAULT_CHUNK_BYTES  # noqa: E402

GOALS = {"java": 0.7, "redis": 1.5}  # Python's throughput over theirs, from GOAL_FROM bytes
GOAL_FROM = 1 << 20
UNITS = {"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "b": 1}


def size_of(text):
    t = text.strip().lower()
    for unit, factor in UNITS.items():
        if t.endswith(unit) and t[:-len(unit)].isdigit():
            return int(t[:-len(unit)]) * factor
    if t.isdigit():
        return int(t)
    raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 64KiB, 1MiB)")


def label(size):
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}B"


def progress(message):
    print(f"[bench python {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class PythonSystem:
    name = "python"

    def __init__(self, master_address):
        self.store = MooncakeDistributedStore()
        rc = self.store.setup("127.0.0.1", "", 0, 0, "tcp", "", master_address)
        if rc != 0:
            raise SystemExit(f"the Python client could not connect: {rc}")

    def run(self, size, count, prefix):
        source = np.frombuffer(np.random.default_rng(size).bytes(size), dtype=np.uint8).copy()
        target = np.empty(size, dtype=np.uint8)
        one = ReplicateConfig(replica_num=1)
        t0 = time.perf_counter()
        for i in range(count):
            rc = self.store.put_from(f"{prefix}-{i}", source.ctypes.data, size, one)
            if rc != 0:
                raise SystemExit(f"put_from failed: {rc}")
        t1 = time.perf_counter()
        for i in range(count):
            n = self.store.get_into(f"{prefix}-{i}", target.ctypes.data, size)
            if n != size:
                raise SystemExit(f"get_into failed: {n}")
        t2 = time.perf_counter()
        return t1 - t0, t2 - t1

    def close(self):
        self.store.close()


class JavaSystem:
    name = "java"

    def __init__(self, master_address):
        import java_peer
        self.process = java_peer.bench(master_address, DEFAULT_CHUNK_BYTES)

    def run(self, size, count, prefix):
        self.process.stdin.write(f"{size} {count} {prefix}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().split()
        if len(answer) != 2:
            raise SystemExit("JavaBench failed (its stderr is above)")
        return int(answer[0]) / 1e9, int(answer[1]) / 1e9

    def close(self):
        self.process.stdin.close()
        self.process.wait(30)


class RedisSystem:
    name = "redis"

    def __init__(self, _master_address):
        server = shutil.which("redis-server")
        try:
            import redis
        except ImportError:
            redis = None
        if server is None or redis is None:
            raise SystemExit("redis needs the Debian packages redis-server and python3-redis: "
                             "apt-get install -y redis-server python3-redis (or leave it out: --systems python,java)")
        port = free_port()
        self.process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--protected-mode", "yes", "--maxmemory", "0"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + 20
        while True:
            try:
                self.client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise SystemExit("redis-server did not start")
                time.sleep(0.05)

    def run(self, size, count, prefix):
        source = np.random.default_rng(size).bytes(size)
        t0 = time.perf_counter()
        for i in range(count):
            self.client.set(f"{prefix}-{i}", source)
        t1 = time.perf_counter()
        for i in range(count):
            if len(self.client.get(f"{prefix}-{i}")) != size:
                raise SystemExit("redis get returned the wrong size")
        t2 = time.perf_counter()
        self.client.flushall()
        return t1 - t0, t2 - t1

    def close(self):
        self.client.close()
        self.process.terminate()
        self.process.wait(10)


SYSTEMS = {"python": PythonSystem, "java": JavaSystem, "redis": RedisSystem}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return {"commit": commit + ("+changes" if dirty else ""), "cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(), "kernel": platform.release()}


def summarize(runs, systems, sizes):
    medians = {s: {} for s in systems}
    for s in systems:
        for size in sizes:
            mine = [r for r in runs if r["system"] == s and r["size"] == size]
            medians[s][label(size)] = {op: statistics.median(r[op + "MiBps"] for r in mine) for op in ("put", "get")}
    ratios, goals = {}, []
    for other, goal in GOALS.items():
        if "python" not in systems or other not in systems:
            continue
        ratios[f"python/{other}"] = {}
        for size in sizes:
            for op in ("put", "get"):
                ratio = medians["python"][label(size)][op] / medians[other][label(size)][op]
                ratios[f"python/{other}"].setdefault(label(size), {})[op] = round(ratio, 3)
                if size >= GOAL_FROM:
                    goals.append({"versus": other, "size": label(size), "op": op, "ratio": round(ratio, 3),
                                  "goal": goal, "met": ratio >= goal})
    return medians, ratios, goals


def chart(medians, systems, sizes, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        progress("no chart: matplotlib is missing (apt-get install -y python3-matplotlib)")
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    width = 0.8 / len(systems)
    for ax, op in zip(axes, ("put", "get")):
        for k, s in enumerate(systems):
            values = [medians[s][label(size)][op] for size in sizes]
            bars = ax.bar([i + k * width for i in range(len(sizes))], values, width, label=s)
            ax.bar_label(bars, fmt="%.0f", fontsize=7)
        ax.set_xticks([i + width * (len(systems) - 1) / 2 for i in range(len(sizes))], [label(s) for s in sizes])
        ax.set_title(f"{op} (median MiB/s, one thread)")
        ax.set_xlabel("object size")
    axes[0].set_ylabel("MiB/s")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("target/bench-python"))
    p.add_argument("--sizes", default="64KiB,1MiB,16MiB")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--bytes-per-run", type=size_of, default=128 << 20)
    p.add_argument("--systems", default="python,java,redis")
    args = p.parse_args()
    sizes = [size_of(s) for s in args.sizes.split(",")]
    systems = [s.strip() for s in args.systems.split(",")]
    unknown = set(systems) - SYSTEMS.keys()
    if unknown or args.rounds < 1:
        p.error(f"systems are {sorted(SYSTEMS)}, rounds >= 1" + (f" (not {sorted(unknown)})" if unknown else ""))
    args.out.mkdir(parents=True, exist_ok=True)

    from cluster import Cluster, wait_for
    cluster = Cluster("bench-py")
    running = {}
    try:
        progress(f"starting a master and a storage node from {os.environ.get('MOONCAKE_HOME', 'the distribution')}")
        master = cluster.start_master()
        capacity = max(2 << 30, 8 * args.bytes_per_run)  # removed objects' space returns once their leases end
        cluster.start_storage("bench-py-storage", segment_bytes=capacity)
        wait_for("the storage segment", lambda: len(master.call("SEGMENTS")) == 1)
        master.close()
        admin = StoreClient(cluster.master_address)
        for s in systems:
            progress(f"starting {s}")
            running[s] = SYSTEMS[s](cluster.master_address)
        runs = []
        for rnd in range(args.rounds + 1):
            for size in sizes:
                count = max(4, args.bytes_per_run // size)
                order = systems[rnd % len(systems):] + systems[:rnd % len(systems)]
                for s in order:
                    put_s, get_s = running[s].run(size, count, f"b{rnd}-{s}-{size}")
                    moved = size * count / (1 << 20)
                    row = {"round": rnd, "system": s, "size": size, "count": count,
                           "putMiBps": moved / put_s, "getMiBps": moved / get_s}
                    progress(f"{'warm-up' if rnd == 0 else f'round {rnd}/{args.rounds}'} {s:6} {label(size):>6} x{count}: "
                             f"put {row['putMiBps']:8.1f} MiB/s  get {row['getMiBps']:8.1f} MiB/s")
                    if rnd > 0:
                        runs.append(row)
                    if s != "redis":
                        admin.remove_all(force=True)
                        wait_for("room for the next run", lambda: admin.stats()["usedBytes"]
                                 <= capacity - 2 * args.bytes_per_run, 60)
        admin.close()
    finally:
        for s in running.values():
            s.close()
        cluster.stop()
    medians, ratios, goals = summarize(runs, systems, sizes)
    result = {"machine": machine(), "sizes": [label(s) for s in sizes], "rounds": args.rounds,
              "bytesPerRun": args.bytes_per_run, "threads": 1, "connections": 1, "medians": medians,
              "ratios": ratios, "goals": goals, "runs": runs}
    (args.out / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    drawn = chart(medians, systems, sizes, args.out / "throughput.png")
    for size in sizes:
        progress(f"median {label(size):>6}: " + "  ".join(
            f"{s} put {medians[s][label(size)]['put']:.0f} get {medians[s][label(size)]['get']:.0f}" for s in systems))
    for g in goals:
        progress(f"goal python >= {g['goal']}x {g['versus']} at {g['size']} {g['op']}: {g['ratio']:.2f}x "
                 f"{'met' if g['met'] else 'NOT met'}")
    progress(f"wrote {args.out / 'results.json'}" + (f" and {drawn}" if drawn else ""))


if __name__ == "__main__":
    main()
