/**
 * Section 5, growth: the cost of GET /api/r/:token, a note upload and the runner's notes list
 * (GET /api/entries/:id/notes, signed in through a loopback stand-in for Apple's JWKS) with 10,
 * 10,000 and 100,000 notes in the database. The measured entry keeps the same 10 notes throughout;
 * the rest belong to other links, so a flat line means the queries are indexed.
 */
import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ENTRY_SQL } from '../../server/db/entry-sql.js';
import { addUpcomingRace } from '../../kit/races.js';
import { startServer } from '../../kit/server.js';
import { FAKE_APPLE_NONCE, startFakeApple } from '../../stand-ins/fakeApple.js';
import { putNote } from '../../stand-ins/friend.js';
import type { Row, Section } from '../report.js';
import { median, percentile, type BenchContext } from './context.js';

const NOTE_BYTES = 8 * 1024;

function noteBody(): Buffer {
  const body = Buffer.alloc(NOTE_BYTES);
  // Chrome's EBML header (DocType "webm"), so the sniffer accepts it.
  Buffer.from('1a45dfa39f4286810142f7810142f2810442f381084282847765626d4287810442858102', 'hex').copy(body);
  Buffer.from(randomUUID()).copy(body, 64); // after the header
  return body;
}

async function put(base: string, token: string): Promise<number> {
  const res = await putNote(base, token, { id: randomUUID(), contentType: 'audio/webm;codecs=opus', audio: noteBody() }, 'mi-13', 'Bench');
  await res.arrayBuffer();
  return res.status;
}

/** Fills the notes table up to `total` rows with notes of other links, 100 to a link, in one transaction. */
function fillTo(db: Database.Database, total: number): void {
  const have = Number((db.prepare('SELECT COUNT(*) AS n FROM notes').get() as { n: number }).n);
  const now = new Date().toISOString();
  const runner = db.prepare('INSERT INTO runners (id, display_name, created_at) VALUES (?, ?, ?)');
  const link = db.prepare("INSERT INTO links (id, runner_id, race_id, created_at) VALUES (?, ?, 'chicago-2025', ?)");
  const note = db.prepare(
    'INSERT INTO notes (id, link_id, marker, sender, content_type, bytes, sha256, original_key, received_at, status) ' +
    "VALUES (?, ?, 'mi-13', 'Filler', 'audio/webm', 8192, ?, ?, ?, 'received')",
  );
  db.transaction(() => {
    let linkId = '';
    for (let i = have; i < total; i++) {
      if ((i - have) % 100 === 0) {
        const runnerId = randomUUID();
        linkId = createHash('sha256').update(randomUUID()).digest('hex');
        runner.run(runnerId, 'Filler', now);
        link.run(linkId, runnerId, now);
      }
      const id = randomUUID();
      note.run(id, linkId, createHash('sha256').update(id).digest('hex'), `originals/${id}`, now);
    }
  })();
}

export async function growthSection(ctx: BenchContext): Promise<Section> {
  const levels = ctx.smoke ? [10, 100, 1000] : [10, 10_000, 100_000];
  const requests = ctx.smoke ? 20 : 200;
  const apple = await startFakeApple();
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl, APPLE_AUDIENCE: apple.audience, SESSION_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    CONVERT_WORKER: 'off', RATE_LIMIT_PER_MINUTE: '1000000',
    // This section measures what a request costs, not the abuse limits: its hundreds of uploads
    // come from one address to one link, which the limits would refuse after 60 (per address) or 200 (per link).
    UPLOADS_PER_ADDRESS: '1000000', OPEN_UPLOADS_PER_ADDRESS: '1000', LINK_MAX_NOTES: '1000000', LINK_MAX_BYTES: '1000000000000',
  });
  const raceId = await addUpcomingRace(server);
  const db = new Database(path.join(server.dataDir, 'milenotes.sqlite'));
  db.pragma('busy_timeout = 5000');
  try {
    const call = async (method: string, url: string, accessToken?: string, body?: object) => {
      const res = await fetch(server.url + url, {
        method,
        headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const session = await call('POST', '/api/auth/apple', undefined, { identityToken: await apple.token({ sub: `bench-${randomUUID()}` }), nonce: FAKE_APPLE_NONCE });
    const accessToken = String(session.accessToken);
    const entry = (await call('POST', '/api/entries', accessToken, { raceId, displayName: 'Bench' })) as { id: string; link: { token: string } };
    for (let i = 0; i < 10; i++) if ((await put(server.url, entry.link.token)) !== 201) throw new Error('a setup upload was refused');
    // Uploads under test go to another link, so the measured entry keeps its 10 notes.
    const uploadToken = await server.createLink('Bench uploads');

    const endpoints = [
      { label: 'GET /api/r/:token', run: () => call('GET', `/api/r/${entry.link.token}`) },
      { label: 'PUT a note (8 KB)', run: async () => { if ((await put(server.url, uploadToken)) !== 201) throw new Error('upload refused'); } },
      { label: 'GET /api/entries/:id/notes', run: () => call('GET', `/api/entries/${entry.id}/notes`, accessToken) },
    ];
    const results = endpoints.map(() => [] as Array<{ median: number; p95: number }>);
    for (const level of levels) {
      ctx.log(`growth: ${level.toLocaleString('en-US')} notes in the database`);
      fillTo(db, level);
      for (const [i, e] of endpoints.entries()) {
        for (let w = 0; w < 10; w++) await e.run();
        const times: number[] = [];
        for (let r = 0; r < requests; r++) {
          const started = performance.now();
          await e.run();
          times.push(performance.now() - started);
        }
        results[i]!.push({ median: median(times), p95: percentile(times, 95) });
      }
    }
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${ENTRY_SQL.listEntryNotes}`).all('x') as Array<{ detail: string }>).map((p) => p.detail).join('; ');

    const label = (n: number) => n.toLocaleString('en-US');
    const rows: Row[] = endpoints.flatMap((e, i) =>
      levels.slice(1).map((level, j) => {
        const at = results[i]![j + 1]!;
        const base = results[i]![0]!;
        return {
          metric: `${e.label} median, ${label(level)} vs ${label(levels[0]!)} notes`,
          ours: at.median, baseline: base.median, unit: 'ms', digits: 2,
          aim: { text: 'flat: <= 1.5x', met: at.median <= 1.5 * base.median },
        } satisfies Row;
      }),
    );
    return {
      id: 'growth',
      title: '5. Growth: 10 vs 10,000 vs 100,000 notes in the database',
      baseline: `the same request with ${label(levels[0]!)} notes in the database (same server, same run).`,
      rows,
      chart: {
        kind: 'lines',
        title: `Median time per request (${requests} sequential requests per point)`,
        unit: 'ms',
        xLabels: levels.map((l) => `${label(l)} notes`),
        series: endpoints.map((e, i) => ({ label: e.label, values: results[i]!.map((r) => r.median) })),
      },
      notes: [
        `SQLite on disk, conversion worker off, over HTTP on loopback; the notes list is signed in with a session from POST /api/auth/apple against a local JWKS. p95s: ${endpoints
          .map((e, i) => `${e.label} ${results[i]!.map((r) => r.p95.toFixed(2)).join(' / ')} ms`)
          .join('; ')}.`,
        `Query plan of the runner's notes list: ${plan}.`,
      ],
    };
  } finally {
    db.close();
    await server.stop();
    await apple.close();
  }
}
