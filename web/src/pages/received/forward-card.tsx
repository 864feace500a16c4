import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError, type List } from '../../api/client';
import { Link } from '../../router';
import { Button } from '../../ui/button';
import { ErrorMessage, fieldError } from '../../ui/error-message';
import { SelectField, TextArea, TextField } from '../../ui/field';
import { Card } from '../../ui/page';

type Domain = { id: string; name: string; status: string };

/** The raw message as base64, read by the browser (no string juggling of large binaries). */
function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/**
 * Forward a received email, as the `resend` SDK's `emails.receiving.forward` does (its wrapped
 * mode): the original, byte for byte, attached as `forwarded_message.eml` (message/rfc822) to a
 * new email sent through POST /emails from one of the team's verified domains, with a note. The
 * raw message comes from the signed link in GET /emails/receiving/{id}; nothing else is needed.
 */
export function ForwardCard({ subject, rawUrl }: { subject: string; rawUrl: string | null }) {
  const domains = useQuery({
    queryKey: ['/domains', 'forward-senders'],
    queryFn: ({ signal }) => api.get<List<Domain>>('/domains', { query: { limit: 100 }, signal }),
  });
  const verified = (domains.data?.data ?? []).filter((domain) => domain.status === 'verified');
  const [local, setLocal] = useState('forward');
  const [domain, setDomain] = useState('');
  const [to, setTo] = useState('');
  const [note, setNote] = useState('');
  const from = `${local}@${domain || verified[0]?.name || ''}`;
  const forward = useMutation({
    mutationFn: async () => {
      if (!rawUrl) throw new ApiError(422, 'validation_error', 'The raw message of this email is not stored.');
      const raw = await fetch(rawUrl, { credentials: 'same-origin' });
      if (!raw.ok)
        throw new ApiError(
          raw.status,
          'application_error',
          'The original message could not be read. Reload the page and try again.',
        );
      const content = await base64Of(await raw.blob());
      return api.post<{ id: string }>('/emails', {
        from,
        to: to
          .split(',')
          .map((address) => address.trim())
          .filter(Boolean),
        subject: subject.startsWith('Fwd:') ? subject : `Fwd: ${subject}`,
        text: note || 'The forwarded message is attached.',
        attachments: [{ filename: 'forwarded_message.eml', content, content_type: 'message/rfc822' }],
      });
    },
  });
  return (
    <Card title="Forward" id="forward">
      {verified.length === 0 && !domains.isLoading ? (
        <p className="muted">
          Forwarding sends a new email from one of your verified domains. <Link to="/domains">Verify a domain</Link>{' '}
          first.
        </p>
      ) : (
        <form
          aria-label="Forward this email"
          onSubmit={(event) => {
            event.preventDefault();
            forward.mutate();
          }}
        >
          <TextField
            label="To"
            type="text"
            required
            value={to}
            onChange={(event) => setTo(event.target.value)}
            hint="One or more addresses, separated by commas."
            error={fieldError(forward.error, 'to')}
          />
          <div className="row">
            <TextField
              label="From: the part before @"
              value={local}
              onChange={(event) => setLocal(event.target.value)}
              required
            />
            <SelectField
              label="at domain"
              value={domain || verified[0]?.name || ''}
              onChange={(event) => setDomain(event.target.value)}
              options={verified.map((d) => ({ value: d.name, label: `@${d.name}` }))}
              error={fieldError(forward.error, 'from')}
            />
          </div>
          <TextArea label="Note (optional)" value={note} onChange={(event) => setNote(event.target.value)} rows={3} />
          <ErrorMessage error={forward.error} />
          {forward.data ? (
            <div className="alert alert-good" role="status">
              Forwarded. <Link to={`/emails/${forward.data.id}`}>Follow it in Emails</Link>
            </div>
          ) : null}
          <Button type="submit" variant="primary" busy={forward.isPending} disabled={!rawUrl}>
            Forward
          </Button>
        </form>
      )}
    </Card>
  );
}
