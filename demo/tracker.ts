/**
 * Each note's way in the demo, as the watch page and the status line tell it: sent (a friend's
 * phone began sending it: a simulated friend, or a request through the venue link), stored and
 * converted (the server's notes list, read with a session of the runner's own account, as the
 * app's settings screen would), on the phone and played at its marker (the reference app itself).
 */
import { markerLabel } from '../contract/markers.js';
import { signInWith } from '../kit/runnerApi.js';
import type { ReferenceApp } from '../reference-app/app.js';
import type { ChaosProxy } from '../stand-ins/badNetwork/index.js';

export interface NoteWay {
  id: string;
  marker: string;
  markerLabel: string;
  from: string;
  durationMs: number | null;
  /** When each step happened (epoch ms on the demo's clock, the one every page of the demo shows). */
  sent?: number;
  stored?: number;
  converted?: number;
  onPhone?: number;
  played?: number;
  /** Where the runner was when it played (its own marker, or a later one for a late note). */
  heardAt?: string;
  atItsMarker?: boolean;
  failed?: boolean;
  /** Requests its upload took on the venue link, and what became of them ("offline 2, bad-gateway 1, ok 1"). */
  venueTries?: string;
}

interface ListedNote {
  id: string;
  from: string;
  durationMs: number | null;
  status: 'received' | 'converted' | 'failed';
  audioUrl: string | null;
}

interface NotesList {
  markers: Array<{ marker: string; notes?: ListedNote[] }>;
}

const NOTE_PATH = /^\/api\/r\/[^/]+\/(?:notes|uploads)\/([0-9a-f-]{36})/;

export class NoteTracker {
  private readonly ways = new Map<string, NoteWay>();
  private readonly audioUrls = new Map<string, string>();
  private accessToken = '';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly opts: {
      serverUrl: string;
      entryId: string;
      /** A fresh identity token of the runner's account (the fake Apple signs one per sign-in). */
      identityToken(): Promise<string>;
      nonce: string;
      app: ReferenceApp;
      venue?: ChaosProxy;
      /** The demo's clock, which the steps are stamped on. */
      now: () => number;
    },
  ) {}

  /** A simulated friend began sending this note. */
  sent(id: string, marker: string, from: string): void {
    const way = this.way(id, marker, from);
    way.sent ??= this.opts.now();
  }

  private way(id: string, marker: string, from = ''): NoteWay {
    let way = this.ways.get(id);
    if (!way) this.ways.set(id, (way = { id, marker, markerLabel: markerLabel(marker), from, durationMs: null }));
    return way;
  }

  /** The note's signed audio address on the server (path and query), once it is playable. */
  audioPath(id: string): string | undefined {
    const url = this.audioUrls.get(id);
    if (!url) return undefined;
    const u = new URL(url);
    return u.pathname + u.search;
  }

  start(): void {
    const tick = () => {
      this.polling = this.poll()
        .catch(() => undefined)
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(tick, 1_000);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  private async signIn(): Promise<void> {
    this.accessToken = await signInWith(this.opts.serverUrl, await this.opts.identityToken(), this.opts.nonce);
  }

  private async poll(): Promise<void> {
    if (!this.accessToken) await this.signIn();
    let res = await fetch(`${this.opts.serverUrl}/api/entries/${this.opts.entryId}/notes`, { headers: { authorization: `Bearer ${this.accessToken}` } });
    if (res.status === 401) {
      await this.signIn();
      res = await fetch(`${this.opts.serverUrl}/api/entries/${this.opts.entryId}/notes`, { headers: { authorization: `Bearer ${this.accessToken}` } });
    }
    if (!res.ok) return;
    const list = (await res.json()) as NotesList;
    const now = this.opts.now();
    for (const m of list.markers) {
      for (const n of m.notes ?? []) {
        const way = this.way(n.id, m.marker, n.from);
        way.from = n.from;
        way.durationMs = n.durationMs;
        way.stored ??= now;
        if (n.status === 'converted') way.converted ??= now;
        if (n.status === 'failed') way.failed = true;
        if (n.audioUrl) this.audioUrls.set(n.id, n.audioUrl);
      }
    }
  }

  /** Every note's way as it stands now (the app's own state read at this moment). */
  snapshot(): NoteWay[] {
    const { app, venue } = this.opts;
    if (venue) this.readVenue(venue);
    const now = this.opts.now();
    for (const way of this.ways.values()) {
      way.onPhone ??= app.notes.get(way.id) && now;
      // The list is read once a second, the phone at once: a note on the phone was stored and converted by then.
      if (way.onPhone !== undefined) {
        way.stored = Math.min(way.stored ?? way.onPhone, way.onPhone);
        way.converted = Math.min(way.converted ?? way.onPhone, way.onPhone);
      }
      const play = app.plays.find((p) => p.noteId === way.id);
      if (play) {
        way.played ??= play.at;
        way.heardAt = markerLabel(play.heardAtMarker);
        way.atItsMarker = play.atItsMarker;
      }
    }
    return [...this.ways.values()].sort((a, b) => (a.sent ?? a.stored ?? 0) - (b.sent ?? b.stored ?? 0));
  }

  /** Notes whose upload went through the venue link: sent at their first request, with each request's fate. */
  private readVenue(venue: ChaosProxy): void {
    const tries = new Map<string, Map<string, number>>();
    for (const entry of venue.log) {
      const id = NOTE_PATH.exec(entry.path)?.[1];
      if (!id || entry.method === 'GET' || entry.method === 'HEAD' || entry.method === 'OPTIONS') continue;
      const counts = tries.get(id) ?? new Map<string, number>();
      tries.set(id, counts);
      counts.set(entry.fate, (counts.get(entry.fate) ?? 0) + 1);
      const query = new URL(entry.path, 'http://venue').searchParams;
      this.way(id, query.get('marker') ?? this.ways.get(id)?.marker ?? '', query.get('from') ?? '').sent ??= this.opts.now();
    }
    for (const [id, counts] of tries) {
      const way = this.ways.get(id);
      if (way) way.venueTries = [...counts].map(([fate, n]) => `${fate === 'passed' ? 'ok' : fate} ${n}`).join(', ');
    }
  }
}
