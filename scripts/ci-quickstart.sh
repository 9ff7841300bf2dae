#!/usr/bin/env bash
# CI: the README's Quick start, as a new user runs it, on a fresh clone of the commit under
# test: `npm ci && npm start` with no build present must serve the site, and a link made with
# the admin CLI must answer. `npm test` builds in its own step, so only this catches a first
# start that breaks. QUICKSTART_TIMEOUT (seconds, default 240) bounds the wait for the server.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -C "$repo" rev-parse HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/milenotes-quickstart-XXXXXX")"
server=""

cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM -- "-$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "quick start: fresh clone of ${commit:0:12}"
git clone -q --no-checkout "$repo" "$work/clone"
cd "$work/clone"
git checkout -q --detach "$commit"

# The lockfile's packages come from npm's cache when it has them, so this stays quick.
npm ci --prefer-offline --no-audit --no-fund --loglevel=error

port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
export PORT="$port" HOST=127.0.0.1 DATA_DIR="$work/data" PUBLIC_URL="http://127.0.0.1:$port"
base="http://127.0.0.1:$port"
[ ! -e dist ] || { echo "quick start: dist/ exists in a fresh clone" >&2; exit 1; }

# Its own process group, so stopping it stops npm and the node process under it.
setsid npm start >"$work/server.log" 2>&1 &
server=$!
deadline=$((SECONDS + ${QUICKSTART_TIMEOUT:-240}))
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/" || true)" = 200 ]; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "quick start: npm start exited before serving /:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "quick start: / did not answer 200 in time:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 1
done
echo "quick start: GET / answered 200 after ${SECONDS} s"

# README's example: a race still ahead, then a link for it.
npm run -s admin -- add-race --id my-marathon --name "My Marathon" --date 2027-04-18 --timezone Europe/Berlin --start 09:00 >/dev/null
link="$(npm run -s admin -- create-link --runner "Alex" --race my-marathon)"
token="$(node -e 'console.log(JSON.parse(process.argv[1]).token)' "$link")"
status="$(curl -s -o "$work/link.json" -w '%{http_code}' "$base/api/r/$token")"
if [ "$status" != 200 ]; then
  echo "quick start: GET /api/r/<token> answered $status:" >&2
  cat "$work/link.json" "$work/server.log" >&2
  exit 1
fi
echo "quick start: a link made with the admin CLI answers on /api/r/<token> (200); all good after ${SECONDS} s"
