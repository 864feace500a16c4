import type { Knex } from 'knex';
import type { FileBlobStore } from '../../../lib/blob-store.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';

export type Check = { name: string; ok: boolean; durationMs: number; error?: string };
export type Health = { status: 'ok'; version: string; env: string };
export type Readiness = { status: 'ok' | 'degraded'; version: string; env: string; checks: Check[]; failed: string[] };

const CHECK_TIMEOUT_MS = 2000;

export class ReadinessService {
  constructor(
    private readonly deps: { knex: Knex; kv: KeyValueStore; blobs: FileBlobStore; version: string; env: string },
  ) {}

  health(): Health {
    return { status: 'ok', version: this.deps.version, env: this.deps.env };
  }

  async ready(): Promise<Readiness> {
    const checks = await Promise.all([
      this.run('database', async () => {
        await this.deps.knex.raw('select 1');
      }),
      this.run(this.deps.kv.kind === 'redis' ? 'redis' : 'kv_memory', () => this.deps.kv.ping()),
      this.run('spool', () => this.deps.blobs.checkWritable()),
    ]);
    const failed = checks.filter((check) => !check.ok).map((check) => check.name);
    return {
      status: failed.length === 0 ? 'ok' : 'degraded',
      version: this.deps.version,
      env: this.deps.env,
      checks,
      failed,
    };
  }

  private async run(name: string, probe: () => Promise<void>): Promise<Check> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
        }),
      ]);
      return { name, ok: true, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      return { name, ok: false, durationMs: Math.round(performance.now() - started), error: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }
}
