/**
 * Owns the server's converter process (./converter-process.ts): started before the first
 * conversion (prepare) or by it, in the background (./background.ts), and again after it dies.
 * A conversion spawns ffmpeg twice and moves a few MB of decoded audio between the two runs; in
 * the server's own process each spawn blocked its event loop for 7-20 ms on this machine's VM
 * (Node's spawn waits for the child's exec) and the audio was copied and collected there, in
 * front of every upload and sign-in. Here the server only sends a file's name and waits for an
 * answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { StorageFault } from '../storage/faults.js';
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
  /**
   * Starts the process now if none runs, so that the first note (after a restart, say a takeover
   * of a dead server's job) does not also wait for a Node process to start on a busy machine.
   */
  prepare(): void;
  /** Stops the process, and with it any conversion still running. */
  close(): Promise<void>;
}

interface Pending {
  resolve(result: { durationMs: number }): void;
  reject(err: unknown): void;
}

interface Helper {
  child: ChildProcess;
  pending: Map<number, Pending>;
  /** Settles once the process has exited (or could not start). */
  ended: Promise<void>;
  /** Set when the server closes it: its end is then no news. */
  closing: boolean;
}

function errorOf(failure: ConvertFailure): unknown {
  switch (failure.kind) {
    case 'too_long':
      return new NoteTooLongError(failure.maxSeconds);
    case 'media':
      return new MediaToolError(failure.message, failure.timedOut);
    case 'storage':
      return new StorageFault(failure.fault, new Error(failure.message));
    case 'aborted':
      return new Error('the conversion was stopped');
    case 'error':
      return new Error(failure.message);
  }
}

export function startConverter(log: FastifyBaseLogger): Converter {
  let helper: Helper | undefined;
  let nextId = 0;
  let closing: Promise<void> | undefined;

  function start(): Helper {
    const { program, args, lowerAfterStart } = backgroundCommand(process.execPath, ['--import', 'tsx', entry]);
    // From the project's root, where `--import tsx` resolves as it does for the server.
    const child = spawn(program, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const pending = new Map<number, Pending>();
    let exited!: () => void;
    const self: Helper = { child, pending, ended: new Promise<void>((resolve) => (exited = resolve)), closing: false };
    let stderr = '';
    const stderrDone = new Promise<void>((resolve) => {
      if (!child.stderr) return resolve(); // a spawn that failed at once (EMFILE) made no streams
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2000)));
      child.stderr.once('close', resolve);
    });
    let gone = false;
    const end = (how: string) => {
      if (gone) return;
      gone = true;
      if (helper === self) helper = undefined;
      const inHand = pending.size;
      // Each counts as a failed attempt and is tried again, in a new process.
      for (const job of pending.values()) job.reject(new Error(`the converter process ended (${how})`));
      pending.clear();
      exited();
      if (inHand > 0 || !self.closing) {
        // Its last words (why it could not start, say) may still be in the pipe when it exits.
        const said = Promise.race([stderrDone, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
        void said.then(() => log.error({ how, inHand, stderr: stderr.trim().split('\n').slice(-5).join('\n') }, 'the converter process ended'));
      }
    };
    // 'exit', not 'close': a child whose channel the server disconnected never emits 'close' (Node 20).
    child.once('exit', (code, signal) => end(signal ?? `code ${code}`));
    child.on('error', (err) => {
      // Only a process that never started is gone; a failed kill or send leaves it running.
      if (child.pid === undefined) end(`could not be started: ${err.message}`);
      else log.warn({ err }, 'the converter process reported an error');
    });
    if (lowerAfterStart) lowerPriority(child.pid);
    child.on('message', (message: FromConverter) => {
      // A job already settled (aborted, overdue) is no longer there: a late answer changes nothing.
      const job = pending.get(message.id);
      if (!job) return;
      if ('failure' in message) job.reject(errorOf(message.failure));
      else job.resolve({ durationMs: message.durationMs });
    });
    return self;
  }

  const send = (to: Helper, message: ToConverter) => {
    if (to.child.connected) to.child.send(message, undefined, undefined, () => {});
  };

  return {
    convert(input, container, output, { timeoutMs, maxSeconds, signal }) {
      return new Promise((resolve, reject) => {
        if (closing !== undefined) throw new Error('the converter is closed');
        signal?.throwIfAborted();
        if (!helper?.child.connected) helper = start();
        const to = helper;
        const id = nextId++;
        let overdue: NodeJS.Timeout | undefined;
        // Each job settles once, whichever comes first: the answer, the abort, the deadline or the process's end.
        const settle = (then: () => void) => {
          if (!to.pending.delete(id)) return;
          clearTimeout(overdue);
          signal?.removeEventListener('abort', abort);
          then();
        };
        // Stopped (the lease is lost): the answer is the signal's reason at once, whatever the
        // process then says or however long it takes to stop its ffmpeg.
        const abort = () => {
          send(to, { kind: 'abort', id });
          settle(() => reject(signal!.reason));
        };
        to.pending.set(id, {
          resolve: (result) => settle(() => resolve(result)),
          reject: (err) => settle(() => reject(err)),
        });
        // The process stops each of its two runs after timeoutMs; an answer later than both means it
        // is stuck or starved: the attempt fails (and is tried again) and the process is replaced,
        // so that the next notes neither wait on it nor run beside an ffmpeg it still has going.
        overdue = setTimeout(
          () =>
            settle(() => {
              log.error({ timeoutMs }, 'the converter process did not answer in time: stopping it');
              if (helper === to) helper = undefined;
              to.child.kill('SIGKILL');
              reject(new MediaToolError(`the converter did not answer within ${2 * timeoutMs + OVERDUE_SLACK_MS} ms`, true));
            }),
          2 * timeoutMs + OVERDUE_SLACK_MS,
        );
        signal?.addEventListener('abort', abort, { once: true });
        send(to, { kind: 'convert', id, input, container, output, timeoutMs, maxSeconds });
      });
    },
    prepare() {
      if (!closing && !helper?.child.connected) helper = start();
    },
    close() {
      closing ??= (async () => {
        const last = helper;
        helper = undefined;
        if (!last) return;
        last.closing = true;
        // Closing the channel is the process's cue to stop its tools and exit.
        if (last.child.connected) last.child.disconnect();
        const killer = setTimeout(() => last.child.kill('SIGKILL'), 5_000);
        await last.ended;
        clearTimeout(killer);
      })();
      return closing;
    },
  };
}
