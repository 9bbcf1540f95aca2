# Sourced by .ci/run, ./mooncake and bin/mooncake: make JAVA_HOME point at a JDK 25 or newer.
java_feature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_feature "$JAVA_HOME" 2>/dev/null || echo 0)" -lt 25 ] 2>/dev/null; then
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk* /usr/lib/jvm/java-25-openjdk* /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/java" ] && [ "$(java_feature "$candidate" 2>/dev/null || echo 0)" -ge 25 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      break
    fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ "$(java_feature "$JAVA_HOME" 2>/dev/null || echo 0)" -lt 25 ] 2>/dev/null; then
  echo "mooncake-osgi needs a JDK 25 or newer: set JAVA_HOME to one (none found under /usr/lib/jvm)" >&2
  exit 1
fi
export PATH="$JAVA_HOME/bin:$PATH"
