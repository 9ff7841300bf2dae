/**
 * One run of the push bench (bench/sections/push.ts) in this process: a fresh SQLite database with
 * the race's subscribed phones, the loopback push service in a process of its own
 * (./push-service.ts), heard pushes queued at the rate notes are played and each spectator's alert
 * at its fire time (race time compressed), a 429 storm in the middle, while the converter converts
 * a note after another. `queued`: the server's push worker sends (server/push/deliveries.ts);
 * `inline`: the naive server, which sends within the played report, once, and answers after.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import tls from 'node:tls';
import Fastify from 'fastify';
import { startConverter } from '../../server/audio/converter.js';
import { openDatabase } from '../../server/db/index.js';
import { deliveryId, queueAlertPushes, type ClaimedPush } from '../../server/db/push-queue-store.js';
import { createRepository, type Repository } from '../../server/db/repository.js';
import { createTokenSeal, type TokenSeal } from '../../server/devices/sealed.js';
import { queueNote } from '../../server/races/note-deadlines.js';
import { newOriginalKey } from '../../server/storage/keys.js';
import type { MarkerAlerts } from '../../server/push/alerts.js';
import { PUSH_CONCURRENCY, startPushWorker } from '../../server/push/deliveries.js';
import { parsePushHosts } from '../../server/config/push-hosts.js';
import { messageOf, noticeOf } from '../../server/push/notice.js';
import { createPushSender } from '../../server/push/send.js';
import { friendNote } from '../../stand-ins/friend.js';
import type { StandInSubscription } from '../../stand-ins/pushService.js';
import webpush from 'web-push';

export interface PushEvent {
  /** Wall ms after the run's start the push is queued (a note played, an alert due). */
  at: number;
  kind: 'heard' | 'soon';
  /** Which subscription (index) it goes to. */
  to: number;
  /** soon: the alert's index in the alert cases. */
  alert?: number;
}

export interface PushRunResult {
  queued: number;
  /** Latency (ms) from queued to the push service's 2xx, per event index. */
  latency: Map<number, number>;
  gone: number;
  lost: number;
  twice: number;
  cpuMs: number;
  wallMs: number;
  drainMs: number;
  /** [seconds since start, pushes waiting]. */
  depth: Array<[number, number]>;
  statuses: Record<string, number>;
  conversions: number;
}

const topicOf = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 32);
const SECRET = new TextEncoder().encode('bench-secret-that-is-long-enough-0123456789');

async function startService(count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'push-service.ts')], {
    env: { ...process.env, PUSH_SUBSCRIPTIONS: String(count) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const answers: Array<{ at: number; status: number; topic: string }> = [];
  let first: ((v: string) => void) | undefined;
  const ready = new Promise<string>((resolve) => (first = resolve));
  lines.on('line', (line) => {
    if (first) {
      first(line);
      first = undefined;
      return;
    }
    const [at, status, topic] = line.split(' ');
    answers.push({ at: Number(at), status: Number(status), topic: topic! });
  });
  const info = JSON.parse(await ready) as { host: string; caPem: string; subs: StandInSubscription[]; gone: string[] };
  return {
    ...info,
    answers,
    send: (line: string) => child.stdin!.write(`${line}\n`),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end('end\n');
      }),
  };
}

/** Phones per link: each link (and its runner) has this many subscribed phones. */
const PHONES_PER_LINK = 20;
const linkOf = (phone: number) => `link-${phone - (phone % PHONES_PER_LINK)}`;

/**
 * The scenario's database before the clock starts: the race's phones, and a stored note for every
 * heard push. Answers each phone's subscription id and each heard event's note id.
 */
