#!/bin/sh
# Builds the copy kernel into OUT/native/linux-<arch>/ for this machine's arch, and for the other
# supported arch where its cross gcc is installed (Debian: gcc-aarch64-linux-gnu on x86-64), so
# that a bundle built on x86-64 also runs the kernel on aarch64 hosts. Run by the store-memory pom.
set -eu
out="$1"
src="$(dirname "$0")/mooncake_copy.c"
build() { # arch dir, compiler
  mkdir -p "$out/native/$1"
  "$2" -O2 -Wall -Wextra -Werror -fPIC -shared -o "$out/native/$1/libmooncake-copy.so" "$src"
  echo "copy kernel built for $1 with $2"
}
case "$(uname -m)" in
  x86_64) host=linux-x86_64; other=linux-aarch64; cross=aarch64-linux-gnu-gcc ;;
  aarch64) host=linux-aarch64; other=linux-x86_64; cross=x86_64-linux-gnu-gcc ;;
  *) echo "no copy kernel for $(uname -m): transfers checksum in Java"; exit 0 ;;
esac
build "$host" gcc
if command -v "$cross" > /dev/null; then
  build "$other" "$cross"
else
  echo "no $cross here: the bundle carries no kernel for $other"
fi
