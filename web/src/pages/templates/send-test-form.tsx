import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, type List } from '../../api/client';
import { useSession } from '../../api/session';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { TextField } from '../../ui/field';
import { sampleValues, type Draft } from './template-draft';
import type { TemplateDetail } from './template-types';

type DomainItem = { id: string; name: string; status: string; capabilities?: { sending?: string } };

/** The team's verified domains, named in the From hint (a send from any other is refused). */
function useVerifiedDomains(): string[] {
  const domains = useQuery({
    queryKey: ['/domains', 'verified-names'],
    queryFn: () => api.get<List<DomainItem>>('/domains', { query: { limit: 100 } }),
    staleTime: 60_000,
  });
  return (domains.data?.data ?? [])
    .filter((domain) => domain.status === 'verified' && domain.capabilities?.sending !== 'disabled')
    .map((domain) => domain.name);
}

/**
 * A real send of the published version (POST /emails with `template: { id, variables }`, the
 * SDK's shape) to one address, with the sample values typed above; the email it created is one
 * link away.
 */
export function SendTestForm({
  template,
  draft,
  pending,
}: {
  template: TemplateDetail;
  draft: Draft;
  pending: boolean;
}) {
  const session = useSession();
  const verified = useVerifiedDomains();
  const [to, setTo] = useState(session.data?.user.email ?? '');
  const [from, setFrom] = useState(template.from ?? '');
  const [subject, setSubject] = useState('');
  const send = useMutation({
    mutationFn: () =>
      api.post<{ id: string }>('/emails', {
        to: [to.trim()],
        ...(from.trim() ? { from: from.trim() } : {}),
        ...(subject.trim() ? { subject: subject.trim() } : {}),
        template: { id: template.id, variables: sampleValues(draft, 'send') },
      }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate();
  };
  const notPublished =
    template.status === 'draft' ? 'Publish the template first: a send uses the published version.' : null;
  return (
    <form onSubmit={submit} aria-label="Send a test" className="stack">
      <p className="muted">
        A real send of the <strong>published</strong> version with the sample values above (a key without a sample takes
        its fallback).
        {pending ? ' Your unsaved or unpublished changes are not in it.' : ''}
      </p>
      <div className="grid-2">
        <TextField
          label="To"
          type="email"
          name="to"
          value={to}
          onChange={(event) => setTo(event.target.value)}
          required
          error={fieldError(send.error, 'to')}
        />
        <TextField
          label="From"
          name="from"
          value={from}
          placeholder={template.from ?? 'you@your-domain'}
          onChange={(event) => setFrom(event.target.value)}
          required={!template.from}
          hint={
            verified.length > 0
              ? `An address at a verified domain of this team: ${verified.join(', ')}.${template.from ? ' Empty: the template’s.' : ''}`
              : 'No verified domain yet: add and verify one under Domains to send.'
          }
          error={fieldError(send.error, 'from')}
        />
        {template.subject ? null : (
          <TextField
            label="Subject"
            name="subject"
            value={subject}
            onChange={(event) => setSubject(event.target.value)}
            hint="The template has none, so the test needs one."
            required
            error={fieldError(send.error, 'subject')}
          />
        )}
      </div>
      <ErrorMessage error={send.error} />
      <div className="form-actions">
        <Button type="submit" variant="primary" busy={send.isPending} disabledReason={notPublished}>
          Send the test
        </Button>
      </div>
      {send.data ? (
        <p className="alert alert-good" role="status">
          Accepted: email <code>{send.data.id}</code>. <Link to={`/emails/${send.data.id}`}>Open the email</Link>
        </p>
      ) : null}
    </form>
  );
}
