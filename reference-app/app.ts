/**
 * The reference client: what the runner's iPhone app does on race day, through the client
 * generated from /api/openapi.json (./api.d.ts, openapi-fetch), so it is also the executable
 * description of the app's contract (docs/app-contract.md). One instance is one runner's phone:
 * sign in, enter the race, share progress, take the race pack (course, markers, notes) before the
 * start, then hold one sync request open, download each new note at once, post positions in
 * batches, and play each note at its marker (or at once if its marker is behind), reporting it played.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api.js';
import { MarkerFences, type FencedMarker, type Fix } from './fences.js';
import { AudioDownloads, type LandedAudio } from './downloads.js';
import { networkRetryWait } from './network.js';
import { Player, type Play } from './player.js';

/** Notes' audio taken at once (./downloads.ts says why two). */
const DOWNLOADS_AT_ONCE = 2;

export interface AppOptions {
  /** Where the phone reaches the API (a fault proxy in the bench). */
  baseUrl: string;
  identityToken: string;
  nonce: string;
  /** Longest a request may take before the app gives up on it and tries again. */
  requestTimeoutMs?: number;
  /** Seconds a sync request is held by the server (≤ 30). */
  waitSeconds?: number;
  /** The clock positions are stamped with (a compressed race runs ahead of real time). */
  now?: () => number;
  /** The baseline: ask for the whole list this often instead of holding a sync request. */
  pollEveryMs?: number;
  /** Report plays to the server (off for a baseline watching the same entry). */
  reportPlayed?: boolean;
  /** Take each playable note's audio (off for the bench's observer, which only notes when a note is listed). */
  downloadAudio?: boolean;
}

/** A note whose audio is on the phone, and when each step of getting it there happened. */
export type NoteOnPhone = LandedAudio;

/** One sync request as the app saw it (real epoch ms), for the bench's timeline. */
export interface SyncTry {
  openedAt: number;
  endedAt: number;
  /** An answer's status, or the network failure. */
  outcome: string;
}

interface QueuedFix extends Fix {
  at: string;
}

export class ReferenceApp {
  private readonly client;
  private readonly opts: Required<Omit<AppOptions, 'identityToken' | 'nonce' | 'pollEveryMs'>> & AppOptions;
  private accessToken = '';
  private refreshToken = '';
  private entryId = '';
  private cursor: string | undefined;
  private fences: MarkerFences | undefined;
  private player: Player | undefined;
  private readonly downloaded = new Map<string, NoteOnPhone>();
  private readonly removed = new Set<string>();
  /** Each marker's distance along the course: the download queue's order. */
  private readonly markerMeters = new Map<string, number>();
  private readonly downloads: AudioDownloads;
  private readonly arrivals = new Set<() => void>();
  /** When a sync answer first listed each note playable (real epoch ms). */
  readonly listed = new Map<string, number>();
  readonly syncTries: SyncTry[] = [];
  private readonly queue: QueuedFix[] = [];
  private stopped = false;
  /** Ends held requests at stop(), as the app does when the race is over. */
  private readonly ending = new AbortController();
  private syncing: Promise<void> | undefined;
  /** Played receipts on their way (queued and retried, as the app keeps them until the server has them). */
  private readonly reports = new Set<Promise<void>>();
  /** Bytes the app took off the network: every answer's body. */
  bytesDown = 0;
  /** Of which notes' audio (the same for any app that plays every note once). */
  audioBytes = 0;
  /** Of which the notes list and its sync answers (what keeping up with the list costs). */
  listBytes = 0;
  readonly plays: Play[] = [];
  readonly errors: string[] = [];

  constructor(options: AppOptions) {
    this.opts = { requestTimeoutMs: 35_000, waitSeconds: 25, now: Date.now, reportPlayed: true, downloadAudio: true, ...options };
    this.client = createClient<paths>({ baseUrl: this.opts.baseUrl, fetch: (req) => this.fetch(req) });
    this.downloads = new AudioDownloads({
      baseUrl: this.opts.baseUrl,
      concurrency: DOWNLOADS_AT_ONCE,
      rank: (marker) => this.markerMeters.get(marker) ?? Number.POSITIVE_INFINITY,
      signal: () => this.requestSignal(),
      stopped: () => this.stopped,
      counted: (bytes) => {
        this.bytesDown += bytes;
        this.audioBytes += bytes;
      },
      landed: (note) => this.landed(note),
      failed: (id, err) => void this.errors.push(`note ${id}: ${String(err)}`),
    });
  }

