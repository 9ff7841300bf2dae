/**
 * One store owns each table's writes: a row is INSERTed, UPDATEd or DELETEd in the file that says it
 * owns that table, and other stores call it (inside their own transaction where the write must go
 * with theirs). Read from the server's sources as text; the migrations that create the tables are
 * theirs. A cascade (ON DELETE CASCADE) is the schema's, not a store's, and is not a write here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Table -> the one file of server/ that writes it. */
const OWNERS: Record<string, string> = {
  push_deliveries: 'server/db/push-queue-store.ts',
};

const serverSources = () =>
  readdirSync(path.join(root, 'server'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.ts$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((file) => !file.startsWith('server/db/migrations/'));

describe('the writes of each owned table', () => {
  it.each(Object.entries(OWNERS))('should all be in the store that owns %s', (table, owner) => {
    const write = new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+${table}\\b`, 'i');
    const writers = serverSources().filter((file) => write.test(readFileSync(path.join(root, file), 'utf8')));
    expect(writers).toEqual([owner]);
  });
});
