import t from 'tap';
import { EgressPicker } from '../../mta/pools/egress-picker.js';

const pool = (...entries: Array<[string, number]>) =>
  entries.map(([address, weight]) => ({ address, helo: `h-${address}`, weight }));
const pools = {
  'us-east-1': pool(['10.0.0.1', 1], ['10.0.0.2', 1], ['10.0.0.3', 2]),
  'eu-west-1': pool(['10.1.0.1', 1]),
  'sa-east-1': [],
  'ap-northeast-1': [],
};
const keys = Array.from({ length: 4000 }, (_, i) => `message-${i}`);

t.test('the same message always leaves from the same address', async (t) => {
  const picker = new EgressPicker(pools);
  const first = keys.map((key) => picker.pick('us-east-1', key)!.address);
  t.same(
    keys.map((key) => new EgressPicker(pools).pick('us-east-1', key)!.address),
    first,
    'and another process picks the same',
  );
  t.equal(picker.pick('eu-west-1', 'x')!.address, '10.1.0.1', 'each region has its own pool');
  t.equal(picker.pick('sa-east-1', 'x'), null, 'an empty pool picks nothing');
});

t.test('weights share the mail proportionally', async (t) => {
  const picker = new EgressPicker(pools);
  const counts = new Map<string, number>();
  for (const key of keys)
    counts.set(picker.pick('us-east-1', key)!.address, (counts.get(picker.pick('us-east-1', key)!.address) ?? 0) + 1);
  const share = (address: string) => (counts.get(address) ?? 0) / keys.length;
  t.ok(Math.abs(share('10.0.0.3') - 0.5) < 0.05, `weight 2 of 4 carries about half (${share('10.0.0.3')})`);
  t.ok(Math.abs(share('10.0.0.1') - 0.25) < 0.05, `weight 1 of 4 carries about a quarter (${share('10.0.0.1')})`);
});

t.test('taking one address out moves only the mail it carried', async (t) => {
  const picker = new EgressPicker(pools);
  const before = new Map(keys.map((key) => [key, picker.pick('us-east-1', key)!.address]));
  const resting = new Set(['10.0.0.2']);
  let moved = 0;
  let onResting = 0;
  for (const key of keys) {
    const after = picker.pick('us-east-1', key, resting)!.address;
    if (after === '10.0.0.2') onResting++;
    if (before.get(key) !== '10.0.0.2' && after !== before.get(key)) moved++;
  }
  t.equal(onResting, 0, 'nothing leaves from the resting address');
  t.equal(moved, 0, 'mail of the other addresses stays where it was');
  const disabled = new EgressPicker(pools, ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  t.equal(disabled.pick('us-east-1', 'x'), null, 'a pool whose addresses are all disabled picks nothing');
  t.same(
    new EgressPicker(pools, ['10.0.0.1']).addresses('us-east-1').map((a) => a.address),
    ['10.0.0.2', '10.0.0.3'],
    'disabled addresses leave the pool',
  );
});