  private requestSignal(): AbortSignal {
    return AbortSignal.any([AbortSignal.timeout(this.opts.requestTimeoutMs), this.ending.signal]);
  }

  get notes(): ReadonlyMap<string, NoteOnPhone> {
    return this.downloaded;
  }

  /** Every request goes through here: a timeout (a congested cell hangs rather than fails), the session, and the byte count. */
  private async fetch(req: Request): Promise<Response> {
    const headers = new Headers(req.headers);
    if (this.accessToken && !headers.has('authorization')) headers.set('authorization', `Bearer ${this.accessToken}`);
    const res = await fetch(new Request(req, { headers, signal: this.requestSignal() }));
    const body = await res.arrayBuffer();
    this.bytesDown += body.byteLength;
    if (new URL(req.url).pathname.endsWith('/notes')) this.listBytes += body.byteLength;
    return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /**
   * Tries a call until it gets an answer that is not a network failure or a 5xx/429, honouring
   * Retry-After. A request that got no answer is tried again within a second (./network.ts: a cell
   * link comes back without notice, the venue's lesson, issue 21). The server's own "not now"
   * (5xx, 429) backs off to 8 s, or as it says.
   */
  private async retry<T>(what: string, call: () => Promise<{ data?: T; error?: unknown; response: Response }>, deadline = Date.now() + 120_000): Promise<T> {
    let serverWait = 500;
    let networkFailures = 0;
    for (;;) {
      let wait: number;
      try {
        const { data, error, response } = await call();
        networkFailures = 0;
        if (response.status === 401 && this.refreshToken) {
          await this.refresh();
          continue;
        }
        if (data !== undefined && response.ok) return data;
        if (response.status < 500 && response.status !== 429 && response.status !== 408) throw new Error(`${what}: ${response.status} ${JSON.stringify(error)}`);
        wait = Math.max(serverWait, Number(response.headers.get('retry-after') ?? 0) * 1000);
        serverWait = Math.min(serverWait * 2, 8_000);
      } catch (err) {
        if (err instanceof Error && err.message.startsWith(`${what}:`)) throw err;
        wait = networkRetryWait(++networkFailures);
      }
      if (this.stopped || Date.now() > deadline) throw new Error(`${what}: gave up`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  async signIn(): Promise<void> {
    const session = await this.retry('sign in', () =>
      this.client.POST('/api/auth/apple', { body: { identityToken: this.opts.identityToken, nonce: this.opts.nonce } }));
    this.accessToken = session.accessToken;
    this.refreshToken = session.refreshToken;
  }

  /** A refresh whose answer is lost is sent again with the same token: the server's grace gives the same new pair. */
  private async refresh(): Promise<void> {
    const { data } = await this.client.POST('/api/auth/refresh', { body: { refreshToken: this.refreshToken } });
    if (!data) throw new Error('refresh: the session is gone');
    this.accessToken = data.accessToken;
    this.refreshToken = data.refreshToken;
  }

  async enter(raceId: string, displayName: string): Promise<{ entryId: string; token: string }> {
    const entry = await this.retry('enter the race', () => this.client.POST('/api/entries', { body: { raceId, displayName } }));
    this.entryId = entry.id;
    await this.retry('share progress', () =>
      this.client.PATCH('/api/entries/{id}', { params: { path: { id: this.entryId } }, body: { shareProgress: true } }));
    return { entryId: entry.id, token: entry.link!.token };
  }

  /** Before the start: the race's markers with their points, its course, and the notes so far. */
  async takeRacePack(raceId: string): Promise<{ markers: FencedMarker[]; course: Array<[number, number]> }> {
    const { races } = await this.retry('races', () => this.client.GET('/api/races'));
    const race = races.find((r) => r.id === raceId);
    if (!race) throw new Error(`race ${raceId} is not in the catalogue`);
    const markers = race.markers.filter((m) => m.lat !== undefined && m.lon !== undefined) as FencedMarker[];
    const course = await this.retry('course', () => this.client.GET('/api/races/{id}/course', { params: { path: { id: raceId } } }));
    this.fences = new MarkerFences(markers);
    for (const m of race.markers) this.markerMeters.set(m.id, m.distanceMeters);
    this.player = new Player((marker) => this.fences!.hasPassed(marker));
    await this.syncOnce(0);
    await this.downloads.drained();
    return { markers, course: course.coordinates as Array<[number, number]> };
  }

  /** Follows an entry this account already has (the baseline beside the app, same runner). */
  async follow(entryId: string, raceId: string): Promise<void> {
    this.entryId = entryId;
    await this.takeRacePack(raceId);
  }

  /** One sync request: the whole list the first time, then what changed since the cursor, held up to `wait` s until a note is playable or removed. */
  private async syncOnce(waitSeconds: number): Promise<void> {
    const query = this.cursor === undefined || this.opts.pollEveryMs ? {} : { after: this.cursor, wait: waitSeconds, until: 'playable' as const };
    const list = await this.retry('sync', () => {
      const openedAt = Date.now();
      return this.client.GET('/api/entries/{id}/notes', { params: { path: { id: this.entryId }, query } }).then((r) => {
        this.syncTries.push({ openedAt, endedAt: Date.now(), outcome: String(r.response.status) });
        return r;
      }, (err: unknown) => {
        this.syncTries.push({ openedAt, endedAt: Date.now(), outcome: err instanceof Error ? err.name : 'failed' });
        throw err;
      });
    }, Number.POSITIVE_INFINITY);
    for (const id of list.removed ?? []) {
      this.removed.add(id);
      this.downloads.drop(id);
      this.player!.remove(id);
      this.downloaded.delete(id);
    }
    const playable = list.markers.flatMap((m) => (m.notes ?? []).filter((n) => n.status === 'converted' && n.audioUrl).map((n) => ({ ...n, marker: m.marker })));
    const listedAt = Date.now();
    for (const n of playable) {
      if (!this.listed.has(n.id)) this.listed.set(n.id, listedAt);
      if (this.opts.downloadAudio && !this.downloaded.has(n.id)) this.downloads.want({ id: n.id, marker: n.marker, audioUrl: n.audioUrl!, listedAt });
    }
    // Asked again at once: the downloads go on beside the next held request, never in front of it.
    this.cursor = list.cursor;
  }

  /** A note's audio is on the phone: it may play. */
  private landed(note: LandedAudio): void {
    if (this.removed.has(note.id)) return;
    this.downloaded.set(note.id, note);
    this.played(this.player!.ready({ id: note.id, marker: note.marker }, this.opts.now()));
    for (const arrived of this.arrivals) arrived();
    this.arrivals.clear();
  }

  /** Resolves when every one of these notes is on the phone, or after `ms`: the race is over, the notes still on their way are let go. */
  async awaitNotes(ids: readonly string[], ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ids.every((id) => this.downloaded.has(id)) && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.arrivals.add(resolve);
        setTimeout(resolve, deadline - Date.now()).unref();
      });
    }
  }

  /** Keeps one sync request open until stop(). */
  startSync(): void {
    this.syncing = (async () => {
      while (!this.stopped) {
        try {
          if (this.opts.pollEveryMs) await new Promise((r) => setTimeout(r, this.opts.pollEveryMs));
          if (this.stopped) break;
          await this.syncOnce(this.opts.waitSeconds);
        } catch (err) {
          if (!this.stopped) this.errors.push(`sync: ${String(err)}`);
        }
      }
    })();
  }

  /** A GPS fix from the phone: markers passed, notes played, the fix queued for the next batch. */
  fix(fix: Fix): void {
    this.queue.push({ ...fix, at: new Date(this.opts.now()).toISOString() });
    this.played(this.player!.passed(this.fences!.enter(fix), this.opts.now()));
  }

  /** Posts the queued fixes as one batch; kept for the next batch if the post fails. */
  async postPositions(): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue.splice(0, 100);
    const { response } = await this.client
      .POST('/api/entries/{id}/positions', { params: { path: { id: this.entryId } }, body: { positions: batch } })
      .catch(() => ({ response: undefined }));
    if (!response?.ok && (!response || response.status >= 500 || response.status === 429)) this.queue.unshift(...batch);
  }

  private played(plays: Play[]): void {
    for (const play of plays) {
      this.plays.push(play);
      if (!this.opts.reportPlayed) continue;
      const report = this.retry('played', () =>
        this.client.POST('/api/notes/{id}/played', {
          params: { path: { id: play.noteId } },
          body: { playedAt: new Date(play.at).toISOString(), marker: play.heardAtMarker },
        })).then(() => undefined, (err: unknown) => void this.errors.push(String(err)));
      this.reports.add(report);
      void report.finally(() => this.reports.delete(report));
    }
  }

  /** Ends the race: the receipts still on their way are sent first, then the held request ends. */
  async stop(): Promise<void> {
    while (this.reports.size > 0) await Promise.all(this.reports);
    this.stopped = true;
    this.ending.abort();
    await this.syncing?.catch(() => undefined);
  }
}
