import t from 'tap';
import { AddressPolicy } from '../../lib/net/address-policy.js';

t.test('private, loopback, link-local and friends are refused; public addresses pass', async (t) => {
  const policy = new AddressPolicy();
  for (const address of [
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ]) {
    t.equal(policy.permits(address), false, `refused: ${address}`);
  }
  for (const address of [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ]) {
    t.equal(policy.permits(address), true, `allowed: ${address}`);
  }
});

t.test('IPv6 forms that embed an IPv4 address are judged by that address', async (t) => {
  const policy = new AddressPolicy();
  const refused = [
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::a00:1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '2001:0:7f00:1::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:db8::1',
    'fec0::1',
    '100::1',
    '203.0.113.5',
    '192.0.2.1',
    '127.1',
    '2130706433',
  ];
  for (const address of refused) t.equal(policy.permits(address), false, `refused: ${address}`);
  const allowed = [
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:808:808',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    '[2606:4700::1111]',
  ];
  for (const address of allowed) t.equal(policy.permits(address), true, `allowed: ${address}`);
});

t.test('the allow-list also covers the IPv4 address an IPv6 form carries', async (t) => {
  const policy = new AddressPolicy(['127.0.0.1']);
  t.equal(policy.permits('::ffff:127.0.0.1'), true);
  t.equal(policy.permits('::ffff:127.0.0.2'), false);
});

t.test('an allow-list exempts exactly what it names', async (t) => {
  const policy = new AddressPolicy(['127.0.0.1', '10.20.0.0/16']);
  t.equal(policy.permits('127.0.0.1'), true);
  t.equal(policy.permits('127.0.0.2'), false);
  t.equal(policy.permits('10.20.3.4'), true);
  t.equal(policy.permits('10.21.0.1'), false);
});
