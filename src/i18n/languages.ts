/**
 * Owns which language the recorder and the keepsake speak (of contract/languages.ts's): the choice
 * kept on the phone, the pick from the browser's languages, and the loading of a catalogue. Kept
 * small and free of the catalogues, because the shell's script (src/main.ts) imports it to start
 * the chosen language's download beside the screen's own files instead of after them.
 */
import { isLang, type Lang } from '../../contract/languages.js';
import type { Catalogue } from './en.js';

/** Each language named in its own words, as the menu shows it. */
export const LANGUAGE_NAMES: Record<Lang, string> = { en: 'English', de: 'Deutsch', es: 'Español', fr: 'Français' };

/** Where the person's choice from the menu is kept. */
export const LANGUAGE_KEY = 'milenotes.lang';

/**
 * The stored choice if there is one; else the first of the browser's languages we speak, by its
 * primary subtag ('de-AT' is German); else English.
 */
export function pickLanguage(stored: string | null | undefined, preferred: readonly string[]): Lang {
  if (isLang(stored)) return stored;
  for (const tag of preferred) {
    const primary = tag.split(/[-_]/)[0]!.toLowerCase();
    if (isLang(primary)) return primary;
  }
  return 'en';
}

/**
 * The languages an Accept-Language header asks for, most wanted first ('de-AT,de;q=0.9,en;q=0.8' →
 * de-AT, de, en); a tag with q=0 is refused, not asked for, and so is one whose weight cannot be
 * read. Read as far as its first 32 tags.
 */
export function acceptedLanguages(header: string): string[] {
  return header
    .split(',', 32)
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      // A weight is 0 to 1 with at most three decimals (RFC 9110); one that is not leaves the tag out.
      const weight = params
        .find((p) => /^\s*q\s*=/i.test(p))
        ?.replace(/^\s*q\s*=\s*/i, '')
        .trim();
      const q = weight === undefined ? 1 : /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight) ? Number(weight) : 0;
      return { tag: tag.trim(), q, order };
    })
    .filter(({ tag, q }) => tag !== '' && tag !== '*' && q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order)
    .map(({ tag }) => tag);
}

/** localStorage can be missing or refuse (some private modes, storage turned off): then nothing is kept. */
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function storedLanguage(): string | null {
  try {
    return storage()?.getItem(LANGUAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

export function storeLanguage(lang: Lang): void {
  try {
    storage()?.setItem(LANGUAGE_KEY, lang);
  } catch {
    // Not kept: the menu still works for this visit.
  }
}

/** This phone's language for the screens: the choice kept here, else the browser's. */
export function phoneLanguage(): Lang {
  const nav = globalThis.navigator as Navigator | undefined;
  const preferred = nav?.languages?.length ? nav.languages : nav?.language ? [nav.language] : [];
  return pickLanguage(storedLanguage(), preferred);
}

type OtherLang = Exclude<Lang, 'en'>;

const LOADERS: Record<OtherLang, () => Promise<{ default: Catalogue }>> = {
  de: () => import('./de.js'),
  es: () => import('./es.js'),
  fr: () => import('./fr.js'),
};

const loading = new Map<OtherLang, Promise<Catalogue>>();

/** A language's catalogue, downloaded once per page; a failed download may be tried again later. */
export function loadCatalogue(lang: OtherLang): Promise<Catalogue> {
  let pending = loading.get(lang);
  if (!pending) {
    pending = LOADERS[lang]().then((module) => module.default);
    pending.catch(() => loading.delete(lang));
    loading.set(lang, pending);
  }
  return pending;
}

/**
 * Starts the download of this phone's language (or of `drawnIn`, the language the server drew the
 * page in), if it is not English (built in); called by the shell.
 */
export function preloadLanguage(drawnIn?: string): void {
  const lang = isLang(drawnIn) ? drawnIn : phoneLanguage();
  if (lang !== 'en') loadCatalogue(lang).catch(() => undefined);
}
