import { describe, expect, it } from 'vitest';
import { en } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enPush } from '../../../src/i18n/enPush.js';

// English comes in three parts (issue 43): the recorder's, and the words of the later chunk and of
// the home screen, each loaded with its chunk. A key of a part read anywhere else would be missing
// from an English page that has not loaded that chunk.
// Every source under src/ but the catalogues, as text, by its path under src/.
const SOURCES = Object.entries(import.meta.glob<string>(['/src/**/*.{ts,tsx}', '!/src/i18n/**'], { query: '?raw', import: 'default', eager: true })).map(
  ([file, text]) => ({ file: file.slice('/src/'.length), text }),
);
const PARTS = [
  { name: 'enPush', words: enPush, readers: ['recorder/InstallOffer.tsx', 'recorder/push/PushControls.tsx', 'recorder/push/pushWords.ts', 'recorder/push/usePush.ts', 'recorder/laterControls.tsx'] },
  { name: 'enHome', words: enHome, readers: ['homeScreen/index.tsx', 'homeScreenApp.tsx'] },
];

/** Files under src/ (the catalogues aside) that name one of `keys` (or a plural's base) as a string. */
function readersOf(keys: string[]): string[] {
  const names = keys.flatMap((key) => [`'${key}'`, `'${key.replace(/\.(one|other)$/, '')}'`]);
  return SOURCES.filter(({ text }) => names.some((name) => text.includes(name))).map(({ file }) => file);
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
