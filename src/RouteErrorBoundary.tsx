import { Component, type ReactNode } from 'react';
import { ChunkErrorScreen } from './components/ChunkErrorScreen';

interface State {
  failed: boolean;
}

/**
 * The one visible error path for the lazily loaded screen: a failed chunk (or any crash inside
 * it) shows a plain message and 'Try again'. Trying again reloads the page, because a failed
 * dynamic import is cached by the browser and cannot be retried in place (vite #20313). The
 * reload only ever follows a person's tap, so there is no reload loop.
 */
export class RouteErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error(error);
  }

  override render() {
    if (this.state.failed) return <ChunkErrorScreen onRetry={() => window.location.reload()} />;
    return this.props.children;
  }
}
