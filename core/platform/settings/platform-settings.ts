import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';

/** How long a node may act on a switch's old value after another node flipped it. */
const CACHE_MS = 2000;

/**
 * Run-time switches shared by every node through the database (a Redis-less appliance has no
 * other shared store): read with a short cache, written by the CLI. A switch never set reads
 * as the configured default.
 */
export class PlatformSettings {
  private readonly cache = new Map<string, { value: string | null; until: number }>();

  constructor(private readonly deps: { knex: Knex; clock: Clock }) {}

  async get(key: string): Promise<string | null> {
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached.value;
    const row = (await this.deps.knex('platform_settings').where({ key }).first('value')) as
      { value: string } | undefined;
    const value = row?.value ?? null;
    this.cache.set(key, { value, until: now + CACHE_MS });
    return value;
  }

  async set(key: string, value: string): Promise<void> {
    const updated_at = this.deps.clock.now();
    await this.deps.knex('platform_settings').insert({ key, value, updated_at }).onConflict('key').merge();
    this.cache.delete(key);
  }

  /** Marketing sends (broadcasts) on platform-wide: the switch, else the configured default. */
  async marketingEnabled(configured: boolean): Promise<boolean> {
    const value = await this.get('marketing.enabled');
    return value === null ? configured : value === 'true';
  }
}
