/**
 * Links already mailed or printed before the dashboard existed pointed at API paths
 * (`/auth/password-reset?token=`, `/auth/verify-email?token=`, `/invitations/accept?token=`).
 * A browser that opens one is sent to the dashboard page that does the same job; API clients
 * (no Accept: text/html) keep the API's answer.
 */
const LEGACY: Record<string, string> = {
  '/auth/password-reset': '/dashboard/reset-password',
  '/api/v1/auth/password-reset': '/dashboard/reset-password',
  '/auth/verify-email': '/dashboard/verify-email',
  '/api/v1/auth/verify-email': '/dashboard/verify-email',
  '/invitations/accept': '/dashboard/invitations/accept',
};

export function legacyLinkTarget(path: string, querystring: string, wantsHtml: boolean): string | undefined {
  const target = LEGACY[path];
  if (!target || (!wantsHtml && path !== '/invitations/accept')) return undefined;
  return `${target}${querystring ? `?${querystring}` : ''}`;
}
