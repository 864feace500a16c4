import type { PreferencePage } from '../../core/audience/preferences/preference.service.js';
import { escapeHtml } from '../../lib/text/escape-html.js';
import { page, type PageBrand } from './page-layout.js';

/** The unsubscribe link's confirmation page: one button, posting back to the same URL. */
export function unsubscribeConfirmation(email: string, brand: PageBrand): string {
  return page(
    'Unsubscribe',
    `<h1>Unsubscribe</h1>
<p>Stop all email from ${escapeHtml(brand.brandKit.company_name ?? brand.name)} to <strong>${escapeHtml(email)}</strong>?</p>
<form method="post">
<input type="hidden" name="confirm" value="1">
<button type="submit">Unsubscribe</button>
</form>`,
    brand,
  );
}

export function unsubscribedPage(email: string, preferencesUrl: string, brand: PageBrand): string {
  return page(
    'Unsubscribed',
    `<h1>You are unsubscribed</h1>
<p role="status" class="status"><strong>${escapeHtml(email)}</strong> will get no more email from ${escapeHtml(brand.brandKit.company_name ?? brand.name)}.</p>
<p><a href="${escapeHtml(preferencesUrl)}">Manage your email preferences</a></p>`,
    brand,
  );
}

/** The preference page: the topics the contact may choose, and the global opt-out. */
export function preferencesPage(view: PreferencePage, saved: boolean): string {
  const topics = view.topics
    .map((topic) => {
      const id = `topic-${topic.id}`;
      const hint = topic.description ? `<p class="hint" id="${id}-hint">${escapeHtml(topic.description)}</p>` : '';
      return `<div class="choice">
<input type="checkbox" id="${id}" name="topic" value="${topic.id}"${topic.subscribed ? ' checked' : ''}${topic.description ? ` aria-describedby="${id}-hint"` : ''}>
<div><label for="${id}">${escapeHtml(topic.name)}</label>${hint}</div>
</div>`;
    })
    .join('\n');
  const status = saved ? '<p role="status" class="status">Your preferences were saved.</p>' : '';
  return page(
    'Email preferences',
    `<h1>Email preferences</h1>
${status}
<p>For <strong>${escapeHtml(view.contact.email)}</strong></p>
<form method="post">
${view.topics.length > 0 ? `<fieldset>\n<legend>Send me email about</legend>\n${topics}\n</fieldset>` : ''}
<fieldset>
<legend>All email</legend>
<div class="choice">
<input type="checkbox" id="unsubscribe-all" name="unsubscribed" value="1"${view.contact.unsubscribed ? ' checked' : ''}>
<label for="unsubscribe-all">Unsubscribe from all email</label>
</div>
</fieldset>
<button type="submit">Save preferences</button>
</form>`,
    view.team,
  );
}
