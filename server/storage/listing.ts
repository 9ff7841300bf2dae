/** Owns the walk over every object MileNotes keeps in a blob store: each folder of ./keys.ts in turn, page by page, never the whole listing in memory. */
import type { BlobStore, ListedBlob } from './blob-store.js';
import { KEY_PREFIXES } from './keys.js';

/** Every object under the key folders of ./keys.ts, as the store lists them. */
export async function* everyBlob(store: BlobStore): AsyncGenerator<ListedBlob> {
  for (const prefix of KEY_PREFIXES) yield* store.list(prefix);
}

/** The first object anywhere in the store (MileNotes's or not), or undefined when it is empty: a restore writes only into an empty one. */
export async function anyBlob(store: BlobStore): Promise<ListedBlob | undefined> {
  for await (const blob of store.list('')) return blob;
  return undefined;
}
