/**
 * Owns the server's converter process (./converter-process.ts): started on the first conversion,
 * in the background (./background.ts), and again after it dies. A conversion spawns ffmpeg twice
 * and moves a few MB of decoded audio between the two runs; in the server's own process each spawn
 * blocked its event loop for 7-20 ms on this machine's VM (Node's spawn waits for the child's exec)
 * and the audio was copied and collected there, in front of every upload and sign-in. Here the
 * server only sends a file's name and waits for an answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { backgroundCommand, lowerPriority } from './background.js';
import type { ConvertFailure, FromConverter, ToConverter } from './converter-protocol.js';
import { MediaToolError } from './ffmpeg.js';
import { NoteTooLongError } from './length.js';
import type { AudioContainer } from './sniff.js';

const root = path.resolve(import.meta.dirname, '../..');
const entry = path.join(import.meta.dirname, 'converter-process.ts');
/** Beyond its two runs' time limits, what a conversion may take to start and answer. */
const OVERDUE_SLACK_MS = 10_000;

export interface ConvertOptions {
  /** Each of the two ffmpeg runs is stopped after this long. */
  timeoutMs: number;
  maxSeconds: number;
  /** Aborting stops the conversion and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface Converter {
  /** Converts the original in `input` into an M4A at `output` (convertToM4a's contract, errors included). */
  convert(input: string, container: AudioContainer, output: string, opts: ConvertOptions): Promise<{ durationMs: number }>;
  /** Stops the process, and with it any conversion still running. */
  close(): Promise<void>;
}

interface Pending {
  resolve(result: { durationMs: number }): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
}

interface Helper {
  child: ChildProcess;
  pending: Map<number, Pending>;
  closed: Promise<void>;
  /** Set when the server closes it: its end is then no news. */
  closing: boolean;
}

function errorOf(failure: ConvertFailure, signal: AbortSignal | undefined): unknown {
  switch (failure.kind) {
    case 'too_long': return new NoteTooLongError(failure.maxSeconds);
    case 'media': return new MediaToolError(failure.message, failure.timedOut);
    case 'aborted': return signal?.reason ?? new Error('the conversion was stopped');
    case 'error': return new Error(failure.message);
  }
}

export function startConverter(log: FastifyBaseLogger): Converter {
  let helper: Helper | undefined;
  let nextId = 0;

  function start(): Helper {
    const { program, args, lowerAfterStart } = backgroundCommand(process.execPath, ['--import', 'tsx', entry]);
    // From the project's root, where `--import tsx` resolves as it does for the server.
    const child = spawn(program, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    if (lowerAfterStart) lowerPriority(child.pid);
    const pending = new Map<number, Pending>();
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
    child.on('message', (message: FromConverter) => {
      const job = pending.get(message.id);
      if (!job) return;
      pending.delete(message.id);
      if ('failure' in message) job.reject(errorOf(message.failure, job.signal));
      else job.resolve({ durationMs: message.durationMs });
    });
    let exited!: () => void;
    const closed = new Promise<void>((resolve) => (exited = resolve));
    // 'exit', not 'close': a child whose channel the server disconnected never emits 'close' (Node 20).
    const gone = (how: string) => {
      if (helper === self) helper = undefined;
      if (pending.size > 0 || !self.closing) log.error({ how, inHand: pending.size, stderr: stderr.trim().split('\n').slice(-5).join('\n') }, 'the converter process ended');
      // Each counts as a failed attempt and is tried again, in a new process.
      for (const job of pending.values()) job.reject(new Error(`the converter process ended (${how})`));
      pending.clear();
      exited();
    };
    child.once('exit', (code, signal) => gone(signal ?? `code ${code}`));
    // A process that could not be started may emit no 'exit'.
    child.once('error', (err) => gone(`could not be started: ${err.message}`));
    const self: Helper = { child, pending, closed, closing: false };
    return self;
  }

  const send = (to: Helper, message: ToConverter) => {
    if (to.child.connected) to.child.send(message, undefined, undefined, () => {});
  };

  return {
    convert(input, container, output, { timeoutMs, maxSeconds, signal }) {
      return new Promise((resolve, reject) => {
        signal?.throwIfAborted();
        if (!helper?.child.connected) helper = start();
        const to = helper;
        const id = nextId++;
        const abort = () => send(to, { kind: 'abort', id });
        signal?.addEventListener('abort', abort, { once: true });
        // The process stops each of its two runs after timeoutMs; an answer later than both means
        // it is stuck or starved: the attempt fails (and is tried again) rather than hold its lease for ever.
        const overdue = setTimeout(() => {
          abort();
          to.pending.get(id)?.reject(new MediaToolError(`the converter did not answer within ${2 * timeoutMs + OVERDUE_SLACK_MS} ms`, true));
          to.pending.delete(id);
        }, 2 * timeoutMs + OVERDUE_SLACK_MS);
        const done = () => {
          clearTimeout(overdue);
          signal?.removeEventListener('abort', abort);
        };
        to.pending.set(id, {
          signal,
          resolve: (result) => { done(); resolve(result); },
          reject: (err) => { done(); reject(err); },
        });
        send(to, { kind: 'convert', id, input, container, output, timeoutMs, maxSeconds });
      });
    },
    async close() {
      const last = helper;
      helper = undefined;
      if (!last) return;
      last.closing = true;
      // Closing the channel is the process's cue to stop its tools and exit.
      if (last.child.connected) last.child.disconnect();
      const killer = setTimeout(() => last.child.kill('SIGKILL'), 5_000);
      await last.closed;
      clearTimeout(killer);
    },
  };
}
