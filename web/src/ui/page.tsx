import { useEffect, type ReactNode } from 'react';
import { Link } from '../router';

/** A page's title (the one h1, also the document title), its way back, and its actions. */
export function PageHeader({
  title,
  back,
  actions,
  description,
}: {
  title: ReactNode;
  back?: { to: string; label: string };
  actions?: ReactNode;
  description?: ReactNode;
}) {
  useEffect(() => {
    if (typeof title === 'string') document.title = `${title} · Mailroom`;
  }, [title]);
  return (
    <header className="page-header">
      {back ? (
        <Link className="back-link" to={back.to}>
          ← {back.label}
        </Link>
      ) : null}
      <div className="page-header-row">
        <h1>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {description ? <p className="page-description">{description}</p> : null}
    </header>
  );
}

export function Card({
  title,
  children,
  actions,
  id,
}: {
  title?: ReactNode;
  children: ReactNode;
  actions?: ReactNode;
  id?: string;
}) {
  return (
    <section className="card" aria-labelledby={title && id ? `${id}-title` : undefined}>
      {title || actions ? (
        <div className="card-header">
          {title ? <h2 id={id ? `${id}-title` : undefined}>{title}</h2> : <span />}
          {actions ? <div className="card-actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

/** Label/value pairs (an email's header, a key's details). */
export function DescriptionList({ items }: { items: [ReactNode, ReactNode][] }) {
  return (
    <dl className="description-list">
      {items.map(([term, value], index) => (
        <div key={index}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
