#!/usr/bin/env bash
# GPU check of bundles/device-cuda, and of the store client's device path (store-client's
# DeviceMemoryClientGpuTest), on a machine with an NVIDIA GPU and driver but no JDK (tools/README.md).
#
#   tools/gpu-check.sh pack [--no-build]   here: build and put into target/gpu-check/ what the GPU
#                                          machine needs (a jlink'd JDK 25, 12 jars); fails over 60 MiB
#   tools/gpu-check.sh run [--allow-no-gpu]
#                                          there, from the repository root: the tests tagged gpu with
#                                          -Dmooncake.gpu.required=true (none may skip), then the
#                                          device copy benchmark in quick mode; results under $OUT
#                                          (else target/gpu-check/out); non-zero on any failure.
#                                          --allow-no-gpu: for a machine without one (skips, reports why)
#   tools/gpu-check.sh selftest            here: pack, then run --allow-no-gpu
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACK="$ROOT/target/gpu-check"
JDK="${GPU_CHECK_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
LIMIT_MIB=60
# what the tests, the benchmark and the JUnit console launcher load (jdeps on the jars, then trial:
# java.xml for the launcher's XML reports, jdk.zipfs for its class-path scan of a jar,
# java.logging behind System.Logger)
JDK_MODULES="java.base,java.logging,java.xml,jdk.zipfs"
JVM_FLAGS=(--enable-native-access=ALL-UNNAMED -Xshare:auto)
# the store client's GPU test, packed with its fixture alone
CLIENT_GPU_TEST=org/mooncake/osgi/store/client/impl/DeviceMemoryClientGpuTest

die() { echo "gpu-check: $*" >&2; exit 1; }

# "5.11.4" -> the console launcher's version (JUnit 5's platform is 1.x; JUnit 6 versions everything alike)
console_version() {
  local junit
  junit="$(sed -n 's:.*<junit.version>\(.*\)</junit.version>.*:\1:p' "$ROOT/pom.xml" | head -1)"
  [ -n "$junit" ] || die "no <junit.version> in pom.xml"
  case "$junit" in
    5.*) echo "1.${junit#5.}" ;;
    *) echo "$junit" ;;
  esac
}

