#!/bin/sh
# The admin CLI (`npm run admin -- ARGS`) as the servers run it: as the milenotes user, from this
# checkout, with the servers' settings (/etc/milenotes/milenotes.env, or MILENOTES_ENV). Settings
# given first as NAME=value win, such as an API server's own:
#   sudo deploy/admin.sh check
#   sudo deploy/admin.sh CONVERT_WORKER=off check
set -eu
cd "$(dirname "$0")/.."
set -a
. "${MILENOTES_ENV:-/etc/milenotes/milenotes.env}"
set +a
while [ $# -gt 0 ]; do
  case $1 in
    [A-Z_]*=*) export "$1"; shift ;;
    *) break ;;
  esac
done
exec setpriv --reuid=milenotes --regid=milenotes --init-groups \
  node --import ./scripts/require-node.mjs --import tsx server/cli/admin.ts "$@"
