import t from 'tap';
import { assertSandboxAllows, type SandboxContext } from '../../../../core/sending/domains/sandbox.js';
import type { Domain } from '../../../../core/sending/domains/domain.types.js';
import { planOrFree } from '../../../../core/platform/plans/plan.catalog.js';
import { EMPTY_BRAND_KIT, type Team } from '../../../../core/platform/teams/team.types.js';
import { refusal } from '../../../helpers/refusal.js';

const now = new Date();
const team = (tier: number): Team => ({
  id: 't1',
  name: 'T',
  slug: 't',
  riskState: 'normal',
  plan: planOrFree('free'),
  sendingTier: tier,
  senderName: null,
  postalAddress: null,
  aiAssistEnabled: false,
  brandKit: EMPTY_BRAND_KIT,
  createdAt: now,
  updatedAt: now,
});
const domain = (name: string, region: Domain['region'], status: Domain['status']) =>
  ({ name, region, status }) as Domain;
const context = (tier: number, domains: Domain[]): SandboxContext => ({
  team: team(tier),
  teamDomains: domains,
  members: [
    {
      id: 'm',
      teamId: 't1',
      email: 'Owner@Team.example',
      name: null,
      role: 'owner',
      mfaEnabled: false,
      createdAt: now,
    },
  ],
  simulatorDomain: 'simulator.mailroom.localhost',
});

t.test('in a sandboxed region only identities, the simulator and verified domains pass', async (t) => {
  const ctx = context(1, [
    domain('acme.example', 'us-east-1', 'verified'),
    domain('pending.example', 'eu-west-1', 'pending'),
  ]);
  const allowed = [
    'owner@team.example',
    'bounced@simulator.mailroom.localhost',
    'x@acme.example',
    'x@deep.sub.acme.example',
  ];
  t.equal(
    refusal(() => assertSandboxAllows(ctx, 'eu-west-1', allowed)),
    undefined,
    'all allowed',
  );
  t.match(
    refusal(() =>
      assertSandboxAllows(ctx, 'eu-west-1', ['x@acme.example', 'stranger@gmail.example', 'other@gmail.example']),
    ),
    {
      statusCode: 403,
      errorName: 'validation_error',
      details: {
        recipient: 'stranger@gmail.example',
        region: 'eu-west-1',
        allowed: ['verified_identity', 'verified_domain', 'simulator'],
      },
    },
  );
  t.match(
    refusal(() => assertSandboxAllows(ctx, 'eu-west-1', ['x@notacme.example'])),
    { details: { recipient: 'x@notacme.example' } },
    'a suffix is not a subdomain',
  );
  t.match(
    refusal(() => assertSandboxAllows(ctx, 'eu-west-1', ['x@pending.example'])),
    { details: { recipient: 'x@pending.example' } },
    'unverified domains do not count',
  );
});

t.test('tiers 0 and 1 are sandboxed everywhere; from tier 2 nothing is', async (t) => {
  const verified = [domain('acme.example', 'us-east-1', 'verified')];
  t.match(
    refusal(() => assertSandboxAllows(context(1, verified), 'us-east-1', ['anyone@gmail.example'])),
    { statusCode: 403, details: { region: 'us-east-1' } },
  );
  t.match(
    refusal(() => assertSandboxAllows(context(0, []), 'sa-east-1', ['anyone@gmail.example'])),
    { statusCode: 403 },
  );
  t.equal(
    refusal(() => assertSandboxAllows(context(2, []), 'sa-east-1', ['anyone@gmail.example'])),
    undefined,
  );
  t.equal(
    refusal(() => assertSandboxAllows(context(3, verified), 'us-east-1', ['anyone@gmail.example'])),
    undefined,
  );
});

t.test('the refusal names the way out: the operator command (no payment provider here)', async (t) => {
  const verified = [domain('acme.example', 'us-east-1', 'verified')];
  t.match(
    refusal(() => assertSandboxAllows(context(1, verified), 'us-east-1', ['anyone@gmail.example'])),
    {
      message:
        /us-east-1 is in the sending sandbox.*; to send to anyone, an operator lifts the sandbox with `mailroom team set-tier --team t1 --tier 2`$/,
    },
  );
});
