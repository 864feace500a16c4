/**
 * The dashboard's one way to the appliance: the public API under /api/v1, with the session
 * cookie (HttpOnly: this code never sees it). Writes are plain fetches from this origin, so the
 * browser sends the Origin header the API checks on cookie-authenticated writes. Nothing is kept
 * in localStorage: no token, no key.
 */
export const API_BASE = '/api/v1';

export type FieldError = { path: string; message: string };

/** The spec's error body, as an exception the pages can show in words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The message for one form field (matched by its path's last segment), if the API named it. */
  forField(field: string): string | undefined {
    return this.fieldErrors.find((error) => error.path === field || error.path.split('.').at(-1) === field)?.message;
  }
}

type RequestOptions = { query?: Record<string, string | number | boolean | undefined | null>; signal?: AbortSignal };

export function apiUrl(path: string, query?: RequestOptions['query']): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const qs = search.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ''}`;
}

/** Listeners told when the API says the session has ended (the shell then shows sign-in). */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

async function request<T>(method: string, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const init: RequestInit = {
    method,
    credentials: 'same-origin',
    headers: { accept: 'application/json' },
    signal: options.signal,
  };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'The appliance could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const parsed: unknown = contentType.includes('json') && text ? JSON.parse(text) : text;
  if (response.ok) return parsed as T;
  const error = (parsed && typeof parsed === 'object' ? parsed : {}) as {
    name?: string;
    message?: string;
    errors?: FieldError[];
    details?: Record<string, unknown>;
  };
  const failure = new ApiError(
    response.status,
    error.name ?? 'application_error',
    error.message ?? `The appliance answered ${response.status}`,
    error.errors ?? [],
    error.details ?? {},
  );
  if (response.status === 401 && !path.startsWith('/auth/login') && !path.startsWith('/auth/mfa/verify')) {
    for (const listener of signedOutListeners) listener();
  }
  throw failure;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body ?? {}, options),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  put: <T>(path: string, body: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
  /** A text answer (the BIND zone snippet). */
  text: (path: string, options?: RequestOptions) => request<string>('GET', path, undefined, options),
};

/** A list answer of the API: cursor pages with has_more. */
export type List<T> = { object: 'list'; data: T[]; has_more?: boolean };
