/**
 * Section 5, growth: the cost of GET /api/r/:token, a note upload and the runner's notes list
 * (GET /api/entries/:id/notes, signed in through a loopback stand-in for Apple's JWKS) with 10,
 * 10,000 and 100,000 notes in the database. The measured entry keeps the same 10 notes throughout;
 * the rest belong to other links, so a flat line means the queries are indexed. They are written
 * through the server's own stores, as an upload records a note (with its conversion job).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ENTRY_SQL } from '../../server/db/entry-sql.js';
import { openDatabase } from '../../server/db/index.js';
import { createRepository, type Repository } from '../../server/db/repository.js';
import { linkIdOf, newToken } from '../../server/links.js';
import { queueNote } from '../../server/races/note-deadlines.js';
import { newOriginalKey } from '../../server/storage/keys.js';
import { addUpcomingRace } from '../../kit/races.js';
import { enterRace, runnerClient, signIn } from '../../kit/runnerApi.js';
import { startServer } from '../../kit/server.js';
import { startFakeApple } from '../../stand-ins/fakeApple.js';
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

/** PUTs one 8 KB note; answers the status. */
async function put(base: string, token: string): Promise<number> {
  const res = await putNote(base, token, { id: randomUUID(), contentType: 'audio/webm;codecs=opus', audio: noteBody() }, 'mi-13', 'Bench');
  await res.arrayBuffer();
  return res.status;
}

/** Links of 100 notes each, this many links at a time: their inserts, asked for in one turn, share the driver's commits. */
const LINKS_AT_ONCE = 10;
const NOTES_PER_LINK = 100;

/** Adds notes of other links, 100 to a link, from `have` up to `total` notes in the database; answers how many there are then. */
async function fillTo(repo: Repository, have: number, total: number): Promise<number> {
  const now = new Date().toISOString();
  while (have < total) {
    const links = Array.from({ length: Math.min(LINKS_AT_ONCE, Math.ceil((total - have) / NOTES_PER_LINK)) }, () => linkIdOf(newToken()));
    await Promise.all(links.map((linkId) => repo.links.create({ linkId, runnerName: 'Filler', raceId: 'chicago-2025', createdAt: now })));
    const notes = Array.from({ length: Math.min(total - have, links.length * NOTES_PER_LINK) }, (_, i) => {
      const id = randomUUID();
      const sha256 = createHash('sha256').update(id).digest('hex');
      const linkId = links[Math.floor(i / NOTES_PER_LINK)]!;
      const originalKey = newOriginalKey(id, sha256);
      return { id, linkId, marker: 'mi-13', from: 'Filler', contentType: 'audio/webm', bytes: NOTE_BYTES, sha256, originalKey, receivedAt: now };
    });
    if (!(await Promise.all(notes.map((n) => queueNote(repo, n, (queued) => repo.notes.insert(queued))))).every(Boolean))
      throw new Error('a filler note was not inserted');
    have += notes.length;
  }
  return have;
}

export async function growthSection(ctx: BenchContext): Promise<Section> {
  const levels = ctx.smoke ? [10, 100, 1000] : [10, 10_000, 100_000];
  const requests = ctx.smoke ? 20 : 200;
  const apple = await startFakeApple();
  const server = await startServer({
    APPLE_JWKS_URL: apple.jwksUrl,
    APPLE_AUDIENCE: apple.audience,
    SESSION_SECRET: 'bench-secret-that-is-long-enough-0123456789',
    CONVERT_WORKER: 'off',
    RATE_LIMIT_PER_MINUTE: '1000000',
    // This section measures what a request costs, not the abuse limits: its hundreds of uploads
    // come from one address to one link, which the limits would refuse after 60 (per address) or 200 (per link).
    UPLOADS_PER_ADDRESS: '1000000',
    OPEN_UPLOADS_PER_ADDRESS: '1000',
    LINK_MAX_NOTES: '1000000',
    LINK_MAX_BYTES: '1000000000000',
  });
  const raceId = await addUpcomingRace(server);
  // The server's own stores on its database, beside it (SQLite takes turns between the two processes).
  const db = openDatabase({ dataDir: server.dataDir, databaseUrl: undefined });
  const repo = createRepository(db);
  /** The notes in the database: this section is the only writer of notes (conversion is off). */
  let notesInDb = 0;
  const upload = async (token: string) => {
    const status = await put(server.url, token);
    if (status === 201) notesInDb++;
    return status;
  };
  try {
    /** The data of a 2xx answer; any other answer throws, so a timing never measures a refusal. */
    const ok = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, what: string): Promise<T> => {
      const { data, error, response } = await call;
      if (!response.ok || data === undefined) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(error)}`);
      return data;
    };
    const accessToken = await signIn(server.url, apple, `bench-${randomUUID()}`);
    const runner = runnerClient(server.url, accessToken);
    const friend = runnerClient(server.url);
    const entry = await enterRace(runner, raceId, 'Bench');
    for (let i = 0; i < 10; i++) if ((await upload(entry.link.token)) !== 201) throw new Error('a setup upload was refused');
    // Uploads under test go to another link, so the measured entry keeps its 10 notes.
    const uploadToken = await server.createLink('Bench uploads');

    const endpoints = [
      { label: 'GET /api/r/:token', run: () => ok(friend.GET('/api/r/{token}', { params: { path: { token: entry.link.token } } }), 'GET /api/r/:token') },
      {
        label: 'PUT a note (8 KB)',
        run: async () => {
          if ((await upload(uploadToken)) !== 201) throw new Error('upload refused');
        },
      },
      {
        label: 'GET /api/entries/:id/notes',
        run: () => ok(runner.GET('/api/entries/{id}/notes', { params: { path: { id: entry.id } } }), 'GET /api/entries/:id/notes'),
      },
    ];
    const results = endpoints.map(() => [] as Array<{ median: number; p95: number }>);
    for (const level of levels) {
      ctx.log(`growth: ${level.toLocaleString('en-US')} notes in the database`);
      notesInDb = await fillTo(repo, notesInDb, level);
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
    const plan = (await db.all(`EXPLAIN QUERY PLAN ${ENTRY_SQL.listEntryNotes}`, ['x'])).map((p) => String(p.detail)).join('; ');

    const label = (n: number) => n.toLocaleString('en-US');
    const rows: Row[] = endpoints.flatMap((e, i) =>
      levels.slice(1).map((level, j) => {
        const at = results[i]![j + 1]!;
        const base = results[i]![0]!;
        return {
          metric: `${e.label} median, ${label(level)} vs ${label(levels[0]!)} notes`,
          ours: at.median,
          baseline: base.median,
          unit: 'ms',
          digits: 2,
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
    await repo.close();
    await server.stop();
    await apple.close();
  }
}
