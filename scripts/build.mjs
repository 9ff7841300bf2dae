// Builds the site into dist/: the page bundle (Vite), prerendered HTML for each page (r.html with
// the recorder's first-screen script inline), the service worker (Vite bundle + Workbox precache
// manifest), .br/.gz copies of the text files, and the server's renderer of /r/'s first screen
// (dist/.server/, never served). npm start runs this when needed.
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
  // Vite's manifest is read here, not served.
  const manifest = JSON.parse(await readFile(path.join(dist, '.vite', 'manifest.json'), 'utf8'));
  await rm(path.join(dist, '.vite'), { recursive: true });
  await prerender(manifest, await buildFirstScreen());
  await buildServiceWorker(installSet(manifest));
  const { raw, br } = await precompress(dist);
  console.log(`text files precompressed: ${(raw / 1024).toFixed(0)} KiB -> ${(br / 1024).toFixed(0)} KiB brotli`);
  // After the worker's lists and the compression: the server's alone, never served (server/routes/site.ts).
  const { RECORDER_RENDERER } = await import(pathToFileURL(path.join(work, 'ssr', 'entry-server.js')).href);
  await buildRecorderRenderer(RECORDER_RENDERER);

  await writeFile(path.join(dist, '.build-stamp'), new Date().toISOString());
  console.log(`site built into dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** The on-demand screen behind each prerendered shell. */
const SCREEN_OF_SHELL = { 'r.html': 'src/recorderApp.tsx', 's.html': 'src/keepsake/keepsakeApp.tsx', 'home-screen.html': 'src/homeScreenApp.tsx' };

/**
 * The shells whose screen's files are preloaded from their <head>. Not /r/'s: its first script
 * (buildFirstScreen) makes Record work on the screen the server draws, and React, the recorder's
 * chunk and its words come after, never on the wire before Record works.
 */
const PRELOADED_SCREENS = new Set(['s.html', 'home-screen.html']);

/**
 * The chunk a screen's entry module went into when vite.config.ts groups it with what it shares (the
 * recorder's): the manifest then has no key for the module, and the chunk bears its name.
 */
function groupChunkOf(manifest, entry) {
  const name = path.basename(entry).replace(/\.[jt]sx?$/, '');
  return Object.values(manifest).find((chunk) => chunk.name === name && !chunk.src && !chunk.isEntry);
}

/** A screen's chunks (without the shell's entry) and stylesheets, from Vite's manifest. */
function screenFiles(manifest, entry) {
  const scripts = new Set();
  const styles = new Set();
  const visit = (key) => {
    const chunk = manifest[key] ?? (key === entry ? groupChunkOf(manifest, entry) : undefined);
    if (!chunk || chunk.isEntry || scripts.has(chunk.file)) return;
    scripts.add(chunk.file);
    for (const css of chunk.css ?? []) styles.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entry);
  if (scripts.size === 0) throw new Error(`Vite's manifest has no chunk for ${entry}`);
  return { scripts: [...scripts], styles: [...styles] };
}

/**
 * <link>s that start downloading a screen's chunks and stylesheet while the HTML is parsed, in
 * parallel with the shell's script, instead of after it has run. In <head>, not held back until
 * the first paint (d5e3ae4 did that for Lighthouse's simulated LCP): the Record button works
 * sooner on both bench profiles this way, and the person's time is the aim.
 */
function screenPreloads(manifest, entry) {
  const { scripts, styles } = screenFiles(manifest, entry);
  return [
    ...scripts.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
    ...styles.map((file) => `<link rel="preload" as="style" crossorigin href="/${file}">`),
  ].join('\n    ');
}

/**
 * After r.html's #root: its first screen's script, which makes Record work on the screen the server
 * draws there, then the names of the recorder's files, which the shell's script asks for together
 * once it runs, after Record works (src/main.ts).
 */
function recorderScripts(manifest, firstScreen, filesId) {
  const { scripts } = screenFiles(manifest, SCREEN_OF_SHELL['r.html']);
  const files = JSON.stringify(scripts.map((file) => `/${file}`));
  return `\n    <script>${firstScreen.script}</script>\n    <script type="application/json" id="${filesId}">${files}</script>`;
}

