import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { Badge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Card, DescriptionList, Loading, PageHeader } from '../../ui/page';
import { Time } from '../../ui/time';
import { useProperties } from '../properties/use-properties';
import { ConsentCard } from './consent-card';
import { ContactDetailsCard } from './contact-details-card';
import { ContactEmailsCard } from './contact-emails-card';
import { ContactEventsCard } from './contact-events-card';
import { ContactSegmentsCard } from './contact-segments-card';
import { ContactTopicsCard } from './contact-topics-card';
import { contactName, type Contact } from './contact-types';
import { DeleteContact } from './delete-contact';

/** One contact: its fields and typed properties, topics, segments, consent history, emails and events. */
export default function ContactPage({ params }: PageProps) {
  const id = params.id!;
  const contact = useQuery({
    queryKey: ['/contacts', id],
    queryFn: ({ signal }) => api.get<Contact>(`/contacts/${encodeURIComponent(id)}`, { signal }),
  });
  const properties = useProperties();
  // By key, for a stable order (the API lists them newest first); memoised: the details form
  // resets itself when its inputs change identity.
  const declared = useMemo(
    () => [...(properties.data?.data ?? [])].sort((a, b) => a.key.localeCompare(b.key)),
    [properties.data],
  );
  const back = { to: '/contacts', label: 'Contacts' };
  if (contact.error) return <ErrorMessage error={contact.error} title="This contact could not be loaded." />;
  if (!contact.data || properties.isLoading) return <Loading />;
  const c = contact.data;
  return (
    <>
      <PageHeader
        title={c.email}
        back={back}
        description={contactName(c) || undefined}
        actions={<DeleteContact id={c.id} email={c.email} />}
      />
      <ErrorMessage error={properties.error} />
      <Card>
        <DescriptionList
          items={[
            [
              'Marketing email',
              c.unsubscribed ? <Badge tone="bad">unsubscribed</Badge> : <Badge tone="good">subscribed</Badge>,
            ],
            ['Created', <Time key="created" value={c.created_at} mode="absolute" />],
            ['ID', <code key="id">{c.id}</code>],
          ]}
        />
      </Card>
      <ContactDetailsCard contact={c} declared={declared} />
      <div className="grid-2">
        <ContactTopicsCard contactId={c.id} />
        <ContactSegmentsCard contactId={c.id} />
      </div>
      <ConsentCard contactId={c.id} />
      <ContactEmailsCard address={c.email} />
      <ContactEventsCard contactId={c.id} />
    </>
  );
}
