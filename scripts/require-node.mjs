// Runs first in every npm command that starts Node (package.json's scripts: `--import` before tsx, or
// the entry's first import, whose other imports are Node's own), before anything from node_modules
// loads: on a Node older than package.json's "engines" it says which Node is needed and how to get one
// (server/node-version.mjs), and exits 1. It needs nothing installed: after `npm ci` refused that
// Node there is no node_modules.
import { nodeRefusal } from '../server/node-version.mjs';

const refusal = nodeRefusal();
if (refusal) {
  process.stderr.write(refusal);
  process.exit(1);
}
