/**
 * Owns verify-storage: whether every note's row has its objects in the blob store (its original,
 * and its converted M4A once converted) at the size the row records, and which objects no row
 * names (orphans). The same for every deployment (SQLite or PostgreSQL, disk or S3): it asks only
 * the repository and the blob store, page by page, so 100,000 notes take no more memory than ten.
 * On a live deployment a note written or deleted meanwhile is no finding: a missing object is
 * reported only once asked again, its row still there; an upload in flight can look orphaned.
 */
import type { BlobRefStore, NoteRow, RecordedBlob } from '../db/repository.js';
import type { BlobStore, ListedBlob } from '../storage/blob-store.js';
import { everyBlob } from '../storage/listing.js';

/** Findings listed in full up to this many; past it they are counted. */
const LISTED = 1_000;
const NOTES_PER_PAGE = 500;
const KEYS_PER_BATCH = 500;
/** Existence checks at once: S3 answers each in a round trip. */
const AT_ONCE = 16;

export interface MissingObject {
  noteId: string;
  key: string;
  kind: 'original' | 'converted';
}

export interface StorageReport {
  notes: number;
  /** Objects under the store's key folders. */
  objects: number;
  /** Objects a note's row names that the store does not have. */
  missing: MissingObject[];
  missingCount: number;
  /** Objects whose size is not the one their row records. */
  wrongSize: { key: string; bytes: number; recorded: number }[];
  wrongSizeCount: number;
  /** Objects no row names: left by a crash (the orphan sweep removes them once old enough), or an upload in flight. */
  orphans: { key: string; bytes: number; modifiedAt: string }[];
  orphanCount: number;
}

/** A list that keeps its first LISTED items and counts them all. */
function listed<T>(items: T[], item: T): number {
  if (items.length < LISTED) items.push(item);
  return 1;
}

/** Whether each of `keys` is in the store, asked AT_ONCE at a time. */
async function present(blobs: BlobStore, keys: string[]): Promise<boolean[]> {
  const found: boolean[] = new Array(keys.length);
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const at = next++;
      found[at] = await blobs.exists(keys[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, keys.length) }, worker));
  return found;
}

type Needed = { noteId: string; kind: MissingObject['kind']; blob: RecordedBlob };

/** Every note's objects checked against the store; a missing one asked again with its row read again. */
async function findMissing(
  refs: Pick<BlobRefStore, 'notesAfter'>,
  notes: { find(id: string): Promise<NoteRow | undefined> },
  blobs: BlobStore,
  report: StorageReport,
) {
  let after = '';
  for (;;) {
    const page = await refs.notesAfter(after, NOTES_PER_PAGE);
    if (page.length === 0) return;
    after = page.at(-1)!.noteId;
    report.notes += page.length;
    const needed: Needed[] = page.flatMap((n) => [
      { noteId: n.noteId, kind: 'original' as const, blob: n.original },
      ...(n.converted ? [{ noteId: n.noteId, kind: 'converted' as const, blob: n.converted }] : []),
    ]);
    const found = await present(
      blobs,
      needed.map((n) => n.blob.key),
    );
    for (const [i, n] of needed.entries()) {
      if (found[i]) continue;
      // Deleted with its note since the page was read: no finding.
      const row = await notes.find(n.noteId);
      const stillNamed = row && (n.kind === 'original' ? row.originalKey : row.convertedKey) === n.blob.key;
      if (stillNamed && !(await blobs.exists(n.blob.key))) report.missingCount += listed(report.missing, { noteId: n.noteId, key: n.blob.key, kind: n.kind });
    }
  }
}

/** Every object under the key folders, asked in batches which rows name it and at what size. */
async function findUnnamed(refs: Pick<BlobRefStore, 'namedKeys'>, blobs: BlobStore, report: StorageReport) {
  const check = async (batch: ListedBlob[]) => {
    // Asked after listing: a row committed meanwhile still names its object.
    const named = await refs.namedKeys(batch.map((b) => b.key));
    for (const blob of batch) {
      if (!named.has(blob.key)) {
        report.orphanCount += listed(report.orphans, { key: blob.key, bytes: blob.bytes, modifiedAt: blob.modifiedAt.toISOString() });
        continue;
      }
      const recorded = named.get(blob.key);
      if (recorded !== null && recorded !== undefined && recorded !== blob.bytes) {
        report.wrongSizeCount += listed(report.wrongSize, { key: blob.key, bytes: blob.bytes, recorded });
      }
    }
  };
  let batch: ListedBlob[] = [];
  for await (const blob of everyBlob(blobs)) {
    report.objects += 1;
    batch.push(blob);
    if (batch.length >= KEYS_PER_BATCH) {
      await check(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await check(batch);
}

/** The report on one deployment's storage; `healthy` is false when a row lacks an object or has one of the wrong size. */
export async function verifyStorage(
  repo: { blobRefs: Pick<BlobRefStore, 'notesAfter' | 'namedKeys'>; notes: { find(id: string): Promise<NoteRow | undefined> } },
  blobs: BlobStore,
): Promise<StorageReport & { healthy: boolean }> {
  const report: StorageReport = { notes: 0, objects: 0, missing: [], missingCount: 0, wrongSize: [], wrongSizeCount: 0, orphans: [], orphanCount: 0 };
  await findMissing(repo.blobRefs, repo.notes, blobs, report);
  await findUnnamed(repo.blobRefs, blobs, report);
  return { healthy: report.missingCount === 0 && report.wrongSizeCount === 0, ...report };
}
