import { useEffect, type FormEvent, type ReactNode } from 'react';

/** The frame of every page a person sees before signing in: the name, a card, one form. */
export function AuthCard({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Mailroom`;
  }, [title]);
  return (
    <>
      <p className="public-brand">
        <span className="brand-mark" aria-hidden="true">
          ✉
        </span>{' '}
        Mailroom
      </p>
      <section className="card">
        <h1>{title}</h1>
        <div className="stack" style={{ marginTop: '1rem' }}>
          {children}
        </div>
      </section>
      {footer ? <div className="auth-footer">{footer}</div> : null}
    </>
  );
}

/** A form whose submit runs `onSubmit` (the browser's own validation first). */
export function AuthForm({ onSubmit, children, label }: { onSubmit: () => void; children: ReactNode; label: string }) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={submit} aria-label={label} noValidate={false}>
      {children}
    </form>
  );
}

/** Where to go after signing in: the page that sent the person here, if it is one of ours. */
export function nextPath(search: URLSearchParams): string {
  const next = search.get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/emails';
}
