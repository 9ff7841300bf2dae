// Imported first by `npm start`, `npm run admin`, `npm run serve` and `npm run demo` (before anything
// native loads): on a Node older than package.json's "engines" it says which Node is needed and how
// to get one (server/node-version.mjs), and exits 1.
import { nodeRefusal } from '../server/node-version.mjs';

const refusal = nodeRefusal();
if (refusal) {
  process.stderr.write(refusal);
  process.exit(1);
}
