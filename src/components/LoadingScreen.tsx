/**
 * Shown while an on-demand screen loads (the client's design: a spinner and 'Loading...'). The lead says what
 * is coming; it is in the prerendered shell, so a person on one bar reads it while the JavaScript
 * downloads, and the screen's own loading state shows the same one until the link's data is in.
 */
export function LoadingScreen({ lead }: { lead?: string }) {
  return (
    <div className="status-screen">
      <span className="spinner" aria-hidden="true" />
      <p className="status-screen__text" role="status">
        Loading...
      </p>
      {lead ? <p className="status-screen__lead">{lead}</p> : null}
    </div>
  );
}
