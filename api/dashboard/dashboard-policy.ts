/**
 * The dashboard's Content-Security-Policy. Scripts only from the appliance's own files (no
 * inline script, no eval); API calls only to this origin; never framed. Two allowances, each for
 * a reason:
 *  - `style-src 'unsafe-inline'`: an email shown in the dashboard is a sandboxed srcdoc frame,
 *    which inherits this policy, and emails are styled inline. Styles cannot run code.
 *  - `img-src https:`: a team's brand logo may live on its own site, and a person may ask to
 *    load an email's remote images (the email's frame blocks them until then).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};
