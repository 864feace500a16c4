import t from 'tap';
import { sandboxWayOut } from '../../core/platform/teams/sending-unlock.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Issue 32: on this appliance there is no payment provider, so `GET /team` never sends a team
 * to `add_payment_method`: the paid tier is an operator's to give (`mailroom team set-tier`),
 * and next_unlock says `operator_review`, one of the values the spec allows (verify_domain,
 * add_payment_method, operator_review, null).
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { token, teamId } = await app.createTeam('Acme');

const sending = async () => (await request(app.url, '/team', { token })).body.sending;

t.test('next_unlock at each tier, without a payment provider', async (t) => {
  const expected = [
    { tier: 0, tier_name: 'new', next_unlock: 'verify_domain', sandboxed: true },
    { tier: 1, tier_name: 'verified', next_unlock: 'operator_review', sandboxed: true },
    { tier: 2, tier_name: 'paid', next_unlock: 'operator_review', sandboxed: false },
    { tier: 3, tier_name: 'trusted', next_unlock: null, sandboxed: false },
  ];
  for (const { tier, tier_name, next_unlock, sandboxed } of expected) {
    await app.runtime.services.teams.setTier(teamId, tier);
    const found = await sending();
    t.match(found, { tier, tier_name, next_unlock }, `tier ${tier}`);
    t.equal(found.sandbox_regions.length > 0, sandboxed, `tier ${tier} ${sandboxed ? 'in' : 'out of'} the sandbox`);
    t.not(found.next_unlock, 'add_payment_method', 'no payment method to add: there is no payment provider');
  }
});

t.test('the way out of the sandbox, in words, names the operator command', async (t) => {
  t.equal(
    sandboxWayOut({ id: teamId, sendingTier: 1 }),
    `to send to anyone, an operator lifts the sandbox with \`mailroom team set-tier --team ${teamId} --tier 2\``,
  );
  t.match(sandboxWayOut({ id: teamId, sendingTier: 0 }), /^verify a domain at \/domains, then an operator lifts/);
});
