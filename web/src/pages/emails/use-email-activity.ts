import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, type List } from '../../api/client';
import {
  pollInterval,
  type Attachment,
  type Delivery,
  type EmailDetail,
  type EmailEvent,
  type EmailWebhookDelivery,
} from './email-types';

/**
 * Everything the email page shows, each from its public route. While the email is in flight
 * (pollInterval) every part is asked for again every few seconds; each query reads the others'
 * latest answers from the cache when it decides, so they all stop together once it settles.
 */
export function useEmailActivity(id: string) {
  const client = useQueryClient();
  const emailKey = ['/emails', id];
  const deliveriesKey = ['/emails', id, 'deliveries'];
  const current = () =>
    pollInterval(client.getQueryData<EmailDetail>(emailKey), client.getQueryData<List<Delivery>>(deliveriesKey)?.data);

  const email = useQuery({
    queryKey: emailKey,
    queryFn: ({ signal }) => api.get<EmailDetail>(`/emails/${id}`, { signal }),
    refetchInterval: current,
  });
  const enabled = email.isSuccess;
  const deliveries = useQuery({
    queryKey: deliveriesKey,
    queryFn: ({ signal }) => api.get<List<Delivery>>(`/emails/${id}/deliveries`, { signal }),
    enabled,
    refetchInterval: current,
  });
  const events = useQuery({
    queryKey: ['/emails', id, 'events'],
    queryFn: ({ signal }) => api.get<List<EmailEvent>>(`/emails/${id}/events`, { query: { limit: 100 }, signal }),
    enabled,
    refetchInterval: current,
  });
  const webhooks = useQuery({
    queryKey: ['/emails', id, 'webhook-deliveries'],
    queryFn: ({ signal }) =>
      api.get<List<EmailWebhookDelivery>>(`/emails/${id}/webhook-deliveries`, { query: { limit: 100 }, signal }),
    enabled,
    refetchInterval: current,
  });
  const attachments = useQuery({
    queryKey: ['/emails', id, 'attachments'],
    queryFn: ({ signal }) => api.get<List<Attachment>>(`/emails/${id}/attachments`, { signal }),
    enabled,
    // The download links are valid for an hour: fresh ones well before that.
    refetchInterval: 30 * 60_000,
  });

  // When the email's state moves (delivered, canceled), a poll of the activity that was already
  // on its way may have missed the event that moved it: ask once more.
  const lastEvent = email.data?.last_event;
  const seen = useRef(lastEvent);
  useEffect(() => {
    const before = seen.current;
    seen.current = lastEvent;
    if (!before || !lastEvent || before === lastEvent) return;
    void client.invalidateQueries({
      queryKey: ['/emails', id],
      predicate: (query) => query.queryKey.length === 3 && query.queryKey[2] !== 'attachments',
    });
  }, [client, id, lastEvent]);

  return {
    email,
    deliveries,
    events,
    webhooks,
    attachments,
    polling: pollInterval(email.data, deliveries.data?.data) !== false,
  };
}
