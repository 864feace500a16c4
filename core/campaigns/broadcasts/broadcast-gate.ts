import { ForbiddenValidationError, UnprocessableValidationError, type AppError } from '../../../lib/errors.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import type { Team } from '../../platform/teams/team.types.js';
import type { Broadcast } from './broadcast.types.js';

/** One check of the gate, as the checklist shows it. */
export type GateCheck = { check: GateCheckName; passed: boolean; message: string };
export type GateCheckName =
  'verified_domain' | 'postal_address' | 'segment' | 'marketing_enabled' | 'team_standing' | 'content';

export type GateDeps = {
  verifiedDomain: (teamId: string, name: string) => Promise<unknown>;
  liveSegment: (teamId: string, id: string) => Promise<boolean>;
  marketingEnabled: () => Promise<boolean>;
};

type Verdict = { check: GateCheckName; passed: boolean; message: string; refusal: () => AppError };

/**
 * The compliance gate a broadcast passes before it is sent, in the spec's order: a verified
 * sending domain for `from`, a postal address in the team's sender identity, a live segment
 * (422 each); marketing switched on platform-wide, a team in good standing (403 each); a body
 * (422). A refused send creates and changes nothing. The checklist runs the same checks.
 */
export class BroadcastGate {
  constructor(private readonly deps: GateDeps) {}

  async checklist(team: Team, broadcast: Broadcast): Promise<GateCheck[]> {
    return (await this.verdicts(team, broadcast)).map(({ check, passed, message }) => ({ check, passed, message }));
  }

  /** Throws the first failing check's refusal. */
  async assertPasses(team: Team, broadcast: Broadcast): Promise<void> {
    const failed = (await this.verdicts(team, broadcast)).find((v) => !v.passed);
    if (failed) throw failed.refusal();
  }

  private async verdicts(team: Team, b: Broadcast): Promise<Verdict[]> {
    const unprocessable = (message: string, path: string) => () =>
      new UnprocessableValidationError(message, { errors: [{ path, message }] });
    const forbidden = (message: string) => () => new ForbiddenValidationError(message);
    const address = b.from ? parseMailbox(b.from)?.address : undefined;
    const domain = address?.slice(address.lastIndexOf('@') + 1).toLowerCase();
    const domainOk = domain ? Boolean(await this.deps.verifiedDomain(team.id, domain)) : false;
    const segmentOk = b.segmentId ? await this.deps.liveSegment(team.id, b.segmentId) : false;
    const marketingOk = await this.deps.marketingEnabled();
    const verdict = (check: GateCheckName, passed: boolean, ok: string, refusal: () => AppError): Verdict => ({
      check,
      passed,
      message: passed ? ok : refusal().message,
      refusal,
    });
    return [
      verdict(
        'verified_domain',
        domainOk,
        `${domain} is verified`,
        unprocessable(
          address
            ? `The domain ${domain} is not verified by this team: add and verify it at /domains`
            : 'from must be an address or Name <address> on a verified domain',
          'from',
        ),
      ),
      verdict(
        'postal_address',
        team.postalAddress !== null,
        'The team has a postal address',
        unprocessable('Add a postal address to the team (PATCH /team) before sending a broadcast', 'postal_address'),
      ),
      verdict(
        'segment',
        segmentOk,
        'The segment exists',
        unprocessable(
          b.segmentId ? 'The segment of this broadcast no longer exists' : 'Choose a segment (segment_id)',
          'segment_id',
        ),
      ),
      verdict(
        'marketing_enabled',
        marketingOk,
        'Marketing sends are on',
        forbidden('Marketing sends are paused on this appliance; try again later'),
      ),
      verdict(
        'team_standing',
        team.riskState !== 'suspended',
        'The team is in good standing',
        forbidden('This team cannot send email'),
      ),
      verdict(
        'content',
        Boolean(b.html || b.text),
        'The broadcast has a body',
        unprocessable('A broadcast needs html or text (or a published template)', 'html'),
      ),
    ];
  }
}
