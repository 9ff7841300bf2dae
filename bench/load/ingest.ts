/**
 * The ingest benchmark (npm run bench:ingest runs it through bench/ingest.ts; the bench's ingest section calls runIngest): 240 KB note uploads, 50 at a time, against the real server (SQLite + disk,
 * conversion off so ffmpeg does not compete for the CPU) and, in the same run, against a bare Node
 * http server that streams the same bodies to disk and fsyncs them. Prints notes/s, p50/p99
 * latency, peak memory of each server process, and the ratio.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '../../kit/freePort.js';
import { openRepository } from '../../server/db/index.js';
import { linkIdOf, newToken } from '../../server/links.js';
import { noteHeaders, notePutPath } from '../../stand-ins/friend.js';
import { median } from './stats.js';

const NOTE_BYTES = 240 * 1024;
const CONCURRENCY = 50;
const NOTES = Number(process.env.BENCH_NOTES ?? 1000);
const WARMUP = 100;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The baseline: stream to a temp file, fsync, rename, answer 201. No validation, no database. */
async function runBareServer(dir: string, port: number): Promise<void> {
  const server = http.createServer(async (req, res) => {
    const tmp = path.join(dir, `${randomUUID()}.part`);
    try {
      await pipeline(req, createWriteStream(tmp));
      const handle = await open(tmp, 'r');
      await handle.sync();
      await handle.close();
      await rename(tmp, tmp.replace(/\.part$/, ''));
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    } catch {
      res.writeHead(500).end();
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1');
}

async function waitUntilUp(base: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error('server exited during start');
    try {
      await fetch(`${base}/api/ping`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`server at ${base} did not start`);
}

/** Peak resident memory of a process since the last reset (Linux VmHWM), in MB. */
async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
}
const resetPeakRss = (pid: number) => writeFile(`/proc/${pid}/clear_refs`, '5').catch(() => {});

const baseBody = Buffer.alloc(NOTE_BYTES);
for (let i = 0; i < NOTE_BYTES; i++) baseBody[i] = (i * 31 + 7) & 0xff;
// Chrome's EBML header (DocType "webm"), so the sniffer accepts it.
Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d4287810442858102', 'hex').copy(baseBody);

function noteBody(n: number): Buffer {
  const body = Buffer.from(baseBody);
  body.writeUInt32BE(n, 64);
  return body;
}

async function uploadAll(base: string, pathFor: (id: string) => string, count: number, offset: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  const one = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const body = noteBody(offset + n);
      const started = performance.now();
      const req = http.request(
        new URL(pathFor(randomUUID()), base),
        {
          method: 'PUT',
          agent,
          headers: { ...noteHeaders({ contentType: 'audio/webm;codecs=opus', audio: body }), 'content-length': String(body.length) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 201) return reject(new Error(`upload answered ${res.statusCode}`));
            latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await one(next++);
    }),
  );
  agent.destroy();
  return latencies;
}

export interface Result {
  name: string;
  notesPerSecond: number;
  p50: number;
  p99: number;
  idleRssMb: number;
  peakRssMb: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Uploads NOTES notes once, returning throughput, latencies and the process's peak memory in that run. */
async function measure(name: string, pid: number, base: string, pathFor: (id: string) => string, notes: number): Promise<Result> {
  await resetPeakRss(pid);
  const started = performance.now();
  const latencies = await uploadAll(base, pathFor, notes, Math.floor(Math.random() * 1e9));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { name, notesPerSecond: notes / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), idleRssMb: 0, peakRssMb: await peakRssMb(pid) };
}

/** The disk here is shared and noisy: alternate the two servers and keep each one's better round (BENCH_ROUNDS for more). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const best = (results: Result[]) => results.reduce((a, b) => (b.notesPerSecond > a.notesPerSecond ? b : a));

export interface IngestResult {
  ours: Result;
  baseline: Result;
  notes: number;
  noteBytes: number;
  concurrency: number;
  rounds: number;
  warmup: number;
  /** Every round of both, in the order run: [ours, baseline] per round. */
  perRound: Array<[Result, Result]>;
}

/** Runs the whole comparison and returns the figures (bench/run.ts calls this; main() prints them). */
export async function runIngest({ notes = NOTES, warmup = WARMUP } = {}): Promise<IngestResult> {
  // On the real disk (bench/out), not a RAM-backed /tmp, so fsync costs what it costs.
  const work = await mkdtemp(path.join(root, 'bench', 'out-'));
  const children: ChildProcess[] = [];
  try {
    const dataDir = path.join(work, 'server');
    const repo = await openRepository({ dataDir, databaseUrl: undefined });
    const token = newToken();
    await repo.links.create({ linkId: linkIdOf(token), runnerName: 'Bench', raceId: 'chicago-2025', createdAt: new Date().toISOString() });
    await repo.close();

    const serverPort = await freePort();
    const server = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        PORT: String(serverPort),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        S3_BUCKET: '',
        LOG_LEVEL: 'warn',
        CONVERT_WORKER: 'off',
        RATE_LIMIT_PER_MINUTE: '1000000',
        DIST_DIR: path.join(work, 'no-dist'),
        // One client and one link carry the whole load here; the quotas are still checked, just never reached.
        LINK_MAX_NOTES: '1000000',
        LINK_MAX_BYTES: '1000000000000',
        UPLOADS_PER_ADDRESS: '1000000',
        OPEN_UPLOADS_PER_ADDRESS: '1000',
      },
    });
    const barePort = await freePort();
    const bareDir = path.join(work, 'bare');
    await mkdir(bareDir);
    const bare = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--bare-server', bareDir, String(barePort)], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(server, bare);
    const targets = [
      { name: 'MileNotes server', child: server, base: `http://127.0.0.1:${serverPort}`, pathFor: (id: string) => notePutPath(token, id, 'mi-13', 'Bench') },
      { name: 'bare node:http + fsync', child: bare, base: `http://127.0.0.1:${barePort}`, pathFor: (id: string) => `/bare/${id}` },
    ];
    const idle = new Map<string, number>();
    for (const t of targets) {
      await waitUntilUp(t.base, t.child);
      await uploadAll(t.base, t.pathFor, warmup, 2_000_000_000);
      idle.set(t.name, await peakRssMb(t.child.pid!));
    }
    const rounds: Result[][] = [[], []];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, t] of targets.entries()) rounds[i]!.push(await measure(t.name, t.child.pid!, t.base, t.pathFor, notes));
    }
    const [ours, baseline] = rounds.map((r) => ({ ...best(r), idleRssMb: idle.get(r[0]!.name)!, peakRssMb: Math.max(...r.map((x) => x.peakRssMb)) })) as [
      Result,
      Result,
    ];
    const perRound = rounds[0]!.map((r, i): [Result, Result] => [r, rounds[1]![i]!]);
    return { ours, baseline, notes, noteBytes: NOTE_BYTES, concurrency: CONCURRENCY, rounds: ROUNDS, warmup, perRound };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await rm(work, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  if (process.argv[2] === '--bare-server') return runBareServer(process.argv[3]!, Number(process.argv[4]));
  const { ours, baseline, perRound } = await runIngest();
  {
    console.log('\nevery round (ours / bare):');
    console.table(
      perRound.map(([o, b], i) => ({
        round: i + 1,
        'ours notes/s': o.notesPerSecond.toFixed(0),
        'bare notes/s': b.notesPerSecond.toFixed(0),
        ratio: (o.notesPerSecond / b.notesPerSecond).toFixed(2),
        'ours p50': o.p50.toFixed(1),
        'ours p99': o.p99.toFixed(1),
        'bare p50': b.p50.toFixed(1),
        'bare p99': b.p99.toFixed(1),
        'p99 ratio': (o.p99 / b.p99).toFixed(2),
      })),
    );
    console.log(
      `median of ${perRound.length} rounds: throughput ratio ${median(perRound.map(([o, b]) => o.notesPerSecond / b.notesPerSecond)).toFixed(2)}, ` +
        `p99 ratio ${median(perRound.map(([o, b]) => o.p99 / b.p99)).toFixed(2)}`,
    );
    console.log(
      `\ningest: ${NOTES} notes of ${NOTE_BYTES / 1024} KB, ${CONCURRENCY} at a time, best of ${ROUNDS} alternating rounds (after ${WARMUP} warm-up)\n`,
    );
    console.table(
      [ours, baseline].map((r) => ({
        server: r.name,
        'notes/s': r.notesPerSecond.toFixed(0),
        'p50 ms': r.p50.toFixed(1),
        'p99 ms': r.p99.toFixed(1),
        'idle RSS MB': r.idleRssMb.toFixed(0),
        'peak RSS MB': r.peakRssMb.toFixed(0),
      })),
    );
    const ratio = ours.notesPerSecond / baseline.notesPerSecond;
    console.log(`throughput ratio (MileNotes / bare): ${ratio.toFixed(2)}  (aim: >= 0.80)`);
    console.log(
      `peak memory over idle: ${(ours.peakRssMb - ours.idleRssMb).toFixed(0)} MB for ${CONCURRENCY} concurrent bodies of ${NOTE_BYTES / 1024} KB ` +
        `(${((CONCURRENCY * NOTE_BYTES) / 1024 / 1024).toFixed(1)} MB if held whole)`,
    );
  }
}

// Run as the bare server's child process (bench/ingest.ts is npm run bench:ingest; bench/run.ts imports runIngest).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
