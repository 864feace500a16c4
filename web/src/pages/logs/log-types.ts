import { useQuery } from '@tanstack/react-query';
import { api, type List } from '../../api/client';

/** Shapes of GET /logs and GET /logs/{id} (api/routes/logs.routes.ts). */
export type LogItem = {
  object: 'log';
  id: string;
  created_at: string;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
  source: string;
  request_id: string;
  latency_ms: number;
  api_key_id: string | null;
};
export type LogDetail = LogItem & { request_body: unknown; response_body: unknown; email_id: string | null };

type ApiKey = { id: string; name: string; status: string };

/**
 * The team's API keys by id, to name the key of a log (one page of 100, revoked ones included:
 * a log outlives its key). A dashboard session also signs its requests with an id of its own,
 * which is no key: such a log names no key.
 */
export function useApiKeyNames() {
  return useQuery({
    queryKey: ['/api-keys', 'names'],
    queryFn: async () => {
      const keys = await api.get<List<ApiKey>>('/api-keys', { query: { limit: 100, status: 'all' } });
      return new Map(keys.data.map((key) => [key.id, key]));
    },
    staleTime: 60_000,
  });
}

/** An HTTP status as a badge of its class: 2xx good, 4xx a warning, 5xx bad. */
export function statusTone(status: number): 'good' | 'warn' | 'bad' | 'neutral' {
  if (status >= 500) return 'bad';
  if (status >= 400) return 'warn';
  if (status >= 200 && status < 300) return 'good';
  return 'neutral';
}
