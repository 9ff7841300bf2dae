import { useState } from 'react';
import { chooseLanguage, LANGUAGE_NAMES, LANGUAGES, type Lang } from './index.js';
import { useLanguage, useT } from './useLanguage.js';

/**
 * The language menu: each language named in its own words, so a person finds theirs whatever the
 * page speaks now. The screen gives the class (its stylesheet places it).
 */
export function LanguageMenu({ className }: { className: string }) {
  const t = useT();
  const lang = useLanguage();
  const [busy, setBusy] = useState(false);
  const choose = (next: Lang) => {
    setBusy(true);
    // Offline with a catalogue never fetched (the worker keeps them all): the page stays as it is.
    chooseLanguage(next)
      .catch(() => undefined)
      .finally(() => setBusy(false));
  };
  return (
    <select
      name="language"
      className={className}
      aria-label={t('language.label')}
      value={lang}
      disabled={busy}
      onChange={(e) => choose(e.target.value as Lang)}
      data-testid="language-menu"
    >
      {LANGUAGES.map((code) => (
        <option key={code} value={code} lang={code}>
          {LANGUAGE_NAMES[code]}
        </option>
      ))}
    </select>
  );
}
