export type RequestLog = {
  id: string;
  teamId: string;
  apiKeyId: string | null;
  createdAt: Date;
  endpoint: string;
  method: string;
  responseStatus: number;
  userAgent: string | null;
  source: string;
  requestId: string;
  latencyMs: number;
  requestBody: unknown;
  responseBody: unknown;
  emailId: string | null;
};

const SDK_LANGUAGES = new Set([
  'node',
  'python',
  'ruby',
  'go',
  'php',
  'java',
  'rust',
  'elixir',
  'dotnet',
  'swift',
  'kotlin',
  'laravel',
  'django',
]);

/** `source` of a request: an SDK named by its User-Agent, else the plain API. */
export function sourceOf(userAgent: string | undefined, viaDashboard = false): string {
  if (viaDashboard) return 'dashboard';
  // SDKs of this API family identify as `<family>-<language>:<version>` (e.g. resend-node:6.1.0).
  const match = userAgent?.match(/^[a-z0-9]+-([a-z]+)[:/]\d/i);
  const language = match?.[1]?.toLowerCase();
  return language && SDK_LANGUAGES.has(language) ? `sdk:${language}` : 'api';
}
