/** The messages between the server (./converter.ts) and its converter process (./converter-process.ts). */
import type { StorageFaultKind } from '../storage/faults.js';
import type { AudioContainer } from './sniff.js';

export interface ConvertRequest {
  kind: 'convert';
  id: number;
  /** The original, a file of the server's (the process reads it; nothing else about the note crosses). */
  input: string;
  container: AudioContainer;
  output: string;
  timeoutMs: number;
  maxSeconds: number;
}

export type ToConverter = ConvertRequest | { kind: 'abort'; id: number };

/** Why a conversion failed, as the worker tells the cases apart (server/conversion/worker.ts). */
export type ConvertFailure =
  | { kind: 'too_long'; maxSeconds: number }
  | { kind: 'media'; message: string; timedOut: boolean }
  /** The disk (the scratch folder's) failed, not the note: tried again later, not counted. */
  | { kind: 'storage'; fault: StorageFaultKind; message: string }
  | { kind: 'aborted' }
  | { kind: 'error'; message: string };

export type FromConverter = { id: number; durationMs: number } | { id: number; failure: ConvertFailure };
