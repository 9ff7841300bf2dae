/**
 * Owns the language in use on this page (one at a time: the recorder or the keepsake) and gives
 * its words: t(key, values) and the helpers below for plurals, dates, clock times, markers and
 * server refusals. Components read them through useT() (useLanguage.ts), which re-renders them
 * when the person picks another language; code outside React calls these directly.
 */
import { en, type Catalogue } from './en.js';
import * as format from './format.js';
import type { Lang } from '../../contract/languages.js';
import { loadCatalogue, phoneLanguage, storeLanguage } from './languages.js';

export type { Key } from './en.js';
export type { Args, PluralKey, RefusalContext, Translate } from './format.js';
export { LANGUAGES, type Lang } from '../../contract/languages.js';
export { LANGUAGE_NAMES } from './languages.js';

/** After the screen's own files are in, the longest it waits for its language before showing English. */
const CATALOGUE_WAIT_MS = 10_000;

/**
 * English as far as this page has it: the recorder's and keepsake's words (en.ts), and the parts a
 * later chunk or the home screen adds when it loads (addEnglish). Only code in those chunks reads
 * their keys (tests/src/i18n/parts.test.ts), so a key is always here when it is asked for.
 */
let english = en as Catalogue;
let lang: Lang = 'en';
let catalogue: Catalogue = english;
let words: format.Translate = format.translator(english);
const listeners = new Set<() => void>();

function use(next: Lang, nextCatalogue: Catalogue): void {
  lang = next;
  catalogue = nextCatalogue;
  words = format.translator(nextCatalogue);
  if (typeof document !== 'undefined') document.documentElement.lang = next;
  for (const listener of listeners) listener();
}

/** The language in use. */
export const currentLanguage = (): Lang => lang;

/** Called when the language changes; returns the unsubscribe (useSyncExternalStore's shape). */
export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** A sentence in the language in use, its `{placeholders}` filled from `values`. */
export const t: format.Translate = (key, ...args) => words(key, ...args);

/** The singular or plural form of a sentence for `count`, which fills its `{count}`. */
export const tn = <B extends format.PluralKey>(base: B, count: number, ...args: format.PluralArgs<B>): string =>
  format.plural(catalogue, lang, base, count, ...args);

/** A race's date ('2025-10-12') as the language writes it. */
export const raceDate = (isoDate: string): string => format.raceDate(catalogue, isoDate);

/** The time of day of an epoch-ms instant, as the language's clock reads. */
export const clockTime = (ms: number): string => format.clockTime(lang, ms);

/** A marker's name from its id ('mi-20' → 'Meile 20'); `fallback` (the server's label) or the id when unknown. */
export const markerName = (id: string, fallback?: string): string => format.markerName(catalogue, id) ?? fallback ?? id;

/** A server refusal in the language in use, by its code; the server's sentence for a code the page does not know. */
export const refusal = (code: string | undefined, serverSentence: string | undefined, context: format.RefusalContext): string | undefined =>
  format.refusal(catalogue, code, serverSentence, context);

/** A chunk's own English words (./enPush.ts, ./enHome.ts), added when it loads; shown at once if English is in use. */
export function addEnglish(part: Partial<Catalogue>): void {
  english = { ...english, ...part };
  if (lang === 'en') use('en', english);
}

async function catalogueOf(next: Lang): Promise<Catalogue> {
  return next === 'en' ? english : loadCatalogue(next);
}

/**
 * Before a screen's first render: this phone's language (or `wanted`: the language the server drew
 * the page in), once its catalogue is in (the shell has already asked for it). Never fails: a
 * catalogue that cannot load leaves the screen in English, and one slower than CATALOGUE_WAIT_MS is
 * applied when it arrives.
 */
export async function startLanguage(waitMs = CATALOGUE_WAIT_MS, wanted: Lang = phoneLanguage()): Promise<void> {
  if (wanted === 'en') return use('en', english);
  const arriving = catalogueOf(wanted).then(
    (found) => {
      // The person may have picked another language meanwhile: theirs stands.
      if (lang === 'en' || lang === wanted) use(wanted, found);
      return true;
    },
    () => false,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
  const arrived = await Promise.race([arriving, late]);
  clearTimeout(timer);
  if (!arrived) use('en', english);
}

/** A language whose catalogue is in hand, in use at once: the server drawing a screen for a request. */
export function speak(next: Lang, found: Catalogue): void {
  use(next, next === 'en' ? english : found);
}

/** The menu's choice: kept on this phone, applied once its catalogue is in. Rejects if it cannot be loaded. */
export async function chooseLanguage(next: Lang): Promise<void> {
  const found = await catalogueOf(next);
  storeLanguage(next);
  use(next, found);
}