/**
 * The recorder's languages other than English (src/i18n/languages.ts), a chunk each: a
 * page loads only its own, but the worker keeps them all, so the recorder opens offline in any
 * language and its menu still works there.
 */
function languageFiles(manifest) {
  const files = Object.values(manifest)
    .filter((chunk) => /^assets\/lang-[a-z]{2}-/.test(chunk.file))
    .map((chunk) => chunk.file);
  if (files.length === 0) throw new Error("Vite's manifest has no assets/lang-*.js: the recorder's languages were not found");
  return files;
}

/**
 * What the service worker's install fetches: everything that opens /r/ offline (its shell, the
 * shell's script and style, the recorder's chunks and languages), the home screen
 * and its chunk (it opens from the home screen with no signal), and the small HTML of the other
 * pages. All else it may cache (pictures, icons, the keepsake screen) waits for later (sw/laterCache.ts).
 */
function installSet(manifest) {
  const shell = manifest['index.html'];
  const screens = ['r.html', 'home-screen.html'].map((file) => screenFiles(manifest, SCREEN_OF_SHELL[file]));
  return [
    ...new Set([
      'r.html',
      'home-screen.html',
      'index.html',
      'terms.html',
      'privacy.html',
      '404.html',
      'manifest.webmanifest',
      'icons/icon.svg',
      shell.file,
      ...(shell.css ?? []),
      ...screens.flatMap((screen) => [...screen.scripts, ...screen.styles]),
      ...languageFiles(manifest),
    ]),
  ];
}

/**
 * `firstScreen`: /r/:token's first script and the recorder's stylesheet (buildFirstScreen), which
 * r.html carries inline.
 */
async function prerender(manifest, firstScreen) {
  const template = await readFile(path.join(dist, 'index.html'), 'utf8');
  const { PAGES, render, SHELL_TEMPLATES, TODAY_SCRIPT, REGISTER_WORKER_SCRIPT, RECORDER_SCREEN_MARKS, SCREEN_FILES_ID } = await import(
    pathToFileURL(path.join(work, 'ssr', 'entry-server.js')).href
  );
  for (const page of PAGES) {
    const isRecorder = page.file === 'r.html';
    let head = `<title>${escapeHtml(page.title)}</title>\n    <meta name="description" content="${escapeHtml(page.description)}" />`;
    if (PRELOADED_SCREENS.has(page.file)) head += `\n    ${screenPreloads(manifest, SCREEN_OF_SHELL[page.file])}`;
    // The recorder's #root holds what the server replaces with the screen it draws (server/routes/recorder-page.ts).
    const root = isRecorder ? `${RECORDER_SCREEN_MARKS.start}${render(page.url)}${RECORDER_SCREEN_MARKS.end}` : render(page.url);
    let html = template
      .replace('<!--head-->', head)
      .replace(
        '<div id="root"><!--app-html--></div>',
        `<div id="root">${root}</div>${SCREEN_OF_SHELL[page.file] ? SHELL_TEMPLATES : ''}${isRecorder ? recorderScripts(manifest, firstScreen, SCREEN_FILES_ID) : ''}`,
      )
      .replace('<!--today-script-->', page.showsToday ? `<script>${TODAY_SCRIPT}</script>` : '');
    if (!html.includes(root)) throw new Error(`${page.file}: index.html has no <div id="root"><!--app-html--></div>`);
    html = html.replace('</body>', `  <script>${REGISTER_WORKER_SCRIPT}</script>\n  </body>`);
    if (SCREEN_OF_SHELL[page.file]) html = await inlineStylesheet(html, page.file, isRecorder ? [firstScreen.css] : []);
    // A page without a screen needs no file of script at all: its only script is the inline one above.
    if (!SCREEN_OF_SHELL[page.file]) {
      const entry = /\s*<script type="module" crossorigin src="\/assets\/[^"]+"><\/script>/;
      if (!entry.test(html)) throw new Error(`${page.file}: the entry script tag was not found`);
      html = html.replace(entry, '');
    }
    await writeFile(path.join(dist, page.file), html);
  }
}

/**
 * A shell carries the site's stylesheet (and `more`, r.html the recorder's) in a <style>, so it
 * paints as soon as its HTML is in: on a slow link that is one round trip sooner than after a
 * request for the stylesheet, while the screen's scripts download. The server allows it by the
 * block's hash (server/routes/site.ts).
 */
