/**
 * Owns the objects' half of a backup of a shared deployment: copying out every object the
 * database snapshot's rows name (the notes' audio, and the races' pictures), each checked against
 * the size and SHA-256 its row records and written to objects.jsonl (key, bytes, sha256); and
 * copying them back in, each checked against that line. Page by page and a few objects at a
 * time: memory stays bounded whatever the count.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { BlobRefStore, NoteBlobs, RecordedBlob } from '../db/repository.js';
import { BlobTooLargeError, type BlobStore, type PutResult } from '../storage/blob-store.js';
import { BackupRefused } from './backup-refused.js';

/** One line of objects.jsonl. */
export interface ObjectEntry {
  key: string;
  bytes: number;
  sha256: string;
}

/** An object a row of the snapshot names that could not be copied as the row records it. */
export interface ObjectProblem {
  /** Whose it is: a note's audio, or a race's picture. */
  owner: { kind: 'note' | 'race'; id: string };
  key: string;
  problem: 'missing' | 'differs';
}

export interface CopiedOut {
  notes: number;
  objects: number;
  bytes: number;
  /** The first problems (at most PROBLEMS_KEPT), and how many there were in all. */
  problems: ObjectProblem[];
  problemCount: number;
}

const NOTES_PER_PAGE = 500;
const LINES_PER_BATCH = 500;
/** Objects copied at once: enough to keep S3's round trips overlapping, few enough for a small server. */
const AT_ONCE = 8;
const PROBLEMS_KEPT = 20;

/**
 * Runs `work` on every item, at most `limit` at a time. The first failure stops the rest from
 * starting and is thrown once those already started have ended, so nothing runs on behind it.
 */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.err;
}

/** The object's bytes, or undefined when the store has no such object (any other failure is thrown). */
async function read(store: BlobStore, key: string): Promise<Readable | undefined> {
  try {
    return await store.get(key);
  } catch (err) {
    if (!(await store.exists(key))) return undefined;
    throw err;
  }
}

/** Copies the object into `to`, no larger than the row says; its size and SHA-256, or why it is not what the row records. */
async function copyOne(from: BlobStore, to: BlobStore, blob: RecordedBlob): Promise<ObjectEntry | 'missing' | 'differs'> {
  const body = await read(from, blob.key);
  if (!body) return 'missing';
  try {
    const stored = await to.put(blob.key, body, { maxBytes: blob.bytes ?? Number.MAX_SAFE_INTEGER });
    if ((blob.bytes !== null && stored.bytes !== blob.bytes) || (blob.sha256 !== null && stored.sha256 !== blob.sha256)) return 'differs';
    return { key: blob.key, bytes: stored.bytes, sha256: stored.sha256 };
  } catch (err) {
    if (err instanceof BlobTooLargeError) return 'differs';
    throw err;
  }
}

/**
 * Copies the objects of every note `refs` pages through, then the races' pictures, from `from`
 * into `to`, one line each in `manifestFile` (created, must not exist). A problem does not stop
 * the copy: all are counted.
 */
export async function copyObjectsOut(
  refs: Pick<BlobRefStore, 'notesAfter' | 'raceImages'>,
  from: BlobStore,
  to: BlobStore,
  manifestFile: string,
): Promise<CopiedOut> {
  const manifest = await open(manifestFile, 'wx');
  const result: CopiedOut = { notes: 0, objects: 0, bytes: 0, problems: [], problemCount: 0 };
  const copyAll = async (blobs: Array<{ owner: ObjectProblem['owner']; blob: RecordedBlob }>) => {
    const lines: string[] = [];
    await eachLimited(blobs, AT_ONCE, async ({ owner, blob }) => {
      const copied = await copyOne(from, to, blob);
      if (typeof copied === 'string') {
        result.problemCount += 1;
        if (result.problems.length < PROBLEMS_KEPT) result.problems.push({ owner, key: blob.key, problem: copied });
        return;
      }
      result.objects += 1;
      result.bytes += copied.bytes;
      lines.push(`${JSON.stringify(copied)}\n`);
    });
    if (lines.length > 0) await manifest.write(lines.join(''));
  };
  try {
    let after = '';
    for (;;) {
      const page: NoteBlobs[] = await refs.notesAfter(after, NOTES_PER_PAGE);
      if (page.length === 0) break;
      after = page.at(-1)!.noteId;
      result.notes += page.length;
      await copyAll(
        page.flatMap((note) =>
          [note.original, ...(note.converted ? [note.converted] : [])].map((blob) => ({ owner: { kind: 'note' as const, id: note.noteId }, blob })),
        ),
      );
    }
    // The home page's pictures live in the same store: a restored site shows them too.
    await copyAll((await refs.raceImages()).map(({ raceId, image }) => ({ owner: { kind: 'race' as const, id: raceId }, blob: image })));
    await manifest.sync();
  } finally {
    await manifest.close();
  }
  return result;
}

/** A line of objects.jsonl, checked: anything else is a damaged backup. */
function entryOf(line: string, at: number): ObjectEntry {
  let entry: Partial<ObjectEntry>;
  try {
    entry = JSON.parse(line) as Partial<ObjectEntry>;
  } catch {
    entry = {};
  }
  if (typeof entry.key !== 'string' || !Number.isSafeInteger(entry.bytes) || entry.bytes! < 0 || !/^[0-9a-f]{64}$/.test(entry.sha256 ?? '')) {
    throw new BackupRefused(`Line ${at} of the backup's objects.jsonl is damaged. Nothing was restored.`);
  }
  return { key: entry.key, bytes: entry.bytes!, sha256: entry.sha256! };
}

/** Every entry of objects.jsonl, a batch at a time. */
async function* batchesOf(manifestFile: string): AsyncGenerator<ObjectEntry[]> {
  const lines = createInterface({ input: createReadStream(manifestFile), crlfDelay: Infinity });
  let batch: ObjectEntry[] = [];
  let at = 0;
  for await (const line of lines) {
    at += 1;
    if (line.trim() === '') continue;
    batch.push(entryOf(line, at));
    if (batch.length >= LINES_PER_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Copies every object objects.jsonl lists from the backup's store into `to`, each checked against its line. */
export async function copyObjectsIn(manifestFile: string, from: BlobStore, to: BlobStore): Promise<{ objects: number; bytes: number }> {
  let objects = 0;
  let bytes = 0;
  for await (const batch of batchesOf(manifestFile)) {
    await eachLimited(batch, AT_ONCE, async (entry) => {
      const body = await read(from, entry.key);
      if (!body) throw new BackupRefused(`The backup lacks the object ${entry.key} its objects.jsonl lists.`);
      let stored: PutResult;
      try {
        stored = await to.put(entry.key, body, { maxBytes: entry.bytes });
      } catch (err) {
        if (err instanceof BlobTooLargeError) throw new BackupRefused(`The backup's copy of ${entry.key} is larger than objects.jsonl records: it is damaged.`);
        throw err;
      }
      if (stored.bytes !== entry.bytes || stored.sha256 !== entry.sha256) {
        throw new BackupRefused(`The backup's copy of ${entry.key} is not the object objects.jsonl records (size or SHA-256 differ): it is damaged.`);
      }
      objects += 1;
      bytes += stored.bytes;
    });
  }
  return { objects, bytes };
}

/** Deletes from `store` every object objects.jsonl lists: what a restore cut short had written. */
export async function removeObjects(manifestFile: string, store: BlobStore): Promise<void> {
  for await (const batch of batchesOf(manifestFile)) await eachLimited(batch, AT_ONCE, (entry) => store.delete(entry.key));
}
