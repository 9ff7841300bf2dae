/** What a person sees when a piece of the screen could not be loaded: a plain cause and one way out. */
export function ChunkErrorScreen({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="status-screen" role="alert">
      <h1 className="status-screen__title">We couldn't load this page.</h1>
      <p className="status-screen__text">Check your connection and try again. Anything you already recorded stays saved on this device.</p>
      <button type="button" className="button" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}
