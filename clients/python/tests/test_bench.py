"""bench.py's pieces: the sizes it reads, the medians, ratios and goals it reports, and its Python and
Java systems moving objects through the test cluster (the full run, with redis, is ``bench.py``)."""

import importlib.util
import pathlib

import pytest

SPEC = importlib.util.spec_from_file_location("bench", pathlib.Path(__file__).resolve().parents[1] / "bench.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


def test_sizes_read_and_label():
    assert [bench.size_of(s) for s in ("64KiB", "1MiB", "16mib", "4096")] == [65536, 1 << 20, 16 << 20, 4096]
    assert [bench.label(s) for s in (65536, 1 << 20, 100)] == ["64KiB", "1MiB", "100B"]
    with pytest.raises(Exception, match="not a size"):
        bench.size_of("lots")


def test_medians_ratios_and_goals():
    runs = [{"system": s, "size": size, "putMiBps": put, "getMiBps": get}
            for s, size, put, get in [("python", 65536, 100, 100), ("python", 65536, 300, 300),
                                      ("python", 65536, 200, 200), ("java", 65536, 400, 400),
                                      ("python", 1 << 20, 700, 500), ("java", 1 << 20, 1000, 1000),
                                      ("redis", 65536, 100, 100), ("redis", 1 << 20, 400, 400)]]
    medians, ratios, goals = bench.summarize(runs, ["python", "java", "redis"], [65536, 1 << 20])
    assert medians["python"]["64KiB"] == {"put": 200, "get": 200}
    assert ratios["python/java"]["1MiB"] == {"put": 0.7, "get": 0.5}
    assert ratios["python/redis"]["64KiB"] == {"put": 2.0, "get": 2.0}
    assert {g["size"] for g in goals} == {"1MiB"}, "goals judged from 1 MiB only"
    verdicts = {(g["versus"], g["op"]): g["met"] for g in goals}
    assert verdicts == {("java", "put"): True, ("java", "get"): False, ("redis", "put"): True, ("redis", "get"): False}


@pytest.mark.parametrize("system", ["python", "java"])
def test_a_system_moves_objects_through_the_cluster(cluster, system):
    s = bench.SYSTEMS[system](cluster.master_address)
    try:
        put_s, get_s = s.run(1 << 20, 3, f"bench-test-{system}")
        assert put_s > 0 and get_s > 0
    finally:
        s.close()
        with bench.StoreClient(cluster.master_address) as admin:
            admin.remove_by_regex(f"bench-test-{system}-.*", force=True)
