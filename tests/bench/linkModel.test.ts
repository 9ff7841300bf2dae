/**
 * The link model (the bad network's link mode, stand-ins/badNetwork/link.ts) as the first-visit bench relies on it: every stream's
 * bytes arrive whole and in order, a new connection pays one round trip before its first byte,
 * and connections share one pipe. Timings are measured on real transfers through it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { epochNow, startBadNetwork, type LinkModel, type LinkShape } from '../../stand-ins/badNetwork/index.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP server on loopback; each connection is handed to `onConnection`. */
async function serve(onConnection: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

async function link(port: number, shape: LinkShape): Promise<LinkModel> {
  const model = await startBadNetwork({ host: '127.0.0.1', port }, { kind: 'link', shape });
  cleanups.push(() => model.close());
  return model;
}

async function connect(model: LinkModel): Promise<net.Socket> {
  const socket = net.connect({ host: model.host, port: model.port, noDelay: true });
  await once(socket, 'connect');
  cleanups.push(async () => void socket.destroy());
  return socket;
}

/** Resolves with what the socket has received once it holds `bytes` bytes. */
function receive(socket: net.Socket, bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got < bytes) return;
      socket.off('data', onData);
      resolve(Buffer.concat(chunks));
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** Writes `message` and resolves with the milliseconds until `bytes` bytes have come back. */
async function exchange(socket: net.Socket, message: string | Buffer, bytes: number): Promise<number> {
  const started = performance.now();
  const answer = receive(socket, bytes);
  socket.write(message);
  await answer;
  return performance.now() - started;
}

const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Answers each line `n` with n bytes. */
const sender = (socket: net.Socket) => {
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
      socket.write(Buffer.alloc(Number(pending.slice(0, at)), 7));
      pending = pending.slice(at + 1);
    }
  });
};

describe('the link model', () => {
  it('should deliver every stream whole and in order, both ways, with several at once', async () => {
    const port = await serve((socket) => socket.pipe(socket));
    // Fast enough that many pieces are due within the same millisecond: where timers could swap them.
    const model = await link(port, { roundTripMs: 4, bitsPerSecond: 40_000_000 });
    const started = epochNow();
    const streams = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const socket = await connect(model);
        const sent = randomBytes(256 * 1024);
        const echoed = receive(socket, sent.length);
        // Writes of uneven sizes, as a TLS stack makes them.
        for (let at = 0; at < sent.length; ) {
          const size = 1 + Math.floor(Math.random() * 9000);
          socket.write(sent.subarray(at, at + size));
          at += size;
        }
        return { sent: digest(sent), echoed: digest((await echoed).subarray(0, sent.length)) };
      }),
    );
    for (const { sent, echoed } of streams) expect(echoed).toBe(sent);
    expect(model.bytes()).toEqual({ up: 4 * 256 * 1024, down: 4 * 256 * 1024 });
    // What had crossed by a moment, as the bench asks when Record works.
    expect(model.bytesBy(started)).toEqual({ up: 0, down: 0 });
    expect(model.bytesBy(epochNow())).toEqual(model.bytes());
  });

  it('should make a new connection wait one round trip before its first byte, and only once', async () => {
    const port = await serve((socket) => socket.pipe(socket));
    const model = await link(port, { roundTripMs: 300, bitsPerSecond: 100_000_000 });
    // The opening round trip, then the message's own, from before the connection was asked for.
    const asked = performance.now();
    const socket = await connect(model);
    await exchange(socket, 'hello', 5);
    const first = performance.now() - asked;
    const second = await exchange(socket, 'again', 5);
    expect(first).toBeGreaterThanOrEqual(2 * 300 - 1);
    expect(second).toBeGreaterThanOrEqual(300 - 1);
    expect(second).toBeLessThan(2 * 300);
  });

  it('should share one pipe: two transfers at once each take about twice as long as one alone', async () => {
    const port = await serve(sender);
    // 100 bytes per millisecond each way; 40 KB alone take 400 ms, beside another 800 ms.
    const model = await link(port, { roundTripMs: 20, bitsPerSecond: 800_000 });
    const size = 40_000;
    const [a, b] = [await connect(model), await connect(model)];
    await Promise.all([exchange(a, '1\n', 1), exchange(b, '1\n', 1)]);

    const alone = await exchange(a, `${size}\n`, size);
    const together = await Promise.all([exchange(a, `${size}\n`, size), exchange(b, `${size}\n`, size)]);

    expect(alone).toBeGreaterThanOrEqual(size / 100);
    // Whichever finishes first has waited for nearly all of the other's bytes too.
    for (const ms of together) expect(ms).toBeGreaterThanOrEqual((2 * size - 1460) / 100);
    for (const ms of together) expect(ms / alone).toBeLessThan(2.5);
  });

  it('should drop what a reset connection had not yet sent, so it no longer holds the pipe', async () => {
    const port = await serve(sender);
    const model = await link(port, { roundTripMs: 20, bitsPerSecond: 800_000 });
    const [a, b] = [await connect(model), await connect(model)];
    await exchange(b, '1\n', 1);
    // 200 KB would take 2 s; the browser gives up on them once the first bytes are in.
    await exchange(a, '200000\n', 1);
    a.destroy();
    const before = model.bytes().down;
    await exchange(b, '40000\n', 40_000);
    // Sharing the pipe with a connection still sending would have moved about as much of its bytes
    // as of b's; a few segments of it go while the reset reaches the link.
    expect(model.bytes().down - before).toBeLessThan(40_000 + 20_000);
  });
});
