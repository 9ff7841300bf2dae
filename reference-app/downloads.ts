/**
 * Owns the notes' audio on its way to the phone: each note listed playable is queued at once and
 * taken apart from the sync (a held sync request never waits for a download, so a note sent while
 * another downloads is still heard of at once), the note whose marker comes first along the course
 * before the others (a late note, whose marker is behind the runner, then the nearest ahead), a
 * few at a time, and a download cut by the link resumes with Range from where it stopped.
 */

import { networkRetryWait } from './network.js';

/** A note listed playable whose audio the phone wants. */
export interface WantedAudio {
  id: string;
  marker: string;
  audioUrl: string;
  /** When a sync answer first listed it playable (real epoch ms). */
  listedAt: number;
}

export interface LandedAudio extends WantedAudio {
  /** When the first request for its audio went out (real epoch ms): listedAt to here is queueing. */
  downloadStartedAt: number;
  onPhoneAt: number;
  /** Requests it took (a cut, a 502 or an offline window costs one each). */
  tries: number;
  bytes: number;
}

export interface DownloadOptions {
  /** Where the phone reaches the API; a signed URL's own host is the server's public address. */
  baseUrl: string;
  /**
   * Downloads at once. One link's bandwidth is shared by all of them, so more only slow the
   * urgent one; one alone leaves the link idle while it waits out a failed request's retry.
   */
  concurrency: number;
  /** Which note goes first: the smaller, the sooner (its marker's distance along the course). */
  rank(marker: string): number;
  /** A fresh signal per request: its timeout, and the app's end. */
  signal(): AbortSignal;
  stopped(): boolean;
  /** Every audio byte that came off the network, whole or not. */
  counted(bytes: number): void;
  landed(note: LandedAudio): void;
  failed(id: string, err: unknown): void;
}

const GIVE_UP_AFTER_TRIES = 50;

export class AudioDownloads {
  private readonly wanted = new Map<string, WantedAudio>();
  private readonly active = new Set<string>();
  private readonly idle = new Set<() => void>();

  constructor(private readonly opts: DownloadOptions) {}

  /** Queues a note's audio (again listed with a fresh URL: the URL is replaced). */
  want(note: WantedAudio): void {
    if (this.active.has(note.id)) return;
    const queued = this.wanted.get(note.id);
    this.wanted.set(note.id, queued ? { ...note, listedAt: queued.listedAt } : note);
    this.next();
  }

  /** The runner removed the note: not taken if it has not started (one on its way is dropped by the app when it lands). */
  drop(id: string): void {
    this.wanted.delete(id);
  }

  /** Resolves when nothing is queued or on its way. */
  drained(): Promise<void> {
    if (this.wanted.size + this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  private next(): void {
    while (this.active.size < this.opts.concurrency && this.wanted.size > 0) {
      // Ties keep the order they were listed in (the Map's order, and reduce keeps the first).
      const note = [...this.wanted.values()].reduce((a, b) => (this.opts.rank(b.marker) < this.opts.rank(a.marker) ? b : a));
      this.wanted.delete(note.id);
      this.active.add(note.id);
      void this.take(note).finally(() => {
        this.active.delete(note.id);
        this.next();
        if (this.wanted.size + this.active.size > 0) return;
        for (const resolve of this.idle) resolve();
        this.idle.clear();
      });
    }
  }

  /** One note's audio, resumed with Range and If-Range from where a cut left it. */
  private async take(note: WantedAudio): Promise<void> {
    const url = new URL(note.audioUrl, this.opts.baseUrl);
    const target = new URL(url.pathname + url.search, this.opts.baseUrl);
    let have = 0;
    let etag: string | undefined;
    const downloadStartedAt = Date.now();
    let tries = 0;
    // Failures in a row: a try that brought bytes shows the link was there, so the next waits least.
    let failures = 0;
    for (;;) {
      tries++;
      const before = have;
      try {
        const headers: Record<string, string> = have > 0 && etag ? { range: `bytes=${have}-`, 'if-range': etag } : {};
        const res = await fetch(target, { headers, signal: this.opts.signal() });
        if (res.status === 200) {
          // The whole file again (it changed, or the range was ignored): counted from its start.
          have = 0;
        } else if (res.status !== 206) {
          await res.body?.cancel();
          throw new Error(`audio ${res.status}`);
        }
        etag = res.headers.get('etag') ?? undefined;
        const reader = res.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          have += value.byteLength;
          this.opts.counted(value.byteLength);
        }
        break;
      } catch (err) {
        if (this.opts.stopped() || tries > GIVE_UP_AFTER_TRIES) return this.opts.failed(note.id, err);
        failures = have > before ? 1 : failures + 1;
        await new Promise((r) => setTimeout(r, networkRetryWait(failures)));
      }
    }
    this.opts.landed({ ...note, downloadStartedAt, onPhoneAt: Date.now(), tries, bytes: have });
  }
}
