import { useEffect, useState } from 'react';
import { useT } from '../i18n/useLanguage.js';

/** Below this a few notes could no longer be saved; warn before recording, not after. */
const LOW_STORAGE_BYTES = 10 * 1024 * 1024;

export function useStorageWarning(): string | undefined {
  const t = useT();
  const [low, setLow] = useState(false);
  useEffect(() => {
    void navigator.storage
      ?.estimate?.()
      .then(({ quota, usage }) => {
        if (quota !== undefined && usage !== undefined && quota - usage < LOW_STORAGE_BYTES) setLow(true);
      })
      .catch(() => undefined);
  }, []);
  return low ? t('storage.low') : undefined;
}
