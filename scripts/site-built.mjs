// The site's build check, shared by `npm start` and `npm run demo`: builds dist/ if it is missing
// or older than its sources.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = [
  'src',
  'contract',
  'sw',
  'public',
  'index.html',
  'vite.config.ts',
  'package-lock.json',
  'scripts/build.mjs',
  'scripts/precompress.mjs',
  'server/precompression.mjs',
];

async function newestMtime(p) {
  const info = await stat(p).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(p);
  const times = await Promise.all(entries.map((e) => newestMtime(path.join(p, e))));
  return Math.max(info.mtimeMs, ...times);
}

export async function ensureSiteBuilt() {
  const stamp = await stat(path.join(root, 'dist', '.build-stamp')).catch(() => undefined);
  const sourcesTime = Math.max(...(await Promise.all(SOURCES.map((s) => newestMtime(path.join(root, s))))));
  if (stamp && stamp.mtimeMs >= sourcesTime) return;
  console.log(stamp ? 'sources changed since the last build: rebuilding the site' : 'building the site (first run)');
  const { buildSite } = await import('./build.mjs');
  // Vite sets NODE_ENV=production in this process while it builds; the server must see
  // the user's NODE_ENV, or a first `npm start` demands production secrets.
  const nodeEnv = process.env.NODE_ENV;
  await buildSite();
  if (nodeEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = nodeEnv;
}
