import { Resolver } from 'node:dns/promises';

/** `(name, rrtype) => records`, the resolver shape mailauth takes, on the configured servers. */
export type RecordResolver = (name: string, rrtype: string) => Promise<string[][] | string[]>;

export function createRecordResolver(options: { servers: string[]; timeoutMs: number }): RecordResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 1 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
}
