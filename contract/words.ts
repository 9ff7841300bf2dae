/**
 * Words the server and the page share: how a sentence's `{name}` placeholders are filled, and what a
 * push shows on the phone in each language, which the server words (server/push/notice.ts) and the
 * page's catalogues (src/i18n) never carry.
 */
import type { Lang } from './languages.js';

/** One pass, so a name such as '{runner}' typed by a person is shown as typed, never filled in. */
export function fill(sentence: string, values: Record<string, string | number> = {}): string {
  return sentence.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/**
 * What a push shows on the phone, in the sender's language: the server words each push
 * with this block only (server/push/notice.ts). One sentence per kind of marker,
 * for the words around it ("at the finish", not "at Finish").
 */
const enNotices = {
  'notice.heard.mi': '{runner} heard your note at Mile {n}',
  'notice.heard.km': '{runner} heard your note at {n} km',
  'notice.heard.finish': '{runner} heard your note at the finish',
  'notice.soon.mi': '{runner} is about {minutes} minutes from Mile {n}',
  'notice.soon.km': '{runner} is about {minutes} minutes from {n} km',
  'notice.soon.finish': '{runner} is about {minutes} minutes from the finish',
} as const;

/** What every language gives for the notices a push shows. */
export type Notices = { readonly [K in keyof typeof enNotices]: string };

/** The notices in every language the site speaks. */
export const NOTICES: Record<Lang, Notices> = {
  en: enNotices,
  /** Was eine Push-Nachricht auf dem Handy zeigt (server/push/notice.ts liest nur diesen Block). */
  de: {
    'notice.heard.mi': '{runner} hat deine Nachricht bei Meile {n} gehört',
    'notice.heard.km': '{runner} hat deine Nachricht bei Kilometer {n} gehört',
    'notice.heard.finish': '{runner} hat deine Nachricht im Ziel gehört',
    'notice.soon.mi': '{runner} ist etwa {minutes} Minuten von Meile {n} entfernt',
    'notice.soon.km': '{runner} ist etwa {minutes} Minuten von Kilometer {n} entfernt',
    'notice.soon.finish': '{runner} ist etwa {minutes} Minuten vom Ziel entfernt',
  },
  /** Lo que muestra una notificación en el teléfono (server/push/notice.ts solo lee este bloque). */
  es: {
    'notice.heard.mi': '{runner} escuchó tu mensaje en la milla {n}',
    'notice.heard.km': '{runner} escuchó tu mensaje en el kilómetro {n}',
    'notice.heard.finish': '{runner} escuchó tu mensaje en la meta',
    'notice.soon.mi': '{runner} está a unos {minutes} minutos de la milla {n}',
    'notice.soon.km': '{runner} está a unos {minutes} minutos del kilómetro {n}',
    'notice.soon.finish': '{runner} está a unos {minutes} minutos de la meta',
  },
  /** Ce qu'une notification affiche sur le téléphone (server/push/notice.ts ne lit que ce bloc). */
  fr: {
    'notice.heard.mi': '{runner} a entendu votre message au mille {n}',
    'notice.heard.km': '{runner} a entendu votre message au kilomètre {n}',
    'notice.heard.finish': "{runner} a entendu votre message à l'arrivée",
    'notice.soon.mi': '{runner} est à environ {minutes} minutes du mille {n}',
    'notice.soon.km': '{runner} est à environ {minutes} minutes du kilomètre {n}',
    'notice.soon.finish': "{runner} est à environ {minutes} minutes de l'arrivée",
  },
};
