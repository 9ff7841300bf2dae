/**
 * The watch page's server: the demo's own HTTP server on a port of its own, so a server started with
 * `npm start` has no demo route at all. It serves the page (./page), the course drawn from the
 * demo's own coordinates, the race's state as JSON (the page asks every half second), and each
 * note's audio once the runner's phone has played it, taken from the server as the phone took it.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const PAGE_DIR = path.join(import.meta.dirname, 'page');
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'watch.html', type: 'text/html; charset=utf-8' },
  '/watch.js': { file: 'watch.js', type: 'text/javascript; charset=utf-8' },
  '/watch.css': { file: 'watch.css', type: 'text/css; charset=utf-8' },
};
/** The page's scripts and styles are its own files: no inline code, nothing from elsewhere. */
const CSP = "default-src 'self'; img-src 'self' data:; media-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const NOTE_ID = /^\/audio\/([0-9a-f-]{36})$/;

export interface WatchSource {
  course(): unknown;
  state(): unknown;
  /** Where the server keeps a played note's audio (a signed URL), or undefined. */
  audioUrl(id: string): string | undefined;
}

export interface WatchServer {
  url: string;
  close(): Promise<void>;
}

export async function startWatchServer(port: number, source: WatchSource): Promise<WatchServer> {
  const server = http.createServer(
    (req, res) =>
      void answer(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      }),
  );
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://watch');
    const headers = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
    if (req.method !== 'GET') return res.writeHead(405, headers).end();
    const json = (body: unknown) => res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/course.json') return json(source.course());
    if (url.pathname === '/state.json') return json(source.state());
    const file = FILES[url.pathname];
    if (file) return res.writeHead(200, { ...headers, 'content-type': file.type }).end(await readFile(path.join(PAGE_DIR, file.file)));
    const id = NOTE_ID.exec(url.pathname)?.[1];
    const audio = id && source.audioUrl(id);
    if (!audio) return res.writeHead(404, headers).end();
    const upstream = await fetch(audio);
    if (!upstream.ok) return res.writeHead(502, headers).end();
    res.writeHead(200, { ...headers, 'content-type': upstream.headers.get('content-type') ?? 'audio/mp4' }).end(Buffer.from(await upstream.arrayBuffer()));
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  server.on('error', () => undefined);
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${bound}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
