/**
 * `npm run admin -- check`, the preflight, as a child process on configurations that each break one
 * part of a good one: ffmpeg without its AAC encoder (a stand-in first on PATH), a blob store that
 * cannot be written (a read-only folder; an S3 stand-in refusing writes), a small disk below
 * READY_MIN_FREE_MB, PUBLIC_URL on plain HTTP, a clock 10 minutes off Apple's, push keys kept under
 * another SESSION_SECRET. Each fails that line alone, with its fix, and exits 1 (an https PUBLIC_URL
 * without TRUST_PROXY warns on its line, and exits 0); the good configuration passes every line and
 * exits 0, on SQLite with audio on disk and on PostgreSQL with S3. The runs go side by side: each mostly waits.
 * The good run and ffmpeg's are child processes as npm runs them (the stand-in on the PATH the
 * converter process inherits); the others go through the same dispatcher in this process, as
 * support/cli.ts does for many calls, and with CONVERT_WORKER=off, which makes ffmpeg's line 'not
 * needed here' as on a server that converts nothing: a Node and tsx start and a probe cost about
 * 1.2 s of CPU per run, and the good run already shows the probe passing.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepository } from '../../../server/db/index.js';
import { vapidKeysOf } from '../../../server/push/keys.js';
import { loadConfig } from '../../../server/config/index.js';
import { startFakeApple, type FakeApple } from '../../../stand-ins/fakeApple.js';
import { createBackend, type TestBackend } from '../support/backends.js';
import { runAdmin, runAdminProcess, type AdminRun } from '../support/cli.js';
import { startS3, type TestS3 } from '../support/s3.js';
import { mountSmallDisk, type SmallDisk } from '../support/small-disk.js';

const run = promisify(execFile);
/** Every line, in order (server/ops/preflight/checks.ts after the Node and the settings). */
const CHECKS = ['node', 'settings', 'database', 'clock', 'blob store', 'free space', 'ffmpeg', 'public URL', 'Apple sign-in', 'push'];

interface Line {
  verdict: string;
  name: string;
  says: string;
}

/** The run's lines, by check: `OK    database      the SQLite file … answers; …`. */
function linesOf(result: AdminRun): Map<string, Line> {
  const lines = result.stdout.split('\n').filter((l) => /^(OK|WARN|FAIL) /.test(l));
  return new Map(
    lines.map((l) => {
      const line = { verdict: l.slice(0, 4).trim(), name: l.slice(6, 20).trim(), says: l.slice(21) };
      return [line.name, line];
    }),
  );
}

