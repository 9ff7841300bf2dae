/**
 * A request body that ends instead of failing when the connection drops, so what arrived before
 * the cut can still be stored and resumed from (the draft: "append as much as possible").
 */
import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';

export interface CutTolerantBody {
  stream: Readable;
  /** True once the connection dropped, went idle too long, or stop() was called. */
  cut(): boolean;
  /** Ends the body here (another request took the upload over) and drops the connection. */
  stop(): void;
  /** The request was refused before its body was wanted: stop watching it and let it drain. */
  dispose(): void;
}

/**
 * Bytes read ahead while the request is checked (database round trips): a connection that drops
 * then loses what the kernel and Node still held, but not what was already read into here.
 */
const READ_AHEAD_BYTES = 256 * 1024;

export function cutTolerant(source: Readable, idleMs: number): CutTolerantBody {
  const out = new PassThrough({ highWaterMark: READ_AHEAD_BYTES });
  let wasCut = false;
  let ended = false;
  const end = (cut: boolean) => {
    clearTimeout(idle);
    if (ended) return;
    ended = true;
    if (cut) wasCut = true;
    source.unpipe(out);
    out.end();
  };
  // A phone that lost its signal leaves the socket open with nothing arriving: treat silence as a cut.
  const idle = setTimeout(() => stop(), idleMs);
  const stop = () => {
    end(true);
    source.destroy();
  };
  source.on('data', () => {
    idle.refresh();
  });
  source.on('end', () => end(false));
  source.on('error', () => end(true));
  source.on('close', () => {
    if (!source.readableEnded) end(true);
  });
  source.pipe(out, { end: false });
  // The connection may have dropped while the request waited for its turn: nothing more will come.
  if (source.readableEnded) end(false);
  else if (source.destroyed) end(true);
  const dispose = () => {
    clearTimeout(idle);
    ended = true;
    source.unpipe(out);
    out.destroy();
    source.resume();
  };
  return { stream: out, cut: () => wasCut, stop, dispose };
}

/** Drops the first `bytes` bytes: a repeated creation request resends what the server already holds. */
export function skipBytes(bytes: number): Transform {
  let left = bytes;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      if (left >= chunk.length) {
        left -= chunk.length;
        return done();
      }
      const rest = chunk.subarray(left);
      left = 0;
      done(null, rest);
    },
  });
}