async function seedRace(repo: Repository, seal: TokenSeal, subs: readonly StandInSubscription[], events: readonly PushEvent[]) {
  const now = new Date().toISOString();
  // The race's phones: a link (and its runner) for every 20, each phone subscribed on one, as
  // PUT /api/r/:token/push saves them (server/push/index.ts).
  const subIds: string[] = [];
  for (const [i, sub] of subs.entries()) {
    if (i % PHONES_PER_LINK === 0) await repo.links.create({ linkId: linkOf(i), runnerName: `Runner ${i}`, raceId: 'chicago-2025', createdAt: now });
    const linkId = linkOf(i);
    const saved = await repo.push.subscribe(
      {
        deviceId: `device-${i}`,
        linkId,
        endpoint: sub.endpoint,
        p256dh: sub.keys.p256dh,
        auth: sub.keys.auth,
        lang: ['en', 'de', 'es', 'fr'][i % 4]!,
        heard: true,
        sealedToken: seal.seal(linkId, randomBytes(24).toString('base64url')),
        at: 0,
      },
      { perLink: PHONES_PER_LINK, perPhone: 1 },
    );
    const id = (await repo.push.subscription(`device-${i}`, linkId))?.id;
    if (saved !== 'saved' || !id) throw new Error(`phone ${i} could not subscribe: ${saved}`);
    subIds.push(id);
  }
  // Each heard push is a note from that phone on its link, played: the notes are stored before the
  // run, so the timed part queues as the played report does (the play's transaction) and no more.
  const noteOf = new Map<number, string>();
  for (const [index, event] of events.entries()) {
    if (event.kind !== 'heard') continue;
    const id = randomUUID();
    const sha256 = createHash('sha256').update(id).digest('hex');
    const stored = await queueNote(
      repo,
      {
        id,
        linkId: linkOf(event.to),
        marker: 'mi-20',
        from: 'Bench',
        contentType: 'audio/webm',
        bytes: 8192,
        sha256,
        originalKey: newOriginalKey(id, sha256),
        receivedAt: now,
        deviceId: `device-${event.to}`,
      },
      (queued) => repo.notes.insert(queued),
    );
    if (!stored) throw new Error('a heard note was not stored');
    noteOf.set(index, id);
  }

  return { subIds, noteOf };
}