/** A server answering HTTP on loopback with `handle`; closed by the returned function. */
async function serve(handle: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** An S3 whose keys may not write: every PUT answered as S3 answers a key without s3:PutObject. */
const refusingS3 = () =>
  serve((req, res) => {
    req.resume();
    const status = req.method === 'PUT' ? 403 : 404;
    const code = status === 403 ? 'AccessDenied' : 'NoSuchKey';
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${status === 403 ? 'Access Denied' : 'Not Found'}</Message><RequestId>1</RequestId></Error>`,
    );
  });

describe('npm run admin -- check', () => {
  let apple: FakeApple;
  let lateApple: { url: string; close(): Promise<void> };
  let deniedS3: { url: string; close(): Promise<void> };
  let s3: TestS3;
  let sqlite: TestBackend;
  let otherSecret: TestBackend;
  let postgres: TestBackend;
  let disk: SmallDisk;
  let scratch: string;
  let readOnlyStore: string;
  const noAacDir = () => path.join(scratch, 'no-aac');
  const runs: Record<string, AdminRun> = {};

  beforeAll(async () => {
    [apple, s3, disk, sqlite, postgres, deniedS3, otherSecret] = await Promise.all([
      startFakeApple(),
      startS3(),
      mountSmallDisk(8),
      createBackend('sqlite'),
      createBackend('postgres'),
      refusingS3(),
      createBackend('sqlite'),
    ]);
    // Push keys made and kept by servers with another SESSION_SECRET than the one this run is given.
    const others = await openRepository(loadConfig({ ...otherSecret.env }));
    await vapidKeysOf(others.push, undefined, new TextEncoder().encode('another-session-secret-of-32-or-more-chars'), Date.now());
    await others.close();
    // Apple's keys, served with a Date 10 minutes behind this machine's clock.
    const keys = await (await fetch(apple.jwksUrl)).text();
    lateApple = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', date: new Date(Date.now() - 10 * 60_000).toUTCString() });
      res.end(keys);
    });
    scratch = await mkdtemp(path.join(os.tmpdir(), 'milenotes-preflight-test-'));
    // ffmpeg built without its AAC encoder: refuses `-c:a aac` as such a build does, and is the real one otherwise.
    const noAac = noAacDir();
    await mkdir(noAac);
    const { stdout: realFfmpeg } = await run('sh', ['-c', 'command -v ffmpeg']);
    await writeFile(
      path.join(noAac, 'ffmpeg'),
      [
        '#!/bin/sh',
        'prev=',
        'for arg in "$@"; do',
        '  if [ "$prev" = "-c:a" ] && [ "$arg" = "aac" ]; then echo "Unknown encoder \'aac\'" >&2; exit 1; fi',
        '  prev=$arg',
        'done',
        `exec ${realFfmpeg.trim()} "$@"`,
      ].join('\n'),
    );
    await chmod(path.join(noAac, 'ffmpeg'), 0o755);
    // A data folder whose blobs folder is a read-only file system (permissions would not stop root, which the suite runs as).
    readOnlyStore = path.join(scratch, 'read-only-data');
    await mkdir(path.join(readOnlyStore, 'blobs'), { recursive: true });
    await run('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', path.join(readOnlyStore, 'blobs')]);

    const good: NodeJS.ProcessEnv = {
      ...sqlite.env,
      NODE_ENV: 'production',
      SESSION_SECRET: 'a-session-secret-of-more-than-32-characters',
      APPLE_AUDIENCE: apple.audience,
      APPLE_JWKS_URL: apple.jwksUrl,
      PUBLIC_URL: 'https://notes.example.com',
      TRUST_PROXY: 'loopback',
      READY_MIN_FREE_MB: '16',
      CONVERT_WORKER: 'on',
    };
    const noProbe = { ...good, CONVERT_WORKER: 'off' };
    const inChildProcess: Record<string, NodeJS.ProcessEnv> = {
      good,
      ffmpegWithoutAac: { ...good, PATH: `${noAac}${path.delimiter}${process.env.PATH}` },
    };
    const inThisProcess: Record<string, NodeJS.ProcessEnv> = {
      goodOnPostgresAndS3: { ...noProbe, ...postgres.env, ...s3.env },
      readOnlyStore: { ...noProbe, DATA_DIR: readOnlyStore },
      s3RefusingWrites: { ...noProbe, ...s3.env, S3_ENDPOINT: deniedS3.url },
      smallDisk: { ...noProbe, DATA_DIR: disk.dir },
      plainHttp: { ...noProbe, PUBLIC_URL: 'http://notes.example.com', VAPID_SUBJECT: 'mailto:ops@example.com' },
      httpsWithoutTrustProxy: { ...noProbe, TRUST_PROXY: '' },
      clockOff: { ...noProbe, APPLE_JWKS_URL: `${lateApple.url}/auth/keys` },
      pushKeysOfAnotherSecret: { ...noProbe, DATA_DIR: otherSecret.env.DATA_DIR },
      // Production refuses to start with it (the settings line); elsewhere the push line says why.
      localhostSubject: { ...noProbe, NODE_ENV: 'development', VAPID_SUBJECT: 'mailto:push@localhost' },
    };
    await Promise.all([
      ...Object.entries(inChildProcess).map(async ([name, env]) => (runs[name] = await runAdminProcess(env, 'check'))),
      ...Object.entries(inThisProcess).map(async ([name, env]) => (runs[name] = await runAdmin(env, 'check'))),
    ]);
  }, 120_000);

  afterAll(async () => {
    if (readOnlyStore) await run('umount', [path.join(readOnlyStore, 'blobs')]).catch(() => {});
    await Promise.all([
      apple?.close(),
      lateApple?.close(),
      deniedS3?.close(),
      s3?.close(),
      disk?.remove(),
      sqlite?.cleanup(),
      postgres?.cleanup(),
      otherSecret?.cleanup(),
    ]);
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** The run failed on `check` alone, saying `says` and how to fix it; every other line OK. */
  function expectOnlyFailure(result: AdminRun, check: string, says: RegExp, fix: RegExp) {
    const lines = linesOf(result);
    expect([...lines.keys()], result.stdout + result.stderr).toEqual(CHECKS);
    for (const line of lines.values()) expect(line.verdict, `${line.name}: ${line.says}`).toBe(line.name === check ? 'FAIL' : 'OK');
    const [found, fixText] = lines.get(check)!.says.split(' Fix: ');
    expect(found).toMatch(says);
    expect(fixText).toMatch(fix);
    expect(result.stdout).toContain(`${CHECKS.length} checks: ${CHECKS.length - 1} OK, 0 to look at, 1 failed. Not ready for race weekend`);
    expect(result.code).toBe(1);
  }

  it('should pass every check on a good configuration (SQLite, audio on disk) and exit 0', () => {
    const result = runs.good!;
    const lines = linesOf(result);
    expect([...lines.keys()], result.stdout + result.stderr).toEqual(CHECKS);
    for (const line of lines.values()) expect(line.verdict, `${line.name}: ${line.says}`).toBe('OK');
    expect(lines.get('node')!.says).toMatch(new RegExp(`^Node ${process.versions.node} .*needs Node 22\\.14 or newer`));
    expect(lines.get('database')!.says).toContain(`the SQLite file ${sqlite.env.DATA_DIR}/milenotes.sqlite answers`);
    expect(lines.get('clock')!.says).toMatch(/^within \d\.\d s of Apple's keys server's \(SQLite runs in this process/);
    expect(lines.get('blob store')!.says).toBe(`the folder ${sqlite.env.DATA_DIR}/blobs: a probe object was written, read back and removed.`);
    expect(lines.get('ffmpeg')!.says).toMatch(/converted a second of WebM\/Opus, MP4\/AAC, Ogg\/Opus to the app's AAC through the converter/);
    expect(lines.get('Apple sign-in')!.says).toBe(`audience ${apple.audience}; 1 signing key fetched from ${apple.jwksUrl}.`);
    expect(result.stdout).toContain(`${CHECKS.length} checks: ${CHECKS.length} OK, 0 to look at, 0 failed. Ready for race weekend.`);
    expect(result.code).toBe(0);
  });

  it('should pass every check on PostgreSQL with audio in S3, comparing the clock with the database', () => {
    const result = runs.goodOnPostgresAndS3!;
    const lines = linesOf(result);
    for (const line of lines.values()) expect(line.verdict, `${line.name}: ${line.says}`).toBe('OK');
    expect(lines.get('database')!.says).toMatch(/^the PostgreSQL at 127\.0\.0\.1:\d+\/t_\w+ answers; its schema is at version \d+, this code's\.$/);
    expect(lines.get('clock')!.says).toMatch(/^within \d\.\d s of PostgreSQL's and \d\.\d s of Apple's keys server's\.$/);
    expect(lines.get('blob store')!.says).toBe(`S3 bucket notes at ${s3.endpoint}: a probe object was written, read back and removed.`);
    expect(lines.get('ffmpeg')!.says).toMatch(/^not needed here: CONVERT_WORKER=off/);
    expect(result.code).toBe(0);
  });

  it('should fail ffmpeg when it cannot encode the AAC the app plays', () => {
    expectOnlyFailure(
      runs.ffmpegWithoutAac!,
      'ffmpeg',
      new RegExp(`^ffmpeg [^ ]+ \\(${noAacDir()}/ffmpeg\\) could not convert any format the recorder sends to the app's AAC: Unknown encoder 'aac'\\.$`),
      /apt-get install -y ffmpeg/,
    );
  });

  it('should fail the blob store when its folder cannot be written', () => {
    expectOnlyFailure(
      runs.readOnlyStore!,
      'blob store',
      new RegExp(`^could not write a probe object to the folder ${readOnlyStore}/blobs: EROFS: read-only file system`),
      /let the server's user write/,
    );
  });

  it('should fail the blob store when S3 refuses the server its writes', () => {
    expectOnlyFailure(
      runs.s3RefusingWrites!,
      'blob store',
      new RegExp(`^could not write a probe object to S3 bucket notes at ${deniedS3.url}: AccessDenied: Access Denied\\.$`),
      /s3:PutObject/,
    );
  });

  it('should fail free space when the data folder has less than READY_MIN_FREE_MB free', () => {
    expectOnlyFailure(
      runs.smallDisk!,
      'free space',
      new RegExp(`^low disk space: \\d MiB free under ${disk.dir}, 16 MiB wanted \\(READY_MIN_FREE_MB\\)`),
      /larger disk/,
    );
  });

  it('should fail the public URL on plain HTTP outside loopback, where phones give the recorder no microphone', () => {
    expectOnlyFailure(runs.plainHttp!, 'public URL', /^http:\/\/notes\.example\.com is plain HTTP: .*no microphone/, /HTTPS/);
  });

  it('should warn when PUBLIC_URL is https (a proxy in front) and TRUST_PROXY is unset, and still exit 0', () => {
    const result = runs.httpsWithoutTrustProxy!;
    const lines = linesOf(result);
    for (const line of lines.values()) expect(line.verdict, `${line.name}: ${line.says}`).toBe(line.name === 'public URL' ? 'WARN' : 'OK');
    const [found, fix] = lines.get('public URL')!.says.split(' Fix: ');
    expect(found).toMatch(/^https:\/\/notes\.example\.com is served through a proxy, but TRUST_PROXY is unset: every phone looks like the proxy/);
    expect(fix).toMatch(/TRUST_PROXY=loopback/);
    expect(result.code).toBe(0);
  });

  it("should fail the clock when it is 10 minutes off Apple's", () => {
    expectOnlyFailure(
      runs.clockOff!,
      'clock',
      /^this machine's clock is (9 min 5\d|10 min [0-5]) s ahead of Apple's keys server's \(5\.0 s allowed\)\.$/,
      /timedatectl set-ntp true/,
    );
  });

  it('should fail push when the VAPID subject names localhost on a public site (Apple answers 403 BadJwtToken)', () => {
    expectOnlyFailure(
      runs.localhostSubject!,
      'push',
      /^VAPID_SUBJECT 'mailto:push@localhost' names localhost while PUBLIC_URL is public: .*BadJwtToken/,
      /mailto:ops@your-domain/,
    );
  });

  it('should fail push when the keys kept in the database were sealed under another SESSION_SECRET', () => {
    expectOnlyFailure(
      runs.pushKeysOfAnotherSecret!,
      'push',
      /^the VAPID key pair kept in the database was sealed under another SESSION_SECRET/,
      /SESSION_SECRET the others have/,
    );
  });
});
