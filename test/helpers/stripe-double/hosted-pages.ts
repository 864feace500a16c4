import type { StripeStore } from './stripe-store.js';

export type Page = { status: number; contentType: string; body: string };

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function html(status: number, title: string, lines: string[]): Page {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${lines.join('')}</body></html>`;
  return { status, contentType: 'text/html; charset=utf-8', body };
}

function link(href: string | null | undefined, text: string): string {
  return href ? `<p><a href="${escape(href)}">${escape(text)}</a></p>` : '';
}

/**
 * The pages the double's URLs lead to (Stripe's hosted Checkout, portal and invoice pages stand
 * in here): enough for a browser test to see the URL works, and that a Checkout URL stops working
 * once the session expired.
 */
export function hostedPage(store: StripeStore, path: string): Page | null {
  let match = /^\/checkout\/([^/]+)$/.exec(path);
  if (match) {
    const record = store.checkouts.get(match[1]!);
    if (!record) return html(404, 'Checkout session not found', []);
    const session = store.checkout(record.session.id).session;
    if (session.status === 'expired') return html(410, 'This checkout session has expired', []);
    if (session.status === 'complete') return html(200, 'Payment complete', [link(session.success_url, 'Continue')]);
    const lines = record.lines.map(
      (line) =>
        `<li>${line.quantity} × ${escape(store.productName(line.price))}: ${line.price.unit_amount} ${escape(line.price.currency)}</li>`,
    );
    return html(200, 'Checkout (Stripe double)', [
      `<ul>${lines.join('')}</ul>`,
      `<p>Total: ${session.amount_total} ${escape(session.currency ?? '')}</p>`,
      link(session.cancel_url, 'Cancel'),
    ]);
  }
  match = /^\/portal\/([^/]+)$/.exec(path);
  if (match) {
    const session = store.portalSessions.get(match[1]!);
    if (!session) return html(404, 'Portal session not found', []);
    return html(200, 'Billing portal (Stripe double)', [
      `<p>Customer ${escape(session.customer)}</p>`,
      link(session.return_url, 'Return'),
    ]);
  }
  match = /^\/invoices\/([^/]+)(\/pdf)?$/.exec(path);
  if (match) {
    const invoice = store.invoices.get(match[1]!);
    if (!invoice) return html(404, 'Invoice not found', []);
    if (match[2]) {
      // A stand-in document: the adapter only passes the URL on.
      return {
        status: 200,
        contentType: 'application/pdf',
        body: `%PDF-1.4\n% Invoice ${invoice.number} (Stripe double)\n%%EOF\n`,
      };
    }
    return html(200, `Invoice ${invoice.number ?? invoice.id}`, [
      `<p>Status: ${escape(invoice.status ?? '')}</p>`,
      `<p>Total: ${invoice.total} ${escape(invoice.currency)}</p>`,
    ]);
  }
  return null;
}
