#!/usr/bin/env bash
# Fails, saying what to install, where the Python tests cannot run: the interpreter, or a Debian
# package the client or its tests import. Never a silent skip.
#   check-environment.sh PYTHON TORCH_REQUIRED
python="${1:-/usr/bin/python3}"
torch_required="${2:-false}"
if [ ! -x "$python" ]; then
  echo "Python client tests: no interpreter at $python; install it: apt-get install -y python3" >&2
  exit 1
fi
missing=()
for pair in cbor2:python3-cbor2 xxhash:python3-xxhash numpy:python3-numpy pytest:python3-pytest; do
  "$python" -c "import ${pair%%:*}" 2>/dev/null || missing+=("${pair#*:}")
done
if [ "$torch_required" = true ]; then
  "$python" -c "import torch" 2>/dev/null || missing+=(python3-torch)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "Python client tests: $python lacks ${missing[*]}; install them: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
