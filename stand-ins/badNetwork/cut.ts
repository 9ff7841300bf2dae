/**
 * The bad network's cut mode: a TCP proxy that cuts every connection after it has carried a set number of bytes towards the
 * server, as a venue link that never stays up for a whole note does. A cut is the link dropping:
 * every other open connection dies with it (a browser would otherwise resend the cut request on
 * an idle pooled connection that a real dropped link would have killed too). It passes bytes
 * untouched (interim 1xx answers included) and counts what went up, the bytes a phone pays for.
 */
import net from 'node:net';
import { openFront, type Target } from './front.js';

export interface CuttingProxy {
  url: string;
  /** Bytes from browser to server since the last reset, over all connections. */
  bytesUp(): number;
  resetCount(): void;
  /** Connections cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

export async function startCuttingLink(target: Target, cutAfterBytes: number): Promise<CuttingProxy> {
  let up = 0;
  let cuts = 0;
  const clients = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    front.track(upstream);
    clients.add(client);
    let carried = 0;
    client.on('data', (chunk: Buffer) => {
      const room = cutAfterBytes - carried;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      carried += part.length;
      up += part.length;
      upstream.write(part);
      if (carried >= cutAfterBytes) {
        cuts++;
        // The server gets what went through and then the end; the browser sees its connections die.
        upstream.end();
        for (const socket of clients) socket.destroy();
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', () => clients.delete(client));
  });
  const front = await openFront(server);
  return {
    url: front.url,
    bytesUp: () => up,
    resetCount: () => void (up = 0),
    cuts: () => cuts,
    close: front.close,
  };
}
