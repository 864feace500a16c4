import { Link } from '../../router';
import { CopyButton } from '../../ui/copy-button';
import { EmptyState } from '../../ui/page';

/**
 * The empty list of a team that has sent nothing yet: how to send the first email, with this
 * appliance's own address filled in (the same call works with the `resend` SDK pointed here).
 */
export function FirstEmail() {
  const base = `${window.location.origin}/api/v1`;
  const curl = [
    `curl -X POST ${base}/emails \\`,
    `  -H "Authorization: Bearer svc_..." \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{`,
    `    "from": "Acme <hello@your-domain.example>",`,
    `    "to": "delivered@simulator.mailroom.localhost",`,
    `    "subject": "First",`,
    `    "text": "It works"`,
    `  }'`,
  ].join('\n');
  const sdk = [
    `import { Resend } from 'resend';`,
    `const resend = new Resend('svc_...', { baseUrl: '${base}' });`,
    `await resend.emails.send({`,
    `  from: 'Acme <hello@your-domain.example>',`,
    `  to: 'delivered@simulator.mailroom.localhost',`,
    `  subject: 'First',`,
    `  text: 'It works',`,
    `});`,
  ].join('\n');
  return (
    <EmptyState title="No emails yet">
      <div className="first-email">
        <p>
          Send one through the API: you need an <Link to="/api-keys">API key</Link> and a{' '}
          <Link to="/domains">verified domain</Link> to send from. Mail to the simulator address below never leaves the
          appliance and is reported delivered a moment later.
        </p>
        <div className="code-sample">
          <div className="code-sample-head">
            <span>With curl</span>
            <CopyButton value={curl} label="Copy the curl command" />
          </div>
          <pre tabIndex={0}>{curl}</pre>
        </div>
        <div className="code-sample">
          <div className="code-sample-head">
            <span>With the resend SDK</span>
            <CopyButton value={sdk} label="Copy the SDK example" />
          </div>
          <pre tabIndex={0}>{sdk}</pre>
        </div>
        <p>Emails appear here as soon as the appliance accepts them.</p>
      </div>
    </EmptyState>
  );
}
