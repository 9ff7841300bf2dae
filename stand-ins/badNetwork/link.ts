/**
 * The bad network's link mode, a phone's link at the TCP level: a proxy on 127.0.0.1 where each new connection waits one round
 * trip before its first byte moves (the TCP handshake), each direction adds half the round trip,
 * and every connection shares one pipe per direction at a fixed rate. Because it carries bytes,
 * not requests, TLS handshakes and HTTP/2's single connection cross it as they would a real link.
 * It counts the bytes it delivers, with the time of each delivery, so a measurement can ask how
 * many had crossed by a given moment.
 */
import net from 'node:net';
import { openFront, type Target } from './front.js';

export interface LinkShape {
  /** A new connection waits this long before its first byte; each direction adds half of it. */
  roundTripMs: number;
  /** The pipe's rate in each direction, shared by all connections. */
  bitsPerSecond: number;
}

/** One bar at a crowded venue: 400 ms round trip, 400 kbit/s each way. */
export const ONE_BAR: LinkShape = { roundTripMs: 400, bitsPerSecond: 400_000 };

/** Milliseconds since the epoch with sub-millisecond resolution: the scale a page's `performance.timeOrigin + performance.now()` uses. */
export const epochNow = () => performance.timeOrigin + performance.now();

/**
 * Runs `fn` once `ms` have really passed. Node times a timer from the event loop's cached clock,
 * which lags behind a busy loop, so a bare setTimeout can fire early by that lag.
 */
function after(ms: number, fn: () => void, timers: Set<NodeJS.Timeout>): void {
  const due = epochNow() + ms;
  const arm = (wait: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      const left = due - epochNow();
      if (left > 0) arm(left);
      else fn();
    }, wait);
    timers.add(timer);
  };
  arm(ms);
}

/** What a TCP segment carries: bytes are delivered in pieces this size, not whole reads. */
const SEGMENT = 1460;

interface Segment {
  bytes: number;
  queuedAt: number;
  deliver: () => void;
}

interface InFlight {
  deliverAt: number;
  bytes: number;
  deliver: () => void;
}

/**
 * One direction of the link. Each connection (a lane) queues its own bytes; the pipe sends one
 * segment at a time at its rate, taking the lanes in turn, as flows sharing a bottleneck roughly
 * are; a sent segment arrives after the one-way delay. Everything sent waits in a single FIFO
 * drained by a single timer: a timer per piece would let timer granularity swap two pieces of one
 * stream, which a TLS connection does not survive.
 */
export class Pipe {
  private readonly lanes = new Map<object, Segment[]>();
  /** Lanes with bytes waiting, in the order they take their next turn. */
  private readonly turns: object[] = [];
  private readonly inFlight: InFlight[] = [];
  private inFlightHead = 0;
  /** When the segment on the wire has been sent (epoch ms). */
  private busyUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private total = 0;
  /** (time, bytes delivered so far), one entry per delivery round, in time order. */
  private readonly deliveries: Array<{ at: number; total: number }> = [];

  constructor(
    private readonly bytesPerMs: number,
    private readonly delayMs: number,
  ) {}

  /** Queues `bytes` behind what `lane` sent before; `deliver` runs when they reach the far end. */
  send(lane: object, bytes: number, deliver: () => void): void {
    let queue = this.lanes.get(lane);
    if (!queue) {
      queue = [];
      this.lanes.set(lane, queue);
      this.turns.push(lane);
    }
    queue.push({ bytes, queuedAt: epochNow(), deliver });
    this.step();
  }

  /** Drops what `lane` has not yet put on the wire: its connection is gone, as a sender's buffer goes with a reset. */
  forget(lane: object): void {
    if (!this.lanes.delete(lane)) return;
    this.turns.splice(this.turns.indexOf(lane), 1);
  }

  /** Bytes delivered so far. */
  delivered(): number {
    return this.total;
  }

  /** Bytes delivered at or before `epochMs`. */
  deliveredBy(epochMs: number): number {
    let [lo, hi] = [0, this.deliveries.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.deliveries[mid]!.at <= epochMs) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : this.deliveries[lo - 1]!.total;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lanes.clear();
    this.turns.length = 0;
    this.inFlight.length = 0;
    this.inFlightHead = 0;
  }

