/**
 * The converter process: runs the server's conversions (./ffmpeg.ts) in a small process of its own,
 * in the background (./background.ts), away from the server's event loop. Started and spoken to
 * by ./converter.ts over Node's IPC channel; it exits, stopping every tool, when the server goes.
 */
import { createReadStream } from 'node:fs';
import { StorageFault, storageFaultOf } from '../storage/faults.js';
import { convertToM4a, MediaToolError } from './ffmpeg.js';
import type { ConvertFailure, ConvertRequest, FromConverter, ToConverter } from './converter-protocol.js';
import { NoteTooLongError } from './length.js';

const running = new Map<number, AbortController>();

function reply(message: FromConverter): void {
  // The server may be gone: then 'disconnect' below ends this process.
  if (process.connected) process.send?.(message, undefined, undefined, () => {});
}

function failureOf(err: unknown, signal: AbortSignal): ConvertFailure {
  if (signal.aborted) return { kind: 'aborted' };
  if (err instanceof NoteTooLongError) return { kind: 'too_long', maxSeconds: err.maxSeconds };
  if (err instanceof MediaToolError) return { kind: 'media', message: err.message, timedOut: err.timedOut };
  const fault = storageFaultOf(err);
  // The error it met, not the fault's own message: the server's side wraps it again.
  const met = err instanceof StorageFault ? err.cause : err;
  if (fault) return { kind: 'storage', fault, message: met instanceof Error ? met.message : String(met) };
  return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
}

function convert(job: ConvertRequest): void {
  const controller = new AbortController();
  running.set(job.id, controller);
  const { signal } = controller;
  convertToM4a(createReadStream(job.input), job.container, job.output, { timeoutMs: job.timeoutMs, maxSeconds: job.maxSeconds, signal })
    .then(
      ({ durationMs }) => reply({ id: job.id, durationMs }),
      (err: unknown) => reply({ id: job.id, failure: failureOf(err, signal) }),
    )
    .finally(() => running.delete(job.id));
}

process.on('message', (message: ToConverter) => {
  if (message.kind === 'abort') running.get(message.id)?.abort();
  else convert(message);
});

// The server stopped or died (its end of the channel closed): its jobs are nobody's now.
process.on('disconnect', () => {
  for (const controller of running.values()) controller.abort();
  process.exit(0);
});