async function inlineStylesheet(html, file, more) {
  const link = /<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/;
  const match = link.exec(html);
  if (!match) throw new Error(`${file}: the stylesheet link was not found`);
  const css = [(await readFile(path.join(dist, match[1]), 'utf8')).trim(), ...more].join('\n');
  if (css.includes('</')) throw new Error(`${file}: ${match[1]} cannot be inlined, it contains '</'`);
  return html.replace(link, () => `<style>${css}</style>`);
}

/**
 * /r/:token's first script (src/firstScreen) as one classic script, and the recorder's stylesheet
 * it imports, both for r.html to carry inline: Record works once the page's HTML is in, with no
 * request after it (a round trip on one bar, most of the budget). The server allows the script by
 * its hash, read from the built page (server/routes/site.ts).
 */
async function buildFirstScreen() {
  const out = path.join(work, 'first-screen');
  await build({
    root,
    logLevel: 'warn',
    configFile: false,
    publicDir: false,
    build: {
      outDir: out,
      emptyOutDir: true,
      minify: true,
      lib: {
        entry: path.join(root, 'src/firstScreen/index.ts'),
        formats: ['iife'],
        name: 'milenotesFirstScreen',
        fileName: () => 'first-screen.js',
        cssFileName: 'first-screen',
      },
    },
  });
  const script = (await readFile(path.join(out, 'first-screen.js'), 'utf8')).trim();
  // Without the marker comment Vite leaves in a library's stylesheet.
  const css = (await readFile(path.join(out, 'first-screen.css'), 'utf8')).replace(/\/\*\$vite\$:\d+\*\//g, '').trim();
  if (/<\/script|<!--/i.test(script)) throw new Error("the first screen's script cannot be inlined: it contains '</script' or '<!--'");
  if (css.includes('</')) throw new Error("the recorder's stylesheet cannot be inlined, it contains '</'");
  return { script, css };
}

/**
 * The server's drawing of /r/:token's first screen (src/entry-recorder.tsx): one self-contained
 * module, React's server renderer in it, so a copy of dist/ anywhere serves it (the bench's).
 */
async function buildRecorderRenderer(file) {
  await build({
    root,
    logLevel: 'warn',
    configFile: false,
    publicDir: false,
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    ssr: { noExternal: true, target: 'node' },
    build: {
      ssr: 'src/entry-recorder.tsx',
      outDir: path.join(dist, path.dirname(file)),
      emptyOutDir: true,
      copyPublicDir: false,
      rollupOptions: { output: { entryFileNames: path.basename(file), codeSplitting: false } },
    },
  });
}

async function buildServiceWorker(installFiles) {
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
  // Two lists go into the worker: self.__WB_MANIFEST, precached at install, and self.__WB_LATER.
  const common = { globDirectory: dist, dontCacheBustURLsMatching: /^assets\//, maximumFileSizeToCacheInBytes: 4 * 1024 * 1024 };
  const install = await injectManifest({
    ...common,
    swSrc: path.join(work, 'sw', 'sw.js'),
    swDest: path.join(work, 'sw', 'sw.install.js'),
    globPatterns: installFiles,
  });
  const later = await injectManifest({
    ...common,
    swSrc: path.join(work, 'sw', 'sw.install.js'),
    swDest: path.join(dist, 'sw.js'),
    injectionPoint: 'self.__WB_LATER',
    globPatterns: ['**/*.{html,js,css,svg,png,webp,webmanifest}'],
    // The hero video is left to the network: the poster stands in for it offline.
    globIgnores: ['sw.js', 'media/*.mp4', ...installFiles],
  });
  for (const warning of [...install.warnings, ...later.warnings]) console.warn(warning);
  if (install.count !== installFiles.length) throw new Error(`the install set names ${installFiles.length} files but ${install.count} exist`);
  const kib = (n) => (n / 1024).toFixed(0);
  console.log(`service worker precaches ${install.count} files, ${kib(install.size)} KiB; later or on use: ${later.count} files, ${kib(later.size)} KiB`);
}

function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await mkdir(dist, { recursive: true });
  await buildSite();
}
