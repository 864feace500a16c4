import type { AuthorizationRequest } from '../../core/oauth/authorize-request.js';
import { escapeHtml } from '../../lib/text/escape-html.js';
import { page } from './page-layout.js';

/** What each scope lets an app do, in the words the consent page shows a person. */
const SCOPE_WORDS: Record<string, string> = {
  'ai:use': 'Use the AI helpers (subject lines, drafts, diagnoses)',
  'automations:read': 'Read your automations and their runs',
  'automations:write': 'Create, change and stop automations',
  'billing:read': 'Read your plan, usage and invoices',
  'broadcasts:read': 'Read your broadcasts',
  'broadcasts:write': 'Create, schedule and send broadcasts',
  'contacts:read': 'Read your contacts, their topics, segments and consent records',
  'domains:read': 'Read your domains and their DNS records',
  'emails:read': 'Read the emails you sent and their events',
  'emails:send': 'Send email from your verified domains',
  'events:read': 'Read your custom event definitions',
  'events:send': 'Send custom events (which can start automations)',
  'events:write': 'Create and delete custom event definitions',
  'team:read': 'Read your team’s settings',
  'team:write': 'Change your team’s settings (not its name)',
  'templates:read': 'Read your templates',
};

const requestField = (requestId: string) => `<input type="hidden" name="request" value="${escapeHtml(requestId)}">`;

/** Sign-in first: the consent page needs a dashboard session. */
export function consentLoginPage(requestId: string, clientName: string, problem?: string): string {
  const error = problem ? `<p role="alert" class="status">${escapeHtml(problem)}</p>` : '';
  return page(
    'Sign in',
    `<h1>Sign in to continue</h1>
<p><strong>${escapeHtml(clientName)}</strong> asks to connect to your Mailroom team. Sign in first.</p>
${error}
<form method="post" action="/oauth/consent/login">
${requestField(requestId)}
<p><label for="email">E-mail</label><br><input id="email" name="email" type="email" autocomplete="username" required></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** The second factor, when the account has MFA on. */
export function consentMfaPage(requestId: string, challengeToken: string, problem?: string): string {
  const error = problem ? `<p role="alert" class="status">${escapeHtml(problem)}</p>` : '';
  return page(
    'Two-step verification',
    `<h1>Two-step verification</h1>
<p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
${error}
<form method="post" action="/oauth/consent/mfa">
${requestField(requestId)}
<input type="hidden" name="challenge_token" value="${escapeHtml(challengeToken)}">
<p><label for="code">Code</label><br><input id="code" name="code" autocomplete="one-time-code" required></p>
<button type="submit">Verify</button>
</form>`,
  );
}

/** The question itself: who asks, for what, in which team, and where the answer goes. */
export function consentPage(
  requestId: string,
  request: AuthorizationRequest,
  view: { teamName: string; userEmail: string },
): string {
  const scopes = request.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`)
    .join('\n');
  const host = new URL(request.redirectUri).host;
  return page(
    'Connect an app',
    `<h1>Connect ${escapeHtml(request.clientName)}?</h1>
<p><strong>${escapeHtml(request.clientName)}</strong> wants access to the team <strong>${escapeHtml(view.teamName)}</strong>.
You are signed in as ${escapeHtml(view.userEmail)}.</p>
<p>It will be able to:</p>
<ul>
${scopes}
</ul>
<p class="hint">After your answer you go back to <strong>${escapeHtml(host)}</strong>. A team admin can revoke the access at any time.</p>
<form method="post" action="/oauth/consent">
${requestField(requestId)}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
