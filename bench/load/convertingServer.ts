/**
 * The converting servers of the API-server bench, in one process of their own: the server's own
 * conversion worker (server/conversion/worker.ts: claims with a lease, the original read from the
 * store, the M4A stored, the note marked converted and its runner's held syncs signalled through
 * PostgreSQL's NOTIFY, as a converting server elsewhere does), with ffmpeg's part replaced by a
 * copy of one real conversion made at start. An API server (CONVERT_WORKER=off) converts nothing;
 * on this 2-core machine a real converter would take a core from what is measured. Each note it
 * marks converted is told to the parent with the moment the commit returned, where the wait of
 * the app's held answer starts.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { startConverter, type Converter } from '../../server/audio/converter.js';
import { loadConfig } from '../../server/config/index.js';
import { startConversionWorker } from '../../server/conversion/worker.js';
import { openRepository } from '../../server/db/index.js';
import { openBlobStore } from '../../server/storage/index.js';
import { friendNote } from '../../stand-ins/friend.js';

export type FromConverting = { kind: 'started' } | { kind: 'converted'; id: string; at: number };

const send = (m: FromConverting) => process.send!(m);
const log = Fastify({ logger: { level: 'warn' } }).log;

/** One real conversion of a 35 s note (the plan's mean), whose M4A stands for every note's. */
async function madeOnce(dir: string): Promise<{ file: string; durationMs: number }> {
  const note = await friendNote(35);
  const input = path.join(dir, 'note.webm');
  const file = path.join(dir, 'note.m4a');
  await writeFile(input, note.audio);
  const real = startConverter(log);
  try {
    const { durationMs } = await real.convert(input, 'webm', file, { timeoutMs: 120_000, maxSeconds: 75 });
    return { file, durationMs };
  } finally {
    await real.close();
  }
}

const config = loadConfig(process.env);
const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-converting-stand-in-'));
const made = await madeOnce(dir);
const copying: Converter = {
  convert: async (_input, _container, output) => {
    await copyFile(made.file, output);
    return { durationMs: made.durationMs };
  },
  prepare: () => {},
  close: async () => {},
};
const opened = await openRepository(config);
const repo = {
  ...opened,
  jobs: {
    ...opened.jobs,
    markConverted: async (...args: Parameters<typeof opened.jobs.markConverted>) => {
      const marked = await opened.jobs.markConverted(...args);
      if (marked) send({ kind: 'converted', id: args[0], at: Date.now() });
      return marked;
    },
  },
};
const worker = startConversionWorker({
  repo,
  blobs: openBlobStore(config),
  log,
  ffmpegTimeoutMs: config.ffmpegTimeoutMs,
  maxNoteSeconds: config.maxNoteSeconds,
  concurrency: config.convertConcurrency,
  leaseMs: config.convertLeaseMs,
  heartbeatMs: config.convertHeartbeatMs,
  converter: copying,
});
process.on('message', (m: { kind: 'stop' }) => {
  if (m.kind !== 'stop') return;
  void (async () => {
    await worker.stop();
    await opened.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  })();
});
send({ kind: 'started' });
