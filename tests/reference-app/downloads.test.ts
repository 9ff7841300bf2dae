import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AudioDownloads, type LandedAudio } from '../../reference-app/downloads.js';

const SIZE = 64 * 1024;
const audio = Buffer.alloc(SIZE, 7);
const ETAG = '"audio-v1"';

/** Serves every note's audio with Range and If-Range, as the server does; `cutFirst` cuts each note's first answer halfway. */
async function audioServer(opts: { cutFirst?: boolean } = {}) {
  const ranges: Array<{ id: string; range?: string }> = [];
  const cut = new Set<string>();
  const server = http.createServer((req, res) => {
    const id = /^\/api\/notes\/([^/]+)\/audio/.exec(req.url ?? '')?.[1] ?? '';
    ranges.push({ id, range: req.headers.range });
    const from = req.headers.range && req.headers['if-range'] === ETAG ? Number(/bytes=(\d+)-/.exec(req.headers.range)![1]) : 0;
    const body = audio.subarray(from);
    res.writeHead(from ? 206 : 200, { etag: ETAG, 'content-length': body.length, ...(from ? { 'content-range': `bytes ${from}-${SIZE - 1}/${SIZE}` } : {}) });
    if (opts.cutFirst && !cut.has(id)) {
      cut.add(id);
      res.write(body.subarray(0, SIZE / 2), () => res.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, ranges, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const meters: Record<string, number> = { 'mi-5': 8047, 'mi-6': 9656, 'mi-9': 14484 };

function downloads(baseUrl: string, concurrency: number) {
  const landed: LandedAudio[] = [];
  const failed: string[] = [];
  let counted = 0;
  const queue = new AudioDownloads({
    baseUrl,
    concurrency,
    rank: (marker) => meters[marker] ?? Number.POSITIVE_INFINITY,
    signal: () => AbortSignal.timeout(10_000),
    stopped: () => false,
    counted: (n) => (counted += n),
    landed: (note) => landed.push(note),
    failed: (id) => failed.push(id),
  });
  return { queue, landed, failed, counted: () => counted };
}

const note = (id: string, marker: string) => ({ id, marker, audioUrl: `https://public.example/api/notes/${id}/audio?sig=x`, listedAt: Date.now() });

describe("the reference app taking notes' audio", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('should take the note whose marker comes first before notes listed earlier for markers further on', async () => {
    const server = await audioServer();
    close = server.close;
    const d = downloads(server.url, 1);
    d.queue.want(note('a', 'mi-9'));
    d.queue.want(note('b', 'mi-9'));
    d.queue.want(note('c', 'mi-6'));
    d.queue.want(note('d', 'mi-5'));
    await d.queue.drained();
    // `a` was already on its way when the others were listed; then nearest first, ties in the order listed.
    expect(d.landed.map((n) => n.id)).toEqual(['a', 'd', 'c', 'b']);
    expect(d.failed).toEqual([]);
  });

  it('should resume a cut download from where it stopped instead of taking it again', async () => {
    const server = await audioServer({ cutFirst: true });
    close = server.close;
    const d = downloads(server.url, 2);
    d.queue.want(note('a', 'mi-5'));
    await d.queue.drained();
    expect(d.landed).toEqual([expect.objectContaining({ id: 'a', bytes: SIZE, tries: 2 })]);
    expect(server.ranges).toEqual([
      { id: 'a', range: undefined },
      { id: 'a', range: `bytes=${SIZE / 2}-` },
    ]);
    expect(d.counted()).toBe(SIZE);
  });
});
