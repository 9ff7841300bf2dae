import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enPush } from '../../../src/i18n/enPush.js';

// English comes in three parts (issue 43): the recorder's, and the words of the later chunk and of
// the home screen, each loaded with its chunk. A key of a part read anywhere else would be missing
// from an English page that has not loaded that chunk.
const src = path.resolve(import.meta.dirname, '../../../src');
const PARTS = [
  { name: 'enPush', words: enPush, readers: ['recorder/InstallOffer.tsx', 'recorder/push/PushControls.tsx', 'recorder/push/pushWords.ts', 'recorder/push/usePush.ts', 'recorder/laterControls.tsx'] },
  { name: 'enHome', words: enHome, readers: ['homeScreen/index.tsx', 'homeScreenApp.tsx'] },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Files under src/ (the catalogues aside) that name one of `keys` as a string. */
function readersOf(keys: string[]): string[] {
  return sources(src)
    .filter((file) => keys.some((key) => readFileSync(file, 'utf8').includes(`'${key}'`) || readFileSync(file, 'utf8').includes(`'${key.replace(/\.(one|other)$/, '')}'`)))
    .map((file) => path.relative(src, file).split(path.sep).join('/'));
}

describe("English's parts", () => {
  it('should share no key between the parts', () => {
    const keys = [...Object.keys(en), ...Object.keys(enPush), ...Object.keys(enHome)];
    expect(keys.length).toBe(new Set(keys).size);
  });

  it.each(PARTS)("should have $name's keys read only in the chunk that loads it", ({ words, readers }) => {
    const found = readersOf(Object.keys(words));
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((file) => !readers.includes(file))).toEqual([]);
  });
});
