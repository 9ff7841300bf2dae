// npm start: builds the site if it is missing or older than its sources, then runs the server
// (site and API) in this same process on PORT (default 8080). On a Node older than package.json's
// "engines" it says so and stops before loading anything (./require-node.mjs, the one static import
// beside Node's own): what needs node_modules is imported only after it, since a static import that
// cannot be found fails before any module runs, and after a refused `npm ci` there is no node_modules.
import './require-node.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const { register } = await import('tsx/esm/api');
const { ensureSiteBuilt } = await import('./site-built.mjs');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await ensureSiteBuilt();
process.chdir(root);
register();
await import('../server/index.ts');
