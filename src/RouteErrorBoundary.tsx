import { Component, type ReactNode } from 'react';
import { ChunkErrorScreen } from './components/ChunkErrorScreen';

interface State {
  failed: boolean;
}

/**
 * The one visible error path for a crash inside the recorder screen: a plain message and
 * 'Try again', which reloads the page. Notes already saved stay in IndexedDB.
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
