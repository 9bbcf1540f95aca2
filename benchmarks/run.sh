#!/usr/bin/env bash
# Runs the benchmarks and writes results, charts and a machine description to docs/benchmarks/.
#   benchmarks/run.sh            all (about 20 minutes on 2 cores)
#   benchmarks/run.sh quick      fewer iterations, for a smoke run
set -euo pipefail
cd "$(dirname "$0")/.."
source distribution/src/main/dist/bin/java-home.sh
out=docs/benchmarks
mkdir -p "$out"
./mvnw -B -q -ntp -DskipTests install -pl benchmarks -am
jar=benchmarks/target/benchmarks.jar
java=("$JAVA_HOME/bin/java" --sun-misc-unsafe-memory-access=allow -Djava.util.logging.config.file=/dev/null)
iters=(-wi 8 -i 10)
[ "${1:-}" = quick ] && iters=(-wi 1 -i 3)

echo "== machine" | tee "$out/machine.txt"
{ lscpu | grep -E 'Model name|^CPU\(s\)'; free -g | sed -n 2p; "$JAVA_HOME/bin/java" -version 2>&1 | head -1; date -u; } | tee -a "$out/machine.txt"

echo "== master metadata operations (JMH)"
"${java[@]}" -jar "$jar" MasterOpsBenchmark -rf json -rff "$out/master-ops.json" # its own 10 s warm-up (see there)
echo "== replica placement with 1, 16 and 64 segments (JMH)"
"${java[@]}" -jar "$jar" PlacementBenchmark -wi 3 -i 5 -w 1 -r 1 -rf json -rff "$out/placement.json"
echo "== the ranking's sort: counting sort beside the key sort, 131,072 candidates (JMH)"
"${java[@]}" -jar "$jar" RankingSortBenchmark -rf json -rff "$out/ranking-sort.json"
echo "== a copy transport's checksummed copy: native kernel, Java steps, checksum aside, bare copy (JMH)"
"${java[@]}" --enable-native-access=ALL-UNNAMED -jar "$jar" ChecksummedCopyBenchmark -rf json -rff "$out/checksummed-copy.json"
echo "== eviction round at 1e5 and 1e6 objects per policy (JMH), default G1 and Parallel GC"
"${java[@]}" -jar "$jar" EvictionRoundBenchmark "${iters[@]}" -p store=uniform -rf json -rff "$out/eviction-round.json"
# -jvmArgsAppend replaces the benchmark's own (@Fork), so the fixed heap is repeated here
"${java[@]}" -jar "$jar" EvictionRoundBenchmark "${iters[@]}" -p store=uniform -p objects=1000000 \
  -jvmArgsAppend "--sun-misc-unsafe-memory-access=allow -Xms8g -Xmx8g -XX:+UseParallelGC" \
  -rf json -rff "$out/eviction-round-parallel-gc.json"
echo "== eviction round at 1e6 objects, a fresh store beside an aged one (sessions, reads, a trained policy) (JMH)"
"${java[@]}" -jar "$jar" EvictionRoundBenchmark "${iters[@]}" -p objects=1000000 -rf json -rff "$out/eviction-round-aged.json"
echo "== a round that must also make room for a large put, at 1e6 objects on the aged store (JMH)"
"${java[@]}" -jar "$jar" EvictionRoundBenchmark "${iters[@]}" -p objects=1000000 -p store=aged -p room=0.01,0.125 \
  -rf json -rff "$out/eviction-round-room.json"
echo "== operations beside an eviction round"
"${java[@]}" -Xmx8g -cp "$jar" org.mooncake.osgi.benchmarks.EvictionStallProbe 1000000 3 | tee "$out/eviction-stall.txt"

"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/master-ops.json" "$out/master-ops.png" \
  "Master operations, 100k resident objects (higher is better)" policy
"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/eviction-round.json" "$out/eviction-round.png" \
  "One eviction round freeing 6% of capacity (lower is better)" policy
"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/eviction-round-aged.json" "$out/eviction-round-aged.png" \
  "One round at 10^6 objects, fresh (uniform) and aged store; goal 50 ms (lower is better)" store
"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/eviction-round-room.json" "$out/eviction-round-room.png" \
  "A round at 10^6 objects (aged) that also makes room for a put of 1% / 12.5% of capacity; goal 50 ms" room
"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/checksummed-copy.json" "$out/checksummed-copy.png" \
  "Checksummed copy (XXH3) over a bare copy of the same size (lower is better)" size copyOnly
"${java[@]}" -cp "$jar" org.mooncake.osgi.benchmarks.JmhCharts "$out/placement.json" "$out/placement.png" \
  "A put (start + end + remove) by mounted segments (lower is better)" segments
