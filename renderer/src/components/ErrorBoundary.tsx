import { Component, type ReactNode } from 'react';

export interface ErrorBoundaryProps {
  /** Rendered instead of `children` once they threw while rendering. */
  fallback: (error: Error) => ReactNode;
  children: ReactNode;
}

/** Keeps a failing part (a form for an odd schema, an editor that cannot load) from taking the page down. */
export class ErrorBoundary extends Component<ErrorBoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}
