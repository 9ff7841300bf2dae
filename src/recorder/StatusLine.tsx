interface Props {
  online: boolean;
  waiting: number;
  backgroundSync: boolean;
}

const plural = (n: number) => (n === 1 ? '1 note' : `${n} notes`);

/** Online or not, how many notes wait, and honestly when they will go. */
export function StatusLine({ online, waiting, backgroundSync }: Props) {
  const when = backgroundSync
    ? "Your notes will send automatically when you're back online, even if you close this page."
    : 'They will send the next time you open this page with a connection, so open it again when you have signal.';
  return (
    <p className={`rec-status ${online ? 'is-online' : 'is-offline'}`} role="status" data-testid="status-line">
      <span className="rec-status-dot" aria-hidden="true" />
      <span>
        {online ? (waiting ? `Online. ${plural(waiting)} waiting to send.` : 'Online.') : `You're offline. ${plural(waiting)} waiting on this phone.`}
        {waiting > 0 && !online ? ` ${when}` : ''}
      </span>
    </p>
  );
}
