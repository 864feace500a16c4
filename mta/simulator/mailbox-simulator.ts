/**
 * The mailbox simulator: addresses at the configured simulator domain never leave the
 * appliance; their local part says what happens (a `+label` suffix is ignored, so tests can
 * tell their messages apart). Simulated bounces are not added to the suppression list, so the
 * addresses stay usable.
 */
export type SimulatedOutcome =
  { kind: 'delivered' } | { kind: 'bounced'; reply: string } | { kind: 'complained' } | { kind: 'suppressed' };

export function simulate(recipient: string): SimulatedOutcome {
  const local = recipient.slice(0, recipient.lastIndexOf('@')).toLowerCase().split('+')[0];
  switch (local) {
    case 'bounced':
      return {
        kind: 'bounced',
        reply: '550 5.1.1 <' + recipient + '>: Recipient address rejected: User unknown (simulated)',
      };
    case 'complained':
      return { kind: 'complained' };
    case 'suppressed':
      return { kind: 'suppressed' };
    default:
      return { kind: 'delivered' };
  }
}
