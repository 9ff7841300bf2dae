/**
 * What every mode of the bad network stands on: a listener on 127.0.0.1 at a free port that keeps
 * every socket it carries, so a link that drops, goes offline or closes takes them all with it.
 */
import type { AddressInfo, Server, Socket } from 'node:net';

/** Where a bad network forwards to. */
export interface Target {
  host: string;
  port: number;
}

export interface Front {
  port: number;
  url: string;
  /** Every open socket: the browsers' connections, and the upstream ones a mode tracks. */
  readonly sockets: ReadonlySet<Socket>;
  /** Keeps `socket` among the open ones until it closes. */
  track(socket: Socket): void;
  /** Destroys every open socket: the link drops. */
  cutAll(): void;
  /** Drops the link and stops listening. */
  close(): Promise<void>;
}

export interface FrontOptions {
  /** Whether the link is down as a connection arrives: it is then destroyed at once, never tracked. */
  refuse?: () => boolean;
  /** Called with each connection kept. */
  onConnection?: (socket: Socket) => void;
}

/** Listens with `server`, tracking each browser's connection that is not refused. */
export async function openFront(server: Server, { refuse = () => false, onConnection }: FrontOptions = {}): Promise<Front> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  server.on('connection', (socket: Socket) => {
    if (refuse()) return void socket.destroy();
    track(socket);
    onConnection?.(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    sockets,
    track,
    cutAll,
    close: () =>
      new Promise<void>((resolve) => {
        cutAll();
        server.close(() => resolve());
      }),
  };
}
