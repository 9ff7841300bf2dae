/** Plain node:http requests against a listening server, for what app.inject cannot show (chunked bodies, aborts, raw bytes). */
import http from 'node:http';
import net from 'node:net';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Sends a request; `body` chunks are written one by one, so without content-length the upload is chunked. */
export function send(base: string, method: string, path: string, headers: Record<string, string>, body: Buffer[] = []): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    // The server may answer (413, 415) and close before the whole body is written.
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    for (const chunk of body) req.write(chunk);
    req.end();
  });
}

/** Writes raw bytes to the port and returns whatever comes back before the socket closes. */
export function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes));
    let reply = '';
    socket.setEncoding('latin1').on('data', (d: string) => (reply += d));
    socket.on('close', () => resolve(reply));
    socket.on('error', reject);
  });
}
