import { describe, expect, it } from 'vitest';
import { en } from '../../../src/i18n/en.js';
import { enHome } from '../../../src/i18n/enHome.js';
import { enKeepsake } from '../../../src/i18n/enKeepsake.js';
import { enPush } from '../../../src/i18n/enPush.js';

// English comes in parts: the recorder's, and the words of the later chunk, the home
// screen and the keepsake, each loaded with its chunk. A key of a part read anywhere else would be missing
// from an English page that has not loaded that chunk.
// Every source under src/ but the catalogues, as text, by its path under src/.
const SOURCES = Object.entries(import.meta.glob<string>(['/src/**/*.{ts,tsx}', '!/src/i18n/**'], { query: '?raw', import: 'default', eager: true })).map(
  ([file, text]) => ({ file: file.slice('/src/'.length), text }),
);
/** Each part, the module that puts it into English, and the only files that may read its keys (its chunk's). */
const PARTS = [
  {
    name: 'enPush',
    words: enPush,
    loader: 'recorder/laterWords',
    readers: ['recorder/InstallOffer.tsx', 'recorder/push/PushControls.tsx', 'recorder/push/pushWords.ts', 'recorder/push/usePush.ts'],
  },
  { name: 'enHome', words: enHome, loader: 'homeScreen/words', readers: ['homeScreen/index.tsx', 'homeScreenApp.tsx'] },
  { name: 'enKeepsake', words: enKeepsake, loader: 'keepsake/words', readers: ['keepsake/index.tsx', 'keepsake/keepsakeApp.tsx'] },
];

/** The modules a source imports for their effect alone (`import './words.js'`), as paths under src/ without extension. */
function effectImports(file: string, text: string): string[] {
  const dir = file.split('/').slice(0, -1);
  return [...text.matchAll(/^import '(\.{1,2}\/[^']+)';$/gm)].map((m) => {
    const parts = [...dir];
    for (const step of m[1]!.replace(/\.(js|ts|tsx)$/, '').split('/')) {
      if (step === '..') parts.pop();
      else if (step !== '.') parts.push(step);
    }
    return parts.join('/');
  });
}

/** Files under src/ (the catalogues aside) that name one of `keys` (or a plural's base) as a string. */
function readersOf(keys: string[]): string[] {
  const names = keys.flatMap((key) => [key, key.replace(/\.(one|other)$/, '')]).flatMap((key) => [`'${key}'`, `"${key}"`]);
  return SOURCES.filter(({ text }) => names.some((name) => text.includes(name))).map(({ file }) => file);
}

describe("English's parts", () => {
  it('should share no key between the parts', () => {
    const keys = [...Object.keys(en), ...Object.keys(enPush), ...Object.keys(enHome), ...Object.keys(enKeepsake)];
    expect(keys.length).toBe(new Set(keys).size);
  });

  it.each(PARTS)("should have $name's keys read only in the chunk that loads it", ({ words, readers }) => {
    const found = readersOf(Object.keys(words));
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((file) => !readers.includes(file))).toEqual([]);
  });

  it.each(PARTS)("should have each file reading $name's keys import what puts them in, before it runs", ({ words, loader }) => {
    const readers = SOURCES.filter(({ file }) => readersOf(Object.keys(words)).includes(file));
    expect(readers.filter(({ file, text }) => !effectImports(file, text).includes(loader)).map(({ file }) => file)).toEqual([]);
  });
});
