import { readFileSync } from 'node:fs';
import t from 'tap';
import { MTA_NODE_OPTIONS } from '../../bench/mta-node-options.js';

const root = new URL('../../', import.meta.url);

// The MTA's node options live in three places that cannot import each other: the systemd unit
// production runs, the npm script that runs the benchmark's worker, and the constant the
// benchmark gives the `mailroom mta` processes it spawns. A change to one must reach the others,
// or the benchmark measures a worker production does not run.
t.test('the systemd unit, bench:mta and the benchmark agree on the MTA node options', async (t) => {
  t.ok(MTA_NODE_OPTIONS.length > 0);
  const unit = readFileSync(new URL('systemd/mailroom-mta.service', root), 'utf8');
  const nodeOptions = /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit)?.[1];
  t.same(nodeOptions?.trim().split(/\s+/), [...MTA_NODE_OPTIONS], 'NODE_OPTIONS in systemd/mailroom-mta.service');
  const script = (
    JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }
  ).scripts['bench:mta'];
  t.match(script, /^node /);
  for (const option of MTA_NODE_OPTIONS) t.ok(script!.split(/\s+/).includes(option), `bench:mta passes ${option}`);
});
