/**
 * Two apps the race-day bench runs beside the reference app on the same entry, which no runner's
 * phone would run: the baseline, which asks for the whole notes list every so often (instead of
 * holding a sync request) and takes each playable note's audio once, and the observer, which holds
 * the same sync request straight on the server (no bad link between) and only notes when each note
 * was first listed playable, so a note's wait splits into the server's part and the link's. Both use
 * the reference app's own parts: the generated client, its retry rule and its audio downloads.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../reference-app/api.js';
import { AudioDownloads } from '../../reference-app/downloads.js';
import { retrying, type ClientCall } from '../../reference-app/network.js';

interface Signed {
  baseUrl: string;
  identityToken: string;
  nonce: string;
  entryId: string;
  raceId: string;
}

/** A signed-in client of one entry, with the app's timeout and retry rule; every answer's body counted. */
class EntryClient {
  readonly client;
  private accessToken = '';
  private stopped = false;
  private readonly ending = new AbortController();
  bytesDown = 0;
  listBytes = 0;
  readonly errors: string[] = [];

  constructor(readonly opts: Signed) {
    this.client = createClient<paths>({
      baseUrl: opts.baseUrl,
      fetch: async (req) => {
        const headers = new Headers(req.headers);
        if (this.accessToken) headers.set('authorization', `Bearer ${this.accessToken}`);
        const res = await fetch(new Request(req, { headers, signal: this.signal() }));
        const body = await res.arrayBuffer();
        this.bytesDown += body.byteLength;
        if (new URL(req.url).pathname.endsWith('/notes')) this.listBytes += body.byteLength;
        return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, headers: res.headers });
      },
    });
  }

  signal(): AbortSignal {
    return AbortSignal.any([AbortSignal.timeout(35_000), this.ending.signal]);
  }

  isStopped(): boolean {
    return this.stopped;
  }

  retry<T>(what: string, call: ClientCall<T>, deadline?: number): Promise<T> {
    return retrying(what, call, { stopped: () => this.stopped, refresh: async () => false }, deadline);
  }

  async signIn(): Promise<void> {
    const { identityToken, nonce } = this.opts;
    this.accessToken = (await this.retry('sign in', () => this.client.POST('/api/auth/apple', { body: { identityToken, nonce } }))).accessToken;
  }

  /** The race pack the app takes before the start (its bytes count as the app's do). */
  async takeRacePack(): Promise<void> {
    await this.retry('races', () => this.client.GET('/api/races'));
    await this.retry('course', () => this.client.GET('/api/races/{id}/course', { params: { path: { id: this.opts.raceId } } }));
  }

  list(query: { after?: string; wait?: number; until?: 'playable' }) {
    return this.retry(
      'sync',
      () => this.client.GET('/api/entries/{id}/notes', { params: { path: { id: this.opts.entryId }, query } }),
      Number.POSITIVE_INFINITY,
    );
  }

  stop(): void {
    this.stopped = true;
    this.ending.abort();
  }
}

const playable = (list: { markers: Array<{ marker: string; notes?: Array<{ id: string; status: string; audioUrl: string | null }> }> }) =>
  list.markers.flatMap((m) =>
    (m.notes ?? []).filter((n) => n.status === 'converted' && n.audioUrl).map((n) => ({ id: n.id, marker: m.marker, audioUrl: n.audioUrl! })),
  );

/** The baseline: the whole list every `everyMs`, each playable note's audio taken once (two at a time, in list order). */
export class ListPoller {
  private readonly entry: EntryClient;
  private readonly downloads: AudioDownloads;
  private readonly taken = new Set<string>();
  private polling: Promise<void> | undefined;
  audioBytes = 0;

  constructor(opts: Signed & { everyMs: number }) {
    this.entry = new EntryClient(opts);
    this.downloads = new AudioDownloads({
      baseUrl: opts.baseUrl,
      concurrency: 2,
      rank: () => 0,
      signal: () => this.entry.signal(),
      stopped: () => this.entry.isStopped(),
      counted: (bytes) => {
        this.entry.bytesDown += bytes;
        this.audioBytes += bytes;
      },
      landed: () => undefined,
      failed: (id, err) => void this.entry.errors.push(`note ${id}: ${String(err)}`),
    });
    this.everyMs = opts.everyMs;
  }

  private readonly everyMs: number;

  get bytesDown(): number {
    return this.entry.bytesDown;
  }

  get listBytes(): number {
    return this.entry.listBytes;
  }

  get errors(): string[] {
    return this.entry.errors;
  }

  /** Before the race: sign in, the race pack, the list as it stands. */
  async prepare(): Promise<void> {
    await this.entry.signIn();
    await this.entry.takeRacePack();
    await this.poll();
  }

  start(): void {
    this.polling = (async () => {
      while (!this.entry.isStopped()) {
        await new Promise((r) => setTimeout(r, this.everyMs));
        if (this.entry.isStopped()) break;
        await this.poll().catch((err: unknown) => void (this.entry.isStopped() || this.entry.errors.push(`poll: ${String(err)}`)));
      }
    })();
  }

  private async poll(): Promise<void> {
    const listedAt = Date.now();
    for (const note of playable(await this.entry.list({}))) {
      if (this.taken.has(note.id)) continue;
      this.taken.add(note.id);
      this.downloads.want({ ...note, listedAt });
    }
  }

  async stop(): Promise<void> {
    this.entry.stop();
    await this.polling;
  }
}

/** The observer: the app's held sync, straight on the server, noting when each note was first listed playable (real epoch ms). */
export class SyncObserver {
  private readonly entry: EntryClient;
  private syncing: Promise<void> | undefined;
  readonly listed = new Map<string, number>();

  constructor(opts: Signed & { waitSeconds: number }) {
    this.entry = new EntryClient(opts);
    this.waitSeconds = opts.waitSeconds;
  }

  private readonly waitSeconds: number;

  get errors(): string[] {
    return this.entry.errors;
  }

  private cursor = '';

  /** Before the race: sign in, the list as it stands. */
  async prepare(): Promise<void> {
    await this.entry.signIn();
    const list = await this.entry.list({});
    this.cursor = list.cursor;
    this.note(list);
  }

  start(): void {
    this.syncing = (async () => {
      while (!this.entry.isStopped()) {
        try {
          const list = await this.entry.list({ after: this.cursor, wait: this.waitSeconds, until: 'playable' });
          this.cursor = list.cursor;
          this.note(list);
        } catch (err) {
          if (!this.entry.isStopped()) this.entry.errors.push(`sync: ${String(err)}`);
        }
      }
    })();
  }

  private note(list: Parameters<typeof playable>[0]): void {
    const at = Date.now();
    for (const n of playable(list)) if (!this.listed.has(n.id)) this.listed.set(n.id, at);
  }

  async stop(): Promise<void> {
    this.entry.stop();
    await this.syncing;
  }
}
