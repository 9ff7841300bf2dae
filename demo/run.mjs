// npm run demo: builds the site if needed (as npm start does), then plays a whole race on this
// computer (./main.ts says how). An older Node than package.json's "engines" is named first, before
// anything from node_modules is imported (scripts/start.mjs says why the rest is imported later).
import '../scripts/require-node.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const { register } = await import('tsx/esm/api');
const { ensureSiteBuilt } = await import('../scripts/site-built.mjs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await ensureSiteBuilt();
process.chdir(root);
register();
await import('./main.ts');
