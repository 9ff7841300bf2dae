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
import { retrying, type ClientCall } from './network.js';
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
  /** What a test, the bench or the demo watches from outside; the app itself never needs it. */
  watch?: AppWatch;
}

/** Hooks for whoever watches the app (the bench counts bytes and sync requests); each is optional. */
export interface AppWatch {
  /** Bytes that came off the network: an answer's body (`list` for the notes list and its syncs), or audio as it streams in. */
  bytes?(kind: 'list' | 'audio' | 'other', n: number): void;
  /** One sync request, once it ended. */
  synced?(sync: SyncTry): void;
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
  private readonly opts: Required<Omit<AppOptions, 'identityToken' | 'nonce' | 'watch'>> & AppOptions;
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
  private readonly queue: QueuedFix[] = [];
  private stopped = false;
  /** Ends held requests at stop(), as the app does when the race is over. */
  private readonly ending = new AbortController();
  private syncing: Promise<void> | undefined;
  /** Played receipts on their way (queued and retried, as the app keeps them until the server has them). */
  private readonly reports = new Set<Promise<void>>();
  readonly plays: Play[] = [];
  readonly errors: string[] = [];

  constructor(options: AppOptions) {
    this.opts = { requestTimeoutMs: 35_000, waitSeconds: 25, now: Date.now, ...options };
    this.client = createClient<paths>({ baseUrl: this.opts.baseUrl, fetch: (req) => this.fetch(req) });
    this.downloads = new AudioDownloads({
      baseUrl: this.opts.baseUrl,
      concurrency: DOWNLOADS_AT_ONCE,
      rank: (marker) => this.markerMeters.get(marker) ?? Number.POSITIVE_INFINITY,
      signal: () => this.requestSignal(),
      stopped: () => this.stopped,
      counted: (bytes) => this.opts.watch?.bytes?.('audio', bytes),
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

  /** Every request goes through here: a timeout (a congested cell hangs rather than fails) and the session. */
  private async fetch(req: Request): Promise<Response> {
    const headers = new Headers(req.headers);
    if (this.accessToken && !headers.has('authorization')) headers.set('authorization', `Bearer ${this.accessToken}`);
    const res = await fetch(new Request(req, { headers, signal: this.requestSignal() }));
    const body = await res.arrayBuffer();
    this.opts.watch?.bytes?.(new URL(req.url).pathname.endsWith('/notes') ? 'list' : 'other', body.byteLength);
    return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /** The contract's retry rule (./network.ts), with this session's refresh on a 401. */
  private retry<T>(what: string, call: ClientCall<T>, deadline?: number): Promise<T> {
    return retrying(
      what,
      call,
      {
        stopped: () => this.stopped,
        refresh: async () => {
          if (!this.refreshToken) return false;
          await this.refresh();
          return true;
        },
      },
      deadline,
    );
  }

  async signIn(): Promise<void> {
    const session = await this.retry('sign in', () =>
      this.client.POST('/api/auth/apple', { body: { identityToken: this.opts.identityToken, nonce: this.opts.nonce } }),
    );
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
    await this.retry('share progress', () => this.client.PATCH('/api/entries/{id}', { params: { path: { id: this.entryId } }, body: { shareProgress: true } }));
    return { entryId: entry.id, token: entry.link!.token };
  }

  /** Before the start: the race's markers with their points, its course, the units its course is marked in, and the notes so far. */
  async takeRacePack(raceId: string): Promise<{ markers: FencedMarker[]; course: Array<[number, number]>; units: Array<'mi' | 'km'> }> {
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
    return { markers, course: course.coordinates as Array<[number, number]>, units: race.units };
  }

  /** One sync request: the whole list the first time, then what changed since the cursor, held up to `wait` s until a note is playable or removed. */
  private async syncOnce(waitSeconds: number): Promise<void> {
    const query = this.cursor === undefined ? {} : { after: this.cursor, wait: waitSeconds, until: 'playable' as const };
    const list = await this.retry(
      'sync',
      () => {
        const openedAt = Date.now();
        return this.client.GET('/api/entries/{id}/notes', { params: { path: { id: this.entryId }, query } }).then(
          (r) => {
            this.opts.watch?.synced?.({ openedAt, endedAt: Date.now(), outcome: String(r.response.status) });
            return r;
          },
          (err: unknown) => {
            this.opts.watch?.synced?.({ openedAt, endedAt: Date.now(), outcome: err instanceof Error ? err.name : 'failed' });
            throw err;
          },
        );
      },
      Number.POSITIVE_INFINITY,
    );
    for (const id of list.removed ?? []) {
      this.removed.add(id);
      this.downloads.drop(id);
      this.player!.remove(id);
      this.downloaded.delete(id);
    }
    const playable = list.markers.flatMap((m) =>
      (m.notes ?? []).filter((n) => n.status === 'converted' && n.audioUrl).map((n) => ({ ...n, marker: m.marker })),
    );
    const listedAt = Date.now();
    for (const n of playable) {
      if (!this.listed.has(n.id)) this.listed.set(n.id, listedAt);
      if (!this.downloaded.has(n.id)) this.downloads.want({ id: n.id, marker: n.marker, audioUrl: n.audioUrl!, listedAt });
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
      const report = this.retry('played', () =>
        this.client.POST('/api/notes/{id}/played', {
          params: { path: { id: play.noteId } },
          body: { playedAt: new Date(play.at).toISOString(), marker: play.heardAtMarker },
        }),
      ).then(
        () => undefined,
        (err: unknown) => void this.errors.push(String(err)),
      );
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
