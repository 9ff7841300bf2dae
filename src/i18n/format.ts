/**
 * Sentences from a catalogue: placeholders filled, plurals, race dates, clock times and marker
 * names, all written by hand (the first Intl date or time on a page costs 45-55 ms of main
 * thread: contract/dates.ts). Pure functions of a catalogue and a language; index.ts applies
 * them to the language in use.
 */
import { MAX_FROM_LENGTH, MAX_NOTE_BYTES } from '../../contract/limits.js';
import { isoDateParts } from '../../contract/dates.js';
import type { Catalogue, English, Key } from './en.js';
import type { Lang } from '../../contract/languages.js';
import { markerPlace } from '../../contract/markers.js';
import { fill } from '../../contract/words.js';

type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
type Values<K extends Key> = Record<Placeholders<English[K]>, string | number>;
/** A key's placeholders, from the English sentence: t('notes.title', { runner }) must name each one. */
export type Args<K extends Key> = [Placeholders<English[K]>] extends [never] ? [] : [values: Values<K>];

/** The sentences with both plural forms, by the part before `.one` / `.other`. */
export type PluralKey = { [K in Key]: K extends `${infer Base}.one` ? Base : never }[Key];
export type PluralArgs<B extends PluralKey> = [Exclude<Placeholders<English[`${B}.other`]>, 'count'>] extends [never]
  ? []
  : [values: Omit<Values<`${B}.other`>, 'count'>];

export type Translate = <K extends Key>(key: K, ...args: Args<K>) => string;

type Clock = (hours: number, minutes: string) => string;
const clock12: Clock = (h, m) => `${h % 12 || 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
const clock24: Clock = (h, m) => `${h}:${m}`;

/** The grammar a catalogue cannot hold: which counts take the singular form, and how a clock reads. */
export const LANGUAGE_RULES: Record<Lang, { pluralOne: (n: number) => boolean; clock: Clock }> = {
  en: { pluralOne: (n) => n === 1, clock: clock12 },
  de: { pluralOne: (n) => n === 1, clock: clock24 },
  es: { pluralOne: (n) => n === 1, clock: clock24 },
  // French says '0 note' and '1 note', then '2 notes'.
  fr: { pluralOne: (n) => n === 0 || n === 1, clock: clock24 },
};

/** Every `{name}` in a sentence, in order: what the catalogue test compares between languages. */
export const placeholdersOf = (sentence: string): string[] => [...sentence.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** The translator of one catalogue. */
export function translator(catalogue: Catalogue): Translate {
  return <K extends Key>(key: K, ...args: Args<K>) => fill(catalogue[key], args[0] as Record<string, string | number> | undefined);
}

/** '1 note waiting' or '3 notes waiting', as the language counts. */
export function plural<B extends PluralKey>(catalogue: Catalogue, lang: Lang, base: B, count: number, ...args: PluralArgs<B>): string {
  const form = LANGUAGE_RULES[lang].pluralOne(count) ? 'one' : 'other';
  return fill(catalogue[`${base}.${form}`], { ...(args[0] as Record<string, string | number> | undefined), count });
}

/** 'Oct 12, 2025', '12. Oktober 2025', '12 de octubre de 2025', '1er octobre 2025', from '2025-10-12', whatever the time zone. */
export function raceDate(catalogue: Catalogue, isoDate: string): string {
  const { year, month, day } = isoDateParts(isoDate);
  const monthName = catalogue[`month.${month}` as Key] ?? String(month);
  return fill(catalogue['date.race'], { month: monthName, day: day === 1 ? catalogue['date.firstDay'] : day, year });
}

/** '3:05 PM' or '15:05': the time of day on this phone's clock. */
export function clockTime(lang: Lang, ms: number): string {
  const date = new Date(ms);
  return LANGUAGE_RULES[lang].clock(date.getHours(), String(date.getMinutes()).padStart(2, '0'));
}

/**
 * 'Meile 20' for 'mi-20', '20 km' for 'km-20', 'Ziel' for 'finish'. The ids are contract/markers.ts's;
 * an id no race has is undefined (the caller shows the server's label, or the id).
 */
export function markerName(catalogue: Catalogue, id: string): string | undefined {
  const place = markerPlace(id);
  if (place?.unit === 'finish') return catalogue['marker.finish'];
  if (!place) return undefined;
  return fill(catalogue[place.unit === 'mi' ? 'marker.mile' : 'marker.km'], { n: place.n });
}

/** What a refusal's sentence may need beside the code: who the runner is. */
export interface RefusalContext {
  runner: string;
}

/**
 * A server refusal in the catalogue's language, from the answer's `error` code; for a code the
 * page does not know, the server's own (English) sentence; undefined when there is neither.
 */
export function refusal(catalogue: Catalogue, code: string | undefined, serverSentence: string | undefined, context: RefusalContext): string | undefined {
  const sentence = code === undefined ? undefined : (catalogue as Partial<Record<string, string>>)[`refusal.${code}`];
  if (sentence === undefined) return serverSentence;
  return fill(sentence, { runner: context.runner, maxMb: MAX_NOTE_BYTES / 1024 / 1024, maxName: MAX_FROM_LENGTH });
}
