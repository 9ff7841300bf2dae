// npm start: builds the site if it is missing or older than its sources, then runs the server
// (site and API) in this same process on PORT (default 8080). On a Node older than package.json's
// "engines" it says so and stops before loading anything (./require-node.mjs, imported first).
import './require-node.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { ensureSiteBuilt } from './site-built.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await ensureSiteBuilt();
process.chdir(root);
register();
await import('../server/index.ts');
