/** Shown while the /r/:token screen's chunk downloads (SPEC §2: a spinner and 'Loading...'). */
export function LoadingScreen() {
  return (
    <div className="status-screen" role="status">
      <span className="spinner" aria-hidden="true" />
      <p className="status-screen__text">Loading...</p>
    </div>
  );
}
