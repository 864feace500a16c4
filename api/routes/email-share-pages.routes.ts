import { z } from 'zod';
import { EmailAboveQuotaError } from '../../lib/errors.js';
import { emailSharePage, SHARE_PAGE_CSP } from '../pages/email-share-page.js';
import { htmlResult, messagePage } from '../pages/page-layout.js';
import { defineRoute } from '../route.js';

const html = { description: 'An HTML page', contentType: 'text/html' };

/**
 * The page a share link opens (POST /emails/{id}/share): served on the public URL outside the
 * API, no credential but the token. Unknown, revoked and expired links get the plain 404 page.
 */
export const emailSharePageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/share/:token',
    surface: 'pages',
    operationId: 'sharedEmailPage',
    summary: 'A shared email, read-only: headers, the HTML in a sandboxed frame, the text, attachment names',
    tag: 'pages',
    permission: 'none',
    scope: null,
    params: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{1,88}$/) }),
    responses: { 200: html, 403: html, 404: html },
    handler: async ({ params, services }) => {
      try {
        const email = await services.emailShares.open(params.token);
        return htmlResult(200, emailSharePage(email), { 'content-security-policy': SHARE_PAGE_CSP });
      } catch (err) {
        if (err instanceof EmailAboveQuotaError)
          return messagePage(403, 'Not available now', 'This email cannot be shown right now. Please try again later.');
        throw err;
      }
    },
  }),
];