export async function runPushes(
  mode: 'queued' | 'inline',
  events: PushEvent[],
  opts: { subscriptions: number; stormAt: [number, number]; drainLimitMs: number; smoke: boolean },
): Promise<PushRunResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'milenotes-push-bench-'));
  const service = await startService(opts.subscriptions);
  const before = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...before, service.caPem]);
  const db = openDatabase({ dataDir: dir, databaseUrl: undefined });
  const repo = createRepository(db);
  await repo.migrate();
  const seal = createTokenSeal(SECRET);
  const keys = webpush.generateVAPIDKeys();
  const send = createPushSender({ hosts: parsePushHosts(service.host), keys, subject: 'mailto:ops@milenotes.example', timeoutMs: 10_000 });
  const converter = startConverter(Fastify({ logger: { level: 'silent' } }).log);
  const note = path.join(dir, 'note.webm');
  await writeFile(note, (await friendNote(opts.smoke ? 5 : 30)).audio);

  const { subIds, noteOf } = await seedRace(repo, seal, service.subs, events);

  const counted = { sent: 0, failed: 0, gone: 0 };
  const worker =
    mode === 'queued'
      ? startPushWorker({
          repo,
          send,
          seal,
          origin: 'https://milenotes.example',
          log: Fastify({ logger: { level: 'silent' } }).log,
          alerts: { fireDue: async () => 0 } as unknown as MarkerAlerts,
          events: { sent: () => counted.sent++, failed: () => counted.failed++, gone: () => counted.gone++ },
          pollMs: 1000,
          leaseMs: 60_000,
          concurrency: PUSH_CONCURRENCY,
        })
      : undefined;

  const queuedAt = new Map<string, { index: number; at: number; sub: number }>();
  const inflight = new Set<Promise<void>>();
  const depth: Array<[number, number]> = [];
  let conversions = 0;
  let converting = true;
  const started = Date.now();
  const cpu = process.cpuUsage();
  const convertLoop = (async () => {
    while (converting) {
      await converter.convert(note, 'webm', path.join(dir, 'out.m4a'), { timeoutMs: 120_000, maxSeconds: 60 }).catch(() => undefined);
      conversions++;
    }
  })();
  const sampler = setInterval(() => {
    void (mode === 'queued' ? repo.pushQueue.waiting() : Promise.resolve(inflight.size)).then((n) => depth.push([(Date.now() - started) / 1000, n]));
  }, 500);
  service.send(`storm ${started + opts.stormAt[0]} ${started + opts.stormAt[1]}`);

  const goneEndpoints = new Set(service.gone);
  const forgotten = async (phone: number) =>
    goneEndpoints.has(service.subs[phone]!.endpoint) && !(await repo.push.subscription(`device-${phone}`, linkOf(phone)));
  /** The played report's transaction queues the push; the naive server also sends it before answering. */
  async function fire(event: PushEvent, index: number): Promise<void> {
    const at = Date.now();
    const subId = subIds[event.to]!;
    // The store's delivery id (server/db/push-queue-store.ts deliveryId) is what the Topic is made of:
    // one a note, and one an alert phone (push.ts gives each alert a phone of its own) on 'mi-20'.
    const id = event.kind === 'heard' ? deliveryId(subId, 'heard', noteOf.get(index)!) : deliveryId(subId, 'soon', 'mi-20');
    if (queuedAt.has(topicOf(id))) throw new Error(`push ${id} was queued twice by the bench: it would be counted once`);
    // Only a subscription still there gets one (a 410 forgot it); only a gone endpoint's can be forgotten.
    const still = !(await forgotten(event.to));
    if (still) queuedAt.set(topicOf(id), { index, at, sub: event.to });
    // As the server queues: heard in the play's (durable, group-committed) transaction, an alert in the one that fires it.
    if (event.kind === 'heard')
      await repo.plays.record(noteOf.get(index)!, { playedAt: new Date(at).toISOString(), marker: 'mi-20' }, { now: at, expiresAt: at + 6 * 3600_000 });
    else if (still) await db.transaction((tx) => queueAlertPushes(tx, [subId], 'mi-20', { now: at, expiresAt: at + 600_000 }));
    if (!still) return;
    if (worker) return worker.nudge();
    const claimed: ClaimedPush | undefined = await repo.pushQueue.claim(Date.now(), 60_000);
    if (!claimed) return;
    await send(claimed.subscription, messageOf(claimed, noticeOf(claimed, seal, 'https://milenotes.example')));
    await repo.pushQueue.finish(claimed);
  }

  for (const [index, event] of events.entries()) {
    const wait = started + event.at - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const p: Promise<void> = fire(event, index).finally(() => inflight.delete(p));
    inflight.add(p);
  }
  const loadEnded = Date.now();
  await Promise.allSettled([...inflight]);
  for (;;) {
    if ((await repo.pushQueue.waiting()) === 0 || Date.now() - loadEnded > opts.drainLimitMs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const drainMs = Date.now() - loadEnded;
  const wallMs = Date.now() - started;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  await worker?.stop();
  converting = false;
  await convertLoop;
  await converter.close();
  await service.stop();
  tls.setDefaultCACertificates(before);

  const gone = new Set(service.gone);
  const latency = new Map<number, number>();
  const accepted = new Map<string, number>();
  const statuses: Record<string, number> = {};
  for (const a of service.answers) {
    statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    if (a.status < 200 || a.status > 299) continue;
    accepted.set(a.topic, (accepted.get(a.topic) ?? 0) + 1);
    const q = queuedAt.get(a.topic);
    if (q && !latency.has(q.index)) latency.set(q.index, a.at - q.at);
  }
  let lost = 0;
  let goneCount = 0;
  for (const [topic, q] of queuedAt) {
    if (gone.has(service.subs[q.sub]!.endpoint)) goneCount++;
    else if (!accepted.has(topic)) lost++;
  }
  await db.close();
  await rm(dir, { recursive: true, force: true });
  return {
    queued: queuedAt.size,
    latency,
    gone: goneCount,
    lost,
    twice: [...accepted.values()].filter((n) => n > 1).length,
    cpuMs: (used.user + used.system) / 1000,
    wallMs,
    drainMs,
    depth,
    statuses,
    conversions,
  };
}
