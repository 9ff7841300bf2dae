import { useEffect, useState } from 'react';

/** Below this a few notes could no longer be saved; warn before recording, not after. */
const LOW_STORAGE_BYTES = 10 * 1024 * 1024;

export function useStorageWarning(): string | undefined {
  const [warning, setWarning] = useState<string>();
  useEffect(() => {
    void navigator.storage
      ?.estimate?.()
      .then(({ quota, usage }) => {
        if (quota !== undefined && usage !== undefined && quota - usage < LOW_STORAGE_BYTES) {
          setWarning("Your phone is almost out of storage. Free some space before recording so your note can be kept until it's sent.");
        }
      })
      .catch(() => undefined);
  }, []);
  return warning;
}
