#!/usr/bin/env bash
# Checks the copy kernel's NEON lanes from an x86-64 machine: builds the kernel and
# check_kernel.c with a cross gcc and runs the check under qemu (Debian: gcc-aarch64-linux-gnu
# qemu-user). The Java tests cover the lanes of the machine they run on; this covers the others.
# --if-installed (the store-memory build): say so and succeed where the cross gcc or qemu is missing.
# CC=gcc RUN= checks this machine's own lanes instead.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cc="${CC:-aarch64-linux-gnu-gcc}"
run="${RUN-qemu-aarch64 -L /usr/aarch64-linux-gnu}"
if [ "${1:-}" = --if-installed ] && ! { command -v "$cc" && command -v "${run%% *}"; } > /dev/null 2>&1; then
  echo "NEON lanes of the copy kernel not checked: no $cc or ${run%% *} here (Debian: gcc-aarch64-linux-gnu qemu-user)"
  exit 0
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$cc" -O2 -Wall -Wextra -Werror -o "$out/check" "$here/check_kernel.c" "$here/../../main/c/mooncake_copy.c"
$run "$out/check" "$here/../resources/xxh3-vectors.txt"
