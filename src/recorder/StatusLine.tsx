interface Props {
  online: boolean;
  waiting: number;
  backgroundSync: boolean;
}

const plural = (n: number) => (n === 1 ? '1 note' : `${n} notes`);

/** Where the browser has no Background Sync (Safari, Firefox) only an open page sends. */
export const PAGE_ONLY_SENDING = 'This browser sends them only while this page is open: keep it open, or open it again when you have signal.';

/** Online or not, how many notes wait, and honestly when they will go. */
export function StatusLine({ online, waiting, backgroundSync }: Props) {
  const when = backgroundSync ? "Your notes will send automatically when you're back online, even if you close this page." : PAGE_ONLY_SENDING;
  // Online but waiting (a server out of reach, a venue link that drops) needs the same honesty
  // where nothing sends in the background; with Background Sync the worker keeps trying.
  const say = waiting > 0 && (!online || !backgroundSync);
  return (
    <p className={`rec-status ${online ? 'is-online' : 'is-offline'}`} role="status" data-testid="status-line">
      <span className="rec-status-dot" aria-hidden="true" />
      <span>
        {online ? (waiting ? `Online. ${plural(waiting)} waiting to send.` : 'Online.') : `You're offline. ${plural(waiting)} waiting on this phone.`}
        {say ? ` ${when}` : ''}
      </span>
    </p>
  );
}
