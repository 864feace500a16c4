import { Component, type ReactNode } from 'react';

/** A page that throws while rendering shows what happened, not a blank screen; the rest still works. */
export class PageBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    const chunk = /dynamically imported module|Failed to fetch/i.test(this.state.error.message);
    return (
      <div className="alert alert-error" role="alert">
        <strong>This page could not be shown.</strong>{' '}
        {chunk
          ? 'The dashboard was updated on the server: reload the page to get the new version.'
          : this.state.error.message}{' '}
        <button type="button" className="btn btn-small" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
