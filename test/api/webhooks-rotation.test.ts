import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import t from 'tap';
import { request } from '../helpers/http.js';
import {
  startWebhookApp,
  WebhookReceiver,
  type ReceivedWebhook,
  type WebhookApp,
} from '../helpers/webhook-receiver.js';

/**
 * Rotation: the previous secret keeps signing beside the new one for the grace period, so a
 * receiver still holding the old secret and one already holding the new one both verify.
 */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp();
const short = await startWebhookApp({ webhooks: { secretGraceSeconds: 1 } });
t.teardown(async () => {
  await fx.close();
  await short.close();
  await receiver.down();
});

const headersOf = (w: ReceivedWebhook) => ({
  'webhook-id': String(w.headers['webhook-id']),
  'webhook-timestamp': String(w.headers['webhook-timestamp']),
  'webhook-signature': String(w.headers['webhook-signature']),
});
const verifies = (secret: string, w: ReceivedWebhook) => {
  const results = [new StandardWebhook(secret), new SvixWebhook(secret)].map((lib) => {
    try {
      lib.verify(w.body, headersOf(w));
      return true;
    } catch {
      return false;
    }
  });
  return { standardwebhooks: results[0], svix: results[1] };
};

/** Records one event for the team and waits until the receiver has it. */
async function deliverOne(app: WebhookApp, teamId: string, path: string): Promise<ReceivedWebhook> {
  const before = receiver.received.filter((w) => w.path === path).length;
  await app.app.runtime.services.suppressions.add(teamId, `${Math.random().toString(36).slice(2)}@example.com`);
  for (let i = 0; i < 400; i++) {
    const mine = receiver.received.filter((w) => w.path === path);
    if (mine.length > before) return mine.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no delivery');
}

t.test('during the grace period receivers with the old and with the new secret both verify', async (t) => {
  const { id, secret: oldSecret } = await fx.createEndpoint(receiver.url('/rotate'), ['suppression.added']);
  const rotated = await request(fx.app.url, `/webhooks/${id}/signing-secret/rotate`, {
    method: 'POST',
    token: fx.team.token,
  });
  t.equal(rotated.status, 200);
  t.match(rotated.body, {
    object: 'webhook',
    id,
    signing_secret: /^whsec_/,
    previous_signing_secret_expires_at: String,
  });
  const newSecret = rotated.body.signing_secret as string;
  t.not(newSecret, oldSecret);
  const graceEnds = Date.parse(rotated.body.previous_signing_secret_expires_at) - Date.now();
  t.ok(graceEnds > 23.9 * 3600_000 && graceEnds <= 24 * 3600_000, 'default grace: 24 hours');
  t.equal(
    (await request(fx.app.url, `/webhooks/${id}`, { token: fx.team.token })).body.signing_secret,
    newSecret,
    'retrieve shows the new secret',
  );
  t.same((await request(fx.app.url, `/webhooks/${id}/signing-secret`, { token: fx.team.token })).body, rotated.body);

  const w = await deliverOne(fx, fx.team.teamId, '/rotate');
  t.equal(String(w.headers['webhook-signature']).split(' ').length, 2, 'two v1 entries');
  t.same(
    verifies(oldSecret, w),
    { standardwebhooks: true, svix: true },
    'a receiver holding only the old secret verifies',
  );
  t.same(
    verifies(newSecret, w),
    { standardwebhooks: true, svix: true },
    'a receiver holding only the new secret verifies',
  );
  t.same(
    verifies('whsec_' + Buffer.alloc(32, 7).toString('base64'), w),
    { standardwebhooks: false, svix: false },
    'any other secret does not',
  );
});

t.test('after the grace period only the new secret signs', async (t) => {
  const { id, secret: oldSecret } = await short.createEndpoint(receiver.url('/after'), ['suppression.added']);
  const newSecret = (
    await request(short.app.url, `/webhooks/${id}/signing-secret/rotate`, { method: 'POST', token: short.team.token })
  ).body.signing_secret as string;
  await new Promise((resolve) => setTimeout(resolve, 1200));
  t.equal(
    (await request(short.app.url, `/webhooks/${id}/signing-secret`, { token: short.team.token })).body
      .previous_signing_secret_expires_at,
    null,
  );
  const w = await deliverOne(short, short.team.teamId, '/after');
  t.equal(String(w.headers['webhook-signature']).split(' ').length, 1, 'one v1 entry');
  t.same(verifies(newSecret, w), { standardwebhooks: true, svix: true });
  t.same(verifies(oldSecret, w), { standardwebhooks: false, svix: false });
});

t.test('rotating again within the grace period keeps the newest two secrets', async (t) => {
  const team = await fx.app.createTeam('twice', 'unlimited');
  const { id, secret: first } = await fx.createEndpoint(receiver.url('/twice'), ['suppression.added'], team.token);
  const rotate = async () =>
    (await request(fx.app.url, `/webhooks/${id}/signing-secret/rotate`, { method: 'POST', token: team.token })).body
      .signing_secret as string;
  const second = await rotate();
  const third = await rotate();
  const w = await deliverOne(fx, team.teamId, '/twice');
  t.same(verifies(third, w), { standardwebhooks: true, svix: true });
  t.same(verifies(second, w), { standardwebhooks: true, svix: true });
  t.same(verifies(first, w), { standardwebhooks: false, svix: false });
});
