import { tn } from '../i18n/index.js';
import { useT } from '../i18n/useLanguage.js';

interface Props {
  online: boolean;
  waiting: number;
  backgroundSync: boolean;
}

/** Online or not, how many notes wait, and honestly when they will go. */
export function StatusLine({ online, waiting, backgroundSync }: Props) {
  const t = useT();
  // Where the browser has no Background Sync (Safari, Firefox) only an open page sends.
  const when = backgroundSync ? t('status.backgroundSync') : t('status.pageOnly');
  // Online but waiting (a server out of reach, a venue link that drops) needs the same honesty
  // where nothing sends in the background; with Background Sync the worker keeps trying.
  const say = waiting > 0 && (!online || !backgroundSync);
  return (
    <p className={`rec-status ${online ? 'is-online' : 'is-offline'}`} role="status" data-testid="status-line">
      <span className="rec-status-dot" aria-hidden="true" />
      <span>
        {online ? (waiting ? tn('status.onlineWaiting', waiting) : t('status.online')) : tn('status.offline', waiting)}
        {say ? ` ${when}` : ''}
      </span>
    </p>
  );
}