main_jar() { # module dir -> its bundle jar (not -tests, -sources)
  local j
  for j in "$ROOT/$1"/target/*.jar; do
    case "$j" in *-tests.jar|*-sources.jar|*-javadoc.jar) continue ;; esac
    [ -f "$j" ] && { echo "$j"; return; }
  done
  die "no jar in $1/target: build it (tools/gpu-check.sh pack without --no-build)"
}

pack() {
  local build=1
  for a in "$@"; do
    case "$a" in
      --no-build) build=0 ;;
      *) die "pack: unknown argument $a" ;;
    esac
  done
  [ -x "$JDK/bin/jlink" ] || die "no JDK 25 at $JDK (set GPU_CHECK_JDK)"
  cd "$ROOT"
  if [ "$build" = 1 ]; then
    echo "== building device-cuda and store-client with what they need (tests run separately:" \
      "./mvnw -pl bundles/device-cuda,bundles/store-client test)"
    ./mvnw -B -q -o install -pl bundles/device-cuda,bundles/store-client -am -DskipTests
  fi
  [ -d bundles/device-cuda/target/test-classes/org ] || die "no compiled tests in bundles/device-cuda/target/test-classes"
  local client_tests=bundles/store-client/target/test-classes
  [ -f "$client_tests/$CLIENT_GPU_TEST.class" ] || die "no compiled $CLIENT_GPU_TEST in $client_tests"

  local m2="${MAVEN_REPO:-$HOME/.m2/repository}" cv console framework
  cv="$(console_version)"
  console="$m2/org/junit/platform/junit-platform-console-standalone/$cv/junit-platform-console-standalone-$cv.jar"
  if [ ! -f "$console" ]; then
    echo "== fetching junit-platform-console-standalone $cv (Maven Central)"
    ./mvnw -B -q dependency:get -Dartifact="org.junit.platform:junit-platform-console-standalone:$cv" \
      || die "cannot fetch junit-platform-console-standalone $cv (offline?)"
  fi
  framework="$m2/org/osgi/org.osgi.framework/1.10.0/org.osgi.framework-1.10.0.jar"
  [ -f "$framework" ] || die "no $framework (build the project once)"

  rm -rf "$PACK"
  mkdir -p "$PACK/lib"
  cp "$(main_jar bundles/store-api)" "$PACK/lib/store-api.jar"
  cp "$(main_jar bundles/device-cuda)" "$PACK/lib/device-cuda.jar"
  "$JDK/bin/jar" --create --file "$PACK/lib/device-cuda-tests.jar" -C bundles/device-cuda/target/test-classes .
  cp "$framework" "$PACK/lib/org.osgi.framework.jar" # the component test's BundleContext
  # the client's device path on the GPU: the client, a master, the local and tcp transports, and
  # only its GPU test with the fixture it uses (the other client tests need shm and more)
  local m
  for m in store-memory store-master store-client transport-local transport-tcp; do
    cp "$(main_jar "bundles/$m")" "$PACK/lib/$m.jar"
  done
  cp "$(main_jar policies/policy-lease-lru)" "$PACK/lib/policy-lease-lru.jar"
  (cd "$client_tests" && "$JDK/bin/jar" --create --file "$PACK/lib/store-client-gpu-tests.jar" \
    "$CLIENT_GPU_TEST"*.class "$(dirname "$CLIENT_GPU_TEST")"/ClientFixture*.class)
  cp "$console" "$PACK/lib/junit-platform-console-standalone.jar"

  echo "== jlink: $JDK_MODULES"
  "$JDK/bin/jlink" --add-modules "$JDK_MODULES" --strip-debug --no-man-pages --no-header-files \
    --compress zip-9 --output "$PACK/jdk"
  {
    echo "packed $(date -u +%FT%TZ) from $(cd "$ROOT" && pwd)"
    echo "jdk: $("$PACK/jdk/bin/java" -version 2>&1 | head -1), modules $JDK_MODULES"
    echo "junit-platform-console-standalone $cv"
  } > "$PACK/PACKED.txt"

  local bytes mib
  bytes="$(du -sb "$PACK" | cut -f1)"
  mib=$(( (bytes + 1048575) / 1048576 ))
  du -sh "$PACK/jdk" "$PACK"/lib/*.jar | sed 's:'"$ROOT"'/::'
  echo "gpu-check pack: $PACK is $bytes bytes ($mib MiB; limit $LIMIT_MIB MiB)"
  [ "$bytes" -le $(( LIMIT_MIB * 1048576 )) ] || die "the pack is over $LIMIT_MIB MiB"
  echo "carry target/gpu-check and run: tools/gpu-check.sh run"
}

run() {
  local allow_no_gpu=0
  for a in "$@"; do
    case "$a" in
      --allow-no-gpu) allow_no_gpu=1 ;;
      *) die "run: unknown argument $a" ;;
    esac
  done
  local java="$PACK/jdk/bin/java" lib="$PACK/lib"
  [ -e "$java" ] || die "no $java: run tools/gpu-check.sh pack here first and carry target/gpu-check"
  [ -x "$java" ] || chmod +x "$PACK"/jdk/bin/* 2>/dev/null || die "$java is not executable"
  local out="${OUT:-$PACK/out}"
  mkdir -p "$out"
  local started=$SECONDS failures=0
  local cp="$lib/device-cuda.jar:$lib/store-api.jar:$lib/org.osgi.framework.jar:$lib/device-cuda-tests.jar"
  cp="$cp:$lib/store-memory.jar:$lib/store-master.jar:$lib/store-client.jar:$lib/transport-local.jar"
  cp="$cp:$lib/transport-tcp.jar:$lib/policy-lease-lru.jar:$lib/store-client-gpu-tests.jar"

  echo "== gpu-check run on $(uname -n), $(date -u +%FT%TZ); results in $out"
  cat "$PACK/PACKED.txt" 2>/dev/null || true
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /' || true
  else
    echo "gpu: no nvidia-smi here"
  fi

  local required=true bench_flags=(--quick --out "$out/bench")
  if [ "$allow_no_gpu" = 1 ]; then
    required=false
    bench_flags+=(--allow-no-device)
    echo "(--allow-no-gpu: GPU tests skip with their reason where libcuda.so.1 does not load)"
  fi

  echo "== 1/2 tests tagged gpu (mooncake.gpu.required=$required)"
  set +e
  timeout 200 "$java" "${JVM_FLAGS[@]}" -Dmooncake.gpu.required="$required" \
    -jar "$lib/junit-platform-console-standalone.jar" execute \
    --disable-banner --disable-ansi-colors --details=tree --details-theme=ascii --fail-if-no-tests \
    --class-path "$cp" --scan-class-path "$lib/device-cuda-tests.jar:$lib/store-client-gpu-tests.jar" --include-tag gpu \
    --reports-dir "$out/junit" 2>&1 | tee "$out/gpu-tests.log"
  local rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    echo "gpu-check: the gpu tests FAILED (exit $rc; $out/gpu-tests.log, $out/junit)"
    failures=$((failures + 1))
  fi

  echo "== 2/2 device copy benchmark, quick"
  set +e
  timeout 90 "$java" "${JVM_FLAGS[@]}" -cp "$lib/device-cuda.jar:$lib/store-api.jar" \
    org.mooncake.osgi.device.cuda.bench.DeviceCopyBenchmark "${bench_flags[@]}" 2>&1 | tee "$out/bench.log"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    echo "gpu-check: the benchmark FAILED (exit $rc; $out/bench.log)"
    failures=$((failures + 1))
  fi
  if [ "$allow_no_gpu" = 1 ]; then
    echo "== (--allow-no-gpu) the benchmark on a simulated device, to check the benchmark itself"
    set +e
    timeout 60 "$java" "${JVM_FLAGS[@]}" -cp "$lib/device-cuda.jar:$lib/store-api.jar" \
      org.mooncake.osgi.device.cuda.bench.DeviceCopyBenchmark --simulated --quick --rounds 3 \
      --max-size 16777216 --out "$out/bench-simulated" 2>&1 | tee "$out/bench-simulated.log"
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" = 0 ] || { echo "gpu-check: the simulated benchmark FAILED (exit $rc)"; failures=$((failures + 1)); }
  fi

  echo "== gpu-check: ran the gpu-tagged tests of device-cuda and store-client and DeviceCopyBenchmark --quick in" \
    "$((SECONDS - started)) s: $failures failed; results in $out"
  [ "$failures" = 0 ]
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  pack) pack "$@" ;;
  run) run "$@" ;;
  selftest) pack "$@" && run --allow-no-gpu ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 64 ;;
esac
