import type { TemplateVariable } from './template.types.js';

/**
 * Starter templates: complete, brand-aware designs a team can begin from. Each declares exactly
 * the variables its bodies use, so it passes the placeholder rules as it is.
 */
export type Starter = {
  slug: string;
  name: string;
  description: string;
  subject: string;
  html: string;
  text: string;
  variables: TemplateVariable[];
};

const layout = (body: string) => `<!doctype html>
<html><body style="margin:0;padding:24px;background:#f5f5f5;font-family:{{brand.font}}">
<table role="presentation" width="100%" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:{{brand.button_radius}}">
<tr><td style="padding:24px"><img src="{{brand.logo_url}}" alt="" height="32"></td></tr>
<tr><td style="padding:0 24px 24px;color:#111827">${body}</td></tr>
<tr><td style="padding:16px 24px;color:#6b7280;font-size:12px">{{brand.company_name}} {{brand.address}}<br>{{brand.footer_text}}</td></tr>
</table></body></html>`;

const button = (href: string, label: string) =>
  `<a href="${href}" style="display:inline-block;padding:12px 20px;background:{{brand.primary_color}};color:#ffffff;border-radius:{{brand.button_radius}};text-decoration:none">${label}</a>`;

export const STARTERS: readonly Starter[] = [
  {
    slug: 'welcome',
    name: 'Welcome',
    description: 'Greets a new user and points to the first step.',
    subject: 'Welcome, {{name}}',
    html: layout(
      `<h1 style="color:{{brand.accent_color}}">Welcome, {{name}}</h1><p>Your account is ready.</p>${button('{{action_url}}', 'Get started')}`,
    ),
    text: 'Welcome, {{name}}\n\nYour account is ready. Get started: {{action_url}}\n',
    variables: [
      { key: 'name', type: 'string', fallback_value: 'there' },
      { key: 'action_url', type: 'string', fallback_value: null },
    ],
  },
  {
    slug: 'password-reset',
    name: 'Password reset',
    description: 'A link to choose a new password, with its expiry.',
    subject: 'Reset your password',
    html: layout(
      `<p>Someone asked to reset the password of your account.</p>${button('{{reset_url}}', 'Choose a new password')}<p>The link expires in {{expires_in_minutes}} minutes. If you did not ask, ignore this message.</p>`,
    ),
    text: 'Someone asked to reset the password of your account.\n\nChoose a new password: {{reset_url}}\n\nThe link expires in {{expires_in_minutes}} minutes. If you did not ask, ignore this message.\n',
    variables: [
      { key: 'reset_url', type: 'string', fallback_value: null },
      { key: 'expires_in_minutes', type: 'number', fallback_value: 30 },
    ],
  },
  {
    slug: 'verification-code',
    name: 'Verification code',
    description: 'A one-time code for sign-in or e-mail verification.',
    subject: 'Your code: {{code}}',
    html: layout(
      `<p>Your verification code is</p><p style="font-size:28px;letter-spacing:4px;font-weight:bold">{{code}}</p><p>It is valid for {{expires_in_minutes}} minutes.</p>`,
    ),
    text: 'Your verification code is {{code}}. It is valid for {{expires_in_minutes}} minutes.\n',
    variables: [
      { key: 'code', type: 'string', fallback_value: null },
      { key: 'expires_in_minutes', type: 'number', fallback_value: 10 },
    ],
  },
  {
    slug: 'receipt',
    name: 'Receipt',
    description: 'A payment receipt with order number, total and line items.',
    subject: 'Receipt for order {{order_number}}',
    html: layout(
      `<h1>Thank you for your order</h1><p>Order {{order_number}}, total {{total}}.</p><p>Items: {{items}}</p>`,
    ),
    text: 'Thank you for your order.\nOrder {{order_number}}, total {{total}}.\nItems: {{items}}\n',
    variables: [
      { key: 'order_number', type: 'string', fallback_value: null },
      { key: 'total', type: 'string', fallback_value: null },
      { key: 'items', type: 'list', fallback_value: [] },
    ],
  },
];

export function findStarter(slug: string): Starter | undefined {
  return STARTERS.find((starter) => starter.slug === slug);
}
