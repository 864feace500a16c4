import { MisleadingDisplayNameError, type FieldError } from '../../../lib/errors.js';
import { otherAddressShown } from '../../shared/addresses/display-name.js';
import type { Mailbox } from '../../shared/addresses/mailbox.js';

/**
 * From and Reply-To may not carry a display name that shows another address than their own
 * (`"ceo@bank.example" <hello@our-domain>`): the reader trusts the From they see, and replies to
 * the Reply-To they see. Checked on the content after the template merge, so a template's from
 * and reply_to are held to it too, whoever sends (API, batch, SMTP submission, broadcasts,
 * automations). 422 validation_error on the API, 550 5.7.1 over SMTP (see smtp-replies.ts).
 */
export function assertHonestDisplayNames(from: Mailbox, replyTo: Mailbox[]): void {
  const fields = [
    { path: 'from', mailbox: from },
    ...replyTo.map((mailbox, i) => ({ path: replyTo.length === 1 ? 'reply_to' : `reply_to.${i}`, mailbox })),
  ];
  const errors: FieldError[] = [];
  for (const { path, mailbox } of fields) {
    const shown = otherAddressShown(mailbox);
    if (shown)
      errors.push({ path, message: `the display name shows ${shown}, which is not the address ${mailbox.address}` });
  }
  const first = errors[0];
  if (!first) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new MisleadingDisplayNameError(
    `${first.path}: ${first.message}; a display name may not show another address${more}`,
    { errors },
  );
}
