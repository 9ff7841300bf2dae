/** The repository interface: everything the routes, the worker and the CLI may ask of the database. */
import type { DistanceUnit } from '../../src/shared/races.js';
import type { RunnerStore } from '../runner/store.js';
import type { UploadStore } from './upload-store.js';

export type NoteStatus = 'received' | 'converted' | 'failed';

export interface RaceRow {
  id: string;
  name: string;
  date: string;
  units: DistanceUnit[];
}

export interface LinkView {
  runnerName: string;
  race: RaceRow;
  revoked: boolean;
}

export interface NewNote {
  id: string;
  linkId: string;
  marker: string;
  from: string;
  contentType: string;
  bytes: number;
  sha256: string;
  originalKey: string;
  receivedAt: string;
}

export interface NoteRow extends NewNote {
  status: NoteStatus;
  convertedKey: string | null;
  durationMs: number | null;
  failureReason: string | null;
}

export interface ClaimedJob {
  noteId: string;
  attempts: number;
}

export interface Repository {
  /** Creates the tables when missing and seeds the races. Safe to run on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  getRace(id: string): Promise<RaceRow | undefined>;
  /** Creates a runner and a link for them; linkId is the token's hash, never the token. */
  createLink(link: { linkId: string; runnerName: string; raceId: string; createdAt: string }): Promise<void>;
  findLink(linkId: string): Promise<(LinkView & { linkId: string }) | undefined>;
  /** False when no such link exists. */
  revokeLink(linkId: string, revokedAt: string): Promise<boolean>;

  findNote(id: string): Promise<NoteRow | undefined>;
  /** Inserts the note and its conversion job in one transaction. False if the id was taken. */
  insertNote(note: NewNote): Promise<boolean>;
  listNotes(linkId: string): Promise<NoteRow[]>;

  /** Takes the oldest job whose lease has run out, leasing it until now + leaseMs. */
  claimJob(now: number, leaseMs: number): Promise<ClaimedJob | undefined>;
  /** False when the note was deleted meanwhile: its converted file is then the caller's to remove. */
  markConverted(noteId: string, convertedKey: string, durationMs: number): Promise<boolean>;
  markFailed(noteId: string, reason: string): Promise<void>;

  /** The runner app's rows (accounts, entries, receipts, shares), on the same connection. */
  runner: RunnerStore;
  /** Unfinished resumable uploads (offsets, parts, append leases), on the same connection. */
  uploads: UploadStore;
}
