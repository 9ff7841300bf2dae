/**
 * The site the benchmark serves: a private copy of dist/ (so a rebuild elsewhere cannot change it
 * mid-run) plus what only the benchmark needs: the static baseline home page, blank pages for the
 * upload baselines, and Workbox's stock BackgroundSyncPlugin worker built from bench/baseline-sw.ts.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { precompressFile } from '../scripts/precompress.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'sw', 'public', 'index.html', 'vite.config.ts', 'package-lock.json', 'scripts/build.mjs', 'scripts/precompress.mjs'];

async function newestMtime(p: string): Promise<number> {
  const info = await stat(p).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const times = await Promise.all((await readdir(p)).map((e) => newestMtime(path.join(p, e))));
  return Math.max(info.mtimeMs, ...times);
}

/** Builds dist/ the way `npm start` does: only when it is missing or older than its sources. */
export async function ensureBuilt(log: (m: string) => void): Promise<void> {
  const stamp = await stat(path.join(root, 'dist', '.build-stamp')).catch(() => undefined);
  const sources = Math.max(...(await Promise.all(SOURCES.map((s) => newestMtime(path.join(root, s))))));
  if (stamp && stamp.mtimeMs >= sources) return;
  log(stamp ? 'sources changed since the last build: rebuilding the site' : 'building the site (no dist/ yet)');
  const { buildSite } = (await import(pathToFileURL(path.join(root, 'scripts', 'build.mjs')).href)) as { buildSite: () => Promise<void> };
  await buildSite();
}

/** The home page with every script and module preload taken out: what a no-JavaScript site would serve. */
export function staticCopyOf(html: string): string {
  return html.replace(/<script\b[^>]*>[\s\S]*?<\/script>\s*/gi, '').replace(/<link\b[^>]*rel="modulepreload"[^>]*>\s*/gi, '');
}

const BLANK_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench</title></head><body><p>bench</p></body></html>';

export interface BenchSite {
  dir: string;
  /** Scripts and stylesheets the home page loads from its HTML, as paths under dir. */
  homeAssets: { scripts: string[]; styles: string[] };
}

export async function prepareSite(): Promise<BenchSite> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-bench-site-'));
  await cp(path.join(root, 'dist'), dir, { recursive: true });
  const home = await readFile(path.join(dir, 'index.html'), 'utf8');
  const scripts = [...home.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g), ...home.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  const styles = [...home.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  for (const asset of [...scripts, ...styles]) {
    await stat(path.join(dir, asset)).catch(() => {
      throw new Error(`dist/index.html names ${asset}, which is missing: was dist/ being rebuilt? Run the benchmark again.`);
    });
  }
  await writeFile(path.join(dir, 'baseline.html'), staticCopyOf(home));
  // Served like the real pages: compressed by the build's own step.
  await precompressFile(path.join(dir, 'baseline.html'));
  await mkdir(path.join(dir, 'bench'), { recursive: true });
  await writeFile(path.join(dir, 'bench', 'naive.html'), BLANK_PAGE);
  await writeFile(path.join(dir, 'bench', 'workbox.html'), BLANK_PAGE);
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      outDir: path.join(dir, 'bench'),
      emptyOutDir: false,
      lib: { entry: path.join(root, 'bench', 'baseline-sw.ts'), formats: ['iife'], name: 'baselineSw', fileName: () => 'baseline-sw.js' },
    },
  });
  return { dir, homeAssets: { scripts, styles } };
}
