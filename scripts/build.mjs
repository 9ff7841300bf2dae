// Builds the site into dist/: the page bundle (Vite), prerendered HTML for each page, the
// service worker (Vite bundle + Workbox precache manifest), and .br/.gz copies of the
// text files. npm start runs this when needed.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { injectManifest } from 'workbox-build';
import { precompress } from './precompress.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const work = path.join(root, '.build');
const quiet = { logLevel: 'warn', root, configFile: path.join(root, 'vite.config.ts') };

export async function buildSite() {
  const started = Date.now();
  await rm(work, { recursive: true, force: true });

  await build({ ...quiet });
  await build({
    ...quiet,
    build: { ssr: 'src/entry-server.tsx', outDir: path.join(work, 'ssr'), emptyOutDir: true, copyPublicDir: false },
  });
  await prerender();
  await buildServiceWorker();
  const { raw, br } = await precompress(dist);
  console.log(`text files precompressed: ${(raw / 1024).toFixed(0)} KiB -> ${(br / 1024).toFixed(0)} KiB brotli`);

  await writeFile(path.join(dist, '.build-stamp'), new Date().toISOString());
  console.log(`site built into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** The on-demand screen behind each prerendered shell: its files are preloaded from the shell. */
const SCREEN_OF_SHELL = { 'r.html': 'src/recorderApp.tsx', 's.html': 'src/keepsake/keepsakeApp.tsx' };

/**
 * <link>s that start downloading a screen's chunks and stylesheet while the HTML is parsed, in
 * parallel with the shell's script, instead of after it has run. Read from Vite's manifest.
 */
function screenPreloads(manifest, entry) {
  const scripts = new Set();
  const styles = new Set();
  const visit = (key) => {
    const chunk = manifest[key];
    if (!chunk || chunk.isEntry || scripts.has(chunk.file)) return;
    scripts.add(chunk.file);
    for (const css of chunk.css ?? []) styles.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entry);
  if (scripts.size === 0) throw new Error(`Vite's manifest has no chunk for ${entry}`);
  return [
    ...[...scripts].map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
    ...[...styles].map((file) => `<link rel="preload" as="style" crossorigin href="/${file}">`),
  ].join('\n    ');
}

async function prerender() {
  const template = await readFile(path.join(dist, 'index.html'), 'utf8');
  const manifestFile = path.join(dist, '.vite', 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
  await rm(path.join(dist, '.vite'), { recursive: true });
  const { PAGES, render, TODAY_SCRIPT } = await import(pathToFileURL(path.join(work, 'ssr', 'entry-server.js')).href);
  for (const page of PAGES) {
    let head = `<title>${escapeHtml(page.title)}</title>\n    <meta name="description" content="${escapeHtml(page.description)}" />`;
    if (SCREEN_OF_SHELL[page.file]) head += `\n    ${screenPreloads(manifest, SCREEN_OF_SHELL[page.file])}`;
    const html = template
      .replace('<!--head-->', head)
      .replace('<!--app-html-->', render(page.url))
      .replace('<!--today-script-->', page.showsToday ? `<script>${TODAY_SCRIPT}</script>` : '');
    await writeFile(path.join(dist, page.file), html);
  }
}

async function buildServiceWorker() {
  await build({
    ...quiet,
    publicDir: false,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      outDir: path.join(work, 'sw'),
      emptyOutDir: true,
      lib: { entry: path.join(root, 'sw/sw.ts'), formats: ['iife'], name: 'milenotesSw', fileName: () => 'sw.js' },
    },
  });
  const { count, size, warnings } = await injectManifest({
    swSrc: path.join(work, 'sw', 'sw.js'),
    swDest: path.join(dist, 'sw.js'),
    globDirectory: dist,
    // The hero video is left to the network: the poster stands in for it offline.
    globPatterns: ['**/*.{html,js,css,svg,png,webp,webmanifest}'],
    globIgnores: ['sw.js', 'media/*.mp4'],
    dontCacheBustURLsMatching: /^assets\//,
  });
  for (const warning of warnings) console.warn(warning);
  console.log(`service worker precaches ${count} files, ${(size / 1024).toFixed(0)} KiB`);
}

function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await mkdir(dist, { recursive: true });
  await buildSite();
}
