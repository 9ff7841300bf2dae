/**
 * What is still English on a recorder shown in another language: every text a person can read on
 * the page (text, placeholders, labels) that is one of the English catalogue's sentences, its
 * placeholders filled with anything. Sentences a language writes as English does ('Online.',
 * '20 km') are not counted, nor a sentence of placeholders only (a date's order).
 */
import type { Page } from '@playwright/test';
import de from '../../../src/i18n/de';
import { en as enCore, type Catalogue, type Key } from '../../../src/i18n/en';
import { enHome } from '../../../src/i18n/enHome';
import { enKeepsake } from '../../../src/i18n/enKeepsake';
import { enPush } from '../../../src/i18n/enPush';
import es from '../../../src/i18n/es';
import fr from '../../../src/i18n/fr';

const OTHERS: Record<string, Catalogue> = { de, es, fr };
/** All of English: the recorder's part and those that come with other chunks. */
const en: Catalogue = { ...enCore, ...enPush, ...enHome, ...enKeepsake };

const escapeRegExp = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
/** A sentence as a pattern for a whole text: '{runner}' and its kind stand for any words. */
const pattern = (sentence: string) => new RegExp(`^${escapeRegExp(sentence).replace(/\{\w+\}/g, '.+')}$`, 's');

/** Every text of the page a person reads, trimmed: text nodes, placeholders, labels, the title. */
function readableTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest('script, style, template')) continue;
      texts.push(node.textContent ?? '');
    }
    for (const element of document.body.querySelectorAll('[placeholder], [aria-label], [title], [alt]')) {
      for (const name of ['placeholder', 'aria-label', 'title', 'alt']) texts.push(element.getAttribute(name) ?? '');
    }
    return texts.map((text) => text.trim()).filter(Boolean);
  });
}

/** The page's texts that are English sentences of the catalogue, with the key each one is. */
export async function englishLeft(page: Page, lang: 'de' | 'es' | 'fr'): Promise<string[]> {
  const other = OTHERS[lang]!;
  const english = (Object.keys(en) as Key[])
    .filter((key) => other[key] !== en[key])
    // A sentence with no word of its own ('{month} {day}, {year}') would match anything.
    .filter((key) => /\p{L}/u.test(en[key].replace(/\{\w+\}/g, '')))
    .map((key) => ({ key, match: pattern(en[key]) }));
  const left: string[] = [];
  for (const text of await readableTexts(page)) {
    const found = english.find(({ match }) => match.test(text));
    if (found) left.push(`${found.key}: ${text}`);
  }
  return left;
}
