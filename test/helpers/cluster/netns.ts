import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ip = (...args: string[]) => run('ip', args);

/**
 * A test host of its own: a network namespace joined to this machine by a veth pair, with its own
 * address (its egress address: what a receiving server sees) and a default route through this
 * machine, so it reaches the services the test runs on `servicesAddress` (an address on this
 * machine's loopback interface, reachable from every namespace).
 */
export type TestHost = { namespace: string; address: string; gatewayAddress: string };

/** Namespaces and interfaces of a run are named with this prefix (interface names: 15 bytes at most). */
const PREFIX = 'mrc';

/** Whether this machine lets the test make namespaces (root, iproute2); the reason when not. */
export async function namespacesUnavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    await ip('netns', 'add', `${PREFIX}probe`);
    await ip('netns', 'del', `${PREFIX}probe`);
    return null;
  } catch (err) {
    return `cannot make a network namespace: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** Removes what an earlier run killed before its teardown left: namespaces and the loopback address. */
export async function removeLeftovers(servicesAddress: string): Promise<void> {
  const { stdout } = await ip('netns', 'list');
  for (const line of stdout.split('\n')) {
    const name = line.split(' ')[0];
    if (name?.startsWith(PREFIX)) await ip('netns', 'del', name).catch(() => undefined);
  }
  // A pair outlives its namespace while a process killed late still held it.
  const links = await ip('-o', 'link', 'show');
  for (const match of links.stdout.matchAll(/^\d+: (mrc[^:@]*)[@:]/gm))
    await ip('link', 'del', match[1]!).catch(() => undefined);
  await ip('addr', 'del', `${servicesAddress}/32`, 'dev', 'lo').catch(() => undefined);
}

/** Puts `address` on this machine's loopback interface (the test's services listen there). */
export async function addServicesAddress(address: string): Promise<() => Promise<void>> {
  await ip('addr', 'add', `${address}/32`, 'dev', 'lo');
  return async () => {
    await ip('addr', 'del', `${address}/32`, 'dev', 'lo').catch(() => undefined);
  };
}

/**
 * Host `index` (1..250): namespace mrc<index>, the pair mrc<index>h (this side, 10.231.<index>.1)
 * and mrc<index>n (its side, 10.231.<index>.2).
 */
export async function createTestHost(index: number): Promise<TestHost & { remove(): Promise<void> }> {
  const namespace = `${PREFIX}${index}`;
  const outside = `${PREFIX}${index}h`;
  const inside = `${PREFIX}${index}n`;
  const gatewayAddress = `10.231.${index}.1`;
  const address = `10.231.${index}.2`;
  const inNamespace = (...args: string[]) => ip('netns', 'exec', namespace, 'ip', ...args);
  await ip('netns', 'add', namespace);
  await ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
  await ip('link', 'set', inside, 'netns', namespace);
  await ip('addr', 'add', `${gatewayAddress}/24`, 'dev', outside);
  await ip('link', 'set', outside, 'up');
  await inNamespace('addr', 'add', `${address}/24`, 'dev', inside);
  await inNamespace('link', 'set', inside, 'up');
  await inNamespace('link', 'set', 'lo', 'up');
  await inNamespace('route', 'add', 'default', 'via', gatewayAddress);
  return {
    namespace,
    address,
    gatewayAddress,
    // Deleting the namespace deletes its end of the pair, and with it this end, unless a process
    // still holds the namespace: then this end goes by name.
    remove: async () => {
      await ip('netns', 'del', namespace).catch(() => undefined);
      await ip('link', 'del', outside).catch(() => undefined);
    },
  };
}
