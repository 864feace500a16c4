import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';
import { Link } from '../../router';
import { ErrorMessage } from '../../ui/error-message';
import { Card, Loading } from '../../ui/page';

/** The segments the contact belongs to, by their filter or added by hand (evaluated now). */
export function ContactSegmentsCard({ contactId }: { contactId: string }) {
  const segments = useQuery({
    queryKey: ['/contacts', contactId, 'segments'],
    queryFn: ({ signal }) =>
      api.get<List<{ id: string; name: string }>>(`/contacts/${contactId}/segments`, { query: { limit: 100 }, signal }),
  });
  const rows = segments.data?.data ?? [];
  return (
    <Card title="Segments" id="contact-segments">
      <ErrorMessage error={segments.error} />
      {segments.isLoading ? (
        <Loading />
      ) : rows.length === 0 ? (
        <p className="muted">In no segment.</p>
      ) : (
        <ul className="tag-list" aria-label="Segments of the contact">
          {rows.map((segment) => (
            <li key={segment.id}>
              <Link to={`/segments/${segment.id}`}>{segment.name}</Link>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
