import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { PageProps } from '../../routes';
import { StatusBadge } from '../../ui/badge';
import { ErrorMessage } from '../../ui/error-message';
import { Loading, PageHeader } from '../../ui/page';
import { DeliveriesCard } from './deliveries-card';
import { EndpointActions } from './endpoint-actions';
import { EndpointSettingsCard } from './endpoint-settings-card';
import { SigningSecretCard } from './signing-secret-card';
import type { Webhook } from './webhook-types';

export const webhookKey = (id: string) => ['/webhooks', id] as const;

/**
 * One endpoint: what it hears (edit), on or off, its signing secret (revealed on request,
 * rotated with a grace period), and every event sent to it with each attempt (replay, test).
 */
export default function WebhookDetailPage({ params }: PageProps) {
  const id = params.id!;
  const webhook = useQuery({ queryKey: webhookKey(id), queryFn: () => api.get<Webhook>(`/webhooks/${id}`) });
  const back = { to: '/webhooks', label: 'Webhooks' };
  if (webhook.isLoading) return <Loading />;
  if (!webhook.data)
    return (
      <>
        <PageHeader title="Webhook endpoint" back={back} />
        <ErrorMessage error={webhook.error} />
      </>
    );
  const endpoint = webhook.data;
  return (
    <>
      <PageHeader
        title="Webhook endpoint"
        back={back}
        description={
          <span className="webhook-heading">
            <code className="break-all">{endpoint.endpoint}</code> <StatusBadge status={endpoint.status} />
          </span>
        }
        actions={<EndpointActions endpoint={endpoint} />}
      />
      {endpoint.status === 'disabled' ? (
        <div className="alert alert-warn" role="status">
          This endpoint is disabled: no event is sent to it, and deliveries that were waiting have failed. Enable it,
          then replay the ones you need.
        </div>
      ) : null}
      <DeliveriesCard endpoint={endpoint} />
      <SigningSecretCard id={endpoint.id} />
      <EndpointSettingsCard endpoint={endpoint} />
    </>
  );
}