  /** Puts segments on the wire while the wire is free, delivers what has arrived, and sleeps until the next of either. */
  private step(): void {
    const now = epochNow();
    while (this.turns.length > 0 && this.busyUntil <= now) {
      const lane = this.turns.shift()!;
      const queue = this.lanes.get(lane)!;
      const segment = queue.shift()!;
      if (queue.length > 0) this.turns.push(lane);
      else this.lanes.delete(lane);
      this.busyUntil = Math.max(this.busyUntil, segment.queuedAt) + segment.bytes / this.bytesPerMs;
      this.inFlight.push({ deliverAt: this.busyUntil + this.delayMs, bytes: segment.bytes, deliver: segment.deliver });
    }
    let moved = 0;
    while (this.inFlightHead < this.inFlight.length && this.inFlight[this.inFlightHead]!.deliverAt <= now) {
      const item = this.inFlight[this.inFlightHead++]!;
      moved += item.bytes;
      item.deliver();
    }
    if (moved > 0) {
      this.total += moved;
      this.deliveries.push({ at: now, total: this.total });
    }
    if (this.inFlightHead > 1024 && this.inFlightHead * 2 > this.inFlight.length) {
      this.inFlight.splice(0, this.inFlightHead);
      this.inFlightHead = 0;
    }
    const wakes = [
      ...(this.turns.length > 0 ? [this.busyUntil] : []),
      ...(this.inFlightHead < this.inFlight.length ? [this.inFlight[this.inFlightHead]!.deliverAt] : []),
    ];
    clearTimeout(this.timer);
    this.timer = wakes.length > 0 ? setTimeout(() => this.step(), Math.max(0, Math.min(...wakes) - now)) : undefined;
  }
}

export interface LinkModel {
  host: string;
  port: number;
  /** Bytes delivered so far: towards the server (up) and towards the browser (down). */
  bytes(): { up: number; down: number };
  /** Bytes delivered each way at or before `epochMs` (see epochNow). */
  bytesBy(epochMs: number): { up: number; down: number };
  /** Connections opened through the link so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Sends `chunk` through `pipe` in segments, each written to `to` on arrival unless `to` has gone. */
function carry(pipe: Pipe, chunk: Buffer, to: net.Socket): void {
  for (let i = 0; i < chunk.length; i += SEGMENT) {
    const piece = chunk.subarray(i, i + SEGMENT);
    pipe.send(to, piece.length, () => void (to.writable && to.write(piece)));
  }
}

/** Starts the link in front of `target`; connect to the returned port instead of the target's. */
export async function startLinkModel(target: Target, shape: LinkShape): Promise<LinkModel> {
  const bytesPerMs = shape.bitsPerSecond / 8 / 1000;
  const up = new Pipe(bytesPerMs, shape.roundTripMs / 2);
  const down = new Pipe(bytesPerMs, shape.roundTripMs / 2);
  const opening = new Set<NodeJS.Timeout>();
  let connections = 0;

  // Half-open on both sides: a FIN is carried through the pipe behind the data, as TCP carries it.
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    connections++;
    const upstream = net.connect({ host: target.host, port: target.port, allowHalfOpen: true, noDelay: true });
    front.track(upstream);
    client.on('close', () => down.forget(client));
    upstream.on('close', () => up.forget(upstream));
    // Nothing moves until the handshake's round trip is over.
    client.pause();
    upstream.pause();
    after(
      shape.roundTripMs,
      () => {
        client.resume();
        upstream.resume();
      },
      opening,
    );

    client.on('data', (chunk: Buffer) => carry(up, chunk, upstream));
    upstream.on('data', (chunk: Buffer) => carry(down, chunk, client));
    client.on('end', () => up.send(upstream, 0, () => void (upstream.writable && upstream.end())));
    upstream.on('end', () => down.send(client, 0, () => void (client.writable && client.end())));
    // A reset or a vanished peer is not modelled as bytes: the other side goes at once.
    const reset = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', reset);
    upstream.on('error', reset);
    client.on('close', () => client.readableEnded || reset());
    upstream.on('close', () => upstream.readableEnded || reset());
  });
  const front = await openFront(server);

  return {
    host: '127.0.0.1',
    port: front.port,
    bytes: () => ({ up: up.delivered(), down: down.delivered() }),
    bytesBy: (epochMs) => ({ up: up.deliveredBy(epochMs), down: down.deliveredBy(epochMs) }),
    connections: () => connections,
    close() {
      for (const timer of opening) clearTimeout(timer);
      up.stop();
      down.stop();
      return front.close();
    },
  };
}
