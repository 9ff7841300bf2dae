/**
 * The languages the site speaks, one list: the recorder's, the keepsake's and the home screen's
 * words (src/i18n), and the notices a push shows (./words.ts), which a subscription names (./pushApi.ts).
 */
export const LANGUAGES = ['en', 'de', 'es', 'fr'] as const;
export type Lang = (typeof LANGUAGES)[number];

/** Whether a value (a stored choice, a subscription's language) is one of them. */
export const isLang = (value: unknown): value is Lang => (LANGUAGES as readonly unknown[]).includes(value);
