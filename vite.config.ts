import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import LongWaitsFirst from './tests/server/support/sequencer.js';

// The page build. The service worker and the prerender step are built by scripts/build.mjs.
/** The recorder's own modules, and those it shares with the home screen only. */
const RECORDER_CHUNK =
  /[\\/]src[\\/](recorderApp\.tsx|recorder[\\/]|recording[\\/]|firstScreen[\\/]takeover\.ts|outbox[\\/]|components[\\/](LoadingScreen|ChunkErrorScreen)\.tsx|RouteErrorBoundary\.tsx|serverClock\.ts|xhrTransport\.ts)|[\\/]contract[\\/](raceClock|contentDigest|refusals|messages|delivery|uploadProtocol)\.ts|[\\/]node_modules[\\/]idb[\\/]/;
/** The recorder's controls for after a first note: a chunk of their own, loaded later (below). */
const LATER_CHUNK = /[\\/]src[\\/]recorder[\\/](laterControls\.tsx|later\.css|laterWords\.ts|InstallOffer\.tsx|installOffer\.ts|push[\\/])/;
/**
 * The chunk groups below are the page's: a build that must be one file (the service worker's IIFE,
 * which scripts/build.mjs builds with this config) keeps Vite's own `codeSplitting: false`.
 */
const ONE_FILE_STAYS_ONE: Plugin = {
  name: 'one-file-stays-one',
  outputOptions: (output) => (output.format === 'iife' ? { ...output, codeSplitting: false } : null),
};

export default defineConfig({
  plugins: [react(), ONE_FILE_STAYS_ONE],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Read by scripts/build.mjs to preload each screen's files from its prerendered shell.
    manifest: true,
    rollupOptions: {
      output: {
        // React changes less often than our screens: its own file stays cached across releases.
        // (react-router is only used to prerender the pages; no screen in the browser needs it.)
        // The recorder's screen and what it shares with the home screen (the outbox, the loading and
        // error screens, the server's clock) in one file: as a chunk of their own they were
        // one more request on a first visit's path to Record (6 at once over HTTP/1.1) and 0.7 KB of
        // imports and exports. The home screen loads it whole; the installed app has it cached anyway.
        // Only the modules named (their own dependencies stay where they are), so the keepsake never
        // loads it and the later chunk stays apart.
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
            { name: 'recorderApp', test: (id: string) => RECORDER_CHUNK.test(id) && !LATER_CHUNK.test(id) },
          ],
        },
        // Each language but English (built into the recorder) is a chunk of its own, loaded only
        // when chosen: assets/lang-<code>-<hash>.js. The lazily loaded screen, and the chunk it
        // shares with the keepsake (the API client, the words), are named for what they are,
        // assets/recorder-<hash>.js, so the bench's size of the recorder (bench/sections/pages.ts) counts them.
        chunkFileNames: (chunk) => {
          if (/\/src\/i18n\/[a-z]{2}\.ts$/.test(chunk.facadeModuleId ?? '')) return 'assets/lang-[name]-[hash].js';
          // The home screen by its own name, so it never counts as the recorder.
          if (/\/src\/homeScreenApp\.tsx$/.test(chunk.facadeModuleId ?? '')) return 'assets/home-screen-[hash].js';
          // The keepsake's, which carries its own English words (src/i18n/enKeepsake.ts), never counts as the recorder either.
          if (/\/src\/keepsake\/keepsakeApp\.tsx$/.test(chunk.facadeModuleId ?? '')) return 'assets/keepsakeApp-[hash].js';
          // The recorder's controls for after a first note, loaded once one could show: never
          // on a first visit's path to Record, so never counted as the recorder, nor precached at install.
          if (/\/src\/recorder\/laterControls\.tsx$/.test(chunk.facadeModuleId ?? '')) return 'assets/later-[hash].js';
          return chunk.moduleIds.some((id) => /\/src\/(recorder\/|recorderApp|i18n\/|serverClock|xhrTransport)/.test(id))
            ? 'assets/recorder-[hash].js'
            : 'assets/[name]-[hash].js';
        },
      },
    },
  },
  test: {
    // Vitest runs (cores - 1) files at once: one on a 2-core machine. The server tests mostly wait
    // (idle timeouts, slow uploads, child servers, ffmpeg), so three at once cut the wall time
    // without starving the CPU.
    maxWorkers: 3,
    // The files that mostly wait start first, with or without vitest's cache of durations.
    sequence: { sequencer: LongWaitsFirst },
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: [
            'tests/src/**/*.test.{ts,tsx}',
            'tests/sw/**/*.test.ts',
            'tests/contract/**/*.test.ts',
            'tests/demo/**/*.test.ts',
            'tests/house/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'server',
          environment: 'node',
          include: [
            'tests/server/**/*.test.ts',
            'tests/reference-app/**/*.test.ts',
            'tests/bench/**/*.test.ts',
            'tests/kit/**/*.test.ts',
            'tests/deploy/**/*.test.ts',
          ],
          globalSetup: ['tests/server/globalSetup.ts', 'tests/server/openapi/globalSetup.ts'],
          // Every answer a server test receives is checked against /api/openapi.json.
          setupFiles: ['tests/server/openapi/drift-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // expect.poll waits on a state a server reaches in its own time (a worker's push sent, a
          // sweep run): 1 s, vitest's default, was too short on a loaded 2-core machine (12 pushes
          // through two servers' workers took longer). A state never reached still fails.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
