import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { currentLanguage, subscribe, t, type Key, type Lang, type Translate } from './index.js';

/** The language in use; the component re-renders when the person picks another. */
export function useLanguage(): Lang {
  return useSyncExternalStore(subscribe, currentLanguage, currentLanguage);
}

/** How a component gets its words: `const t = useT(); t('record.send')`. Re-renders on a change of language. */
export function useT(): Translate {
  useLanguage();
  return t;
}

/** Keeps the tab's title in the language in use while the screen is shown. */
export function Titled({ title, children }: { title: Extract<Key, `title.${string}`>; children: ReactNode }) {
  const text = useT()(title);
  useEffect(() => {
    document.title = text;
  }, [text]);
  return children;
}
