import { isIP } from 'node:net';
import type { TrackingRepository } from './tracking.repository.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * Which Host names are tracking hosts: the configured tracking host, and `<label>.<name>` of
 * every domain that passed verification with that tracking label. The API shares its process
 * with the tracking endpoints, so the common case (the API's own host, an IP literal, a name too
 * short to be `<label>.<domain>`) is answered without the database, and the rest from a small
 * cache that expires quickly (a newly verified domain starts to work within TTL_MS).
 */
export class TrackingHosts {
  private readonly cache = new Map<string, { tracking: boolean; expires: number }>();
  private apiHost: { publicUrl: string; host: string } = { publicUrl: '', host: '' };

  constructor(
    private readonly deps: {
      repository: TrackingRepository;
      trackingHost: string;
      publicUrl: () => string;
      now: () => number;
    },
  ) {}

  async isTrackingHost(hostname: string): Promise<boolean> {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    if (host === this.deps.trackingHost) return true;
    const dot = host.indexOf('.');
    if (dot <= 0 || host.indexOf('.', dot + 1) === -1 || isIP(host) !== 0 || host === this.ownHost()) return false;
    const now = this.deps.now();
    const cached = this.cache.get(host);
    if (cached && cached.expires > now) return cached.tracking;
    const tracking = await this.deps.repository.isTrackingSubdomain(host.slice(dot + 1), host.slice(0, dot));
    // Bounded: a client sending random Host names cannot grow it without limit.
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(host, { tracking, expires: now + TTL_MS });
    return tracking;
  }

  private ownHost(): string {
    const publicUrl = this.deps.publicUrl();
    if (publicUrl !== this.apiHost.publicUrl) {
      this.apiHost = { publicUrl, host: URL.canParse(publicUrl) ? new URL(publicUrl).hostname.toLowerCase() : '' };
    }
    return this.apiHost.host;
  }
}
