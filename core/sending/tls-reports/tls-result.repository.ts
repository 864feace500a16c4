import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { upsertAdding } from '../../../db/dialect.js';
import type { TlsPolicyType } from './tls-result.types.js';

/** One aggregated row: a day, a policy and an outcome, and how many sessions had it. */
export type TlsResultCount = {
  day: string;
  policyDomain: string;
  policyType: TlsPolicyType;
  policyString: string[];
  mxHost: string | null;
  /** 'success', or an RFC 8460 result-type. */
  resultType: string;
  sendingIp: string | null;
  receivingMxHostname: string | null;
  receivingIp: string | null;
  additionalInfo: string | null;
  sessions: number;
};

/** The row's identity: every dimension but the count. */
export function rowKey(row: Omit<TlsResultCount, 'sessions'>): string {
  const parts = [
    row.day,
    row.policyDomain,
    row.policyType,
    JSON.stringify(row.policyString),
    row.mxHost,
    row.resultType,
    row.sendingIp,
    row.receivingMxHostname,
    row.receivingIp,
    row.additionalInfo,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

type Row = {
  day: string;
  policy_domain: string;
  policy_type: string;
  policy_string: string;
  mx_host: string | null;
  result_type: string;
  sending_ip: string | null;
  receiving_mx_hostname: string | null;
  receiving_ip: string | null;
  additional_info: string | null;
  sessions: number | string;
};

/** The tls_results table: counts added in batches, read per day for the reports. */
export class TlsResultRepository {
  constructor(private readonly knex: Knex) {}

  /** Adds the counts to the rows of the same key (several MTA processes add to one row). */
  async add(counts: TlsResultCount[], now: Date): Promise<void> {
    const rows = counts.map((count) => ({
      row_key: rowKey(count),
      day: count.day,
      policy_domain: count.policyDomain,
      policy_type: count.policyType,
      policy_string: JSON.stringify(count.policyString),
      mx_host: count.mxHost,
      result_type: count.resultType,
      sending_ip: count.sendingIp,
      receiving_mx_hostname: count.receivingMxHostname,
      receiving_ip: count.receivingIp,
      additional_info: count.additionalInfo,
      sessions: count.sessions,
      updated_at: now,
    }));
    // Bounded statements: SQLite allows 999 variables in older builds (13 columns a row).
    // One transaction: a failed batch is kept and retried whole, so no part of it is counted twice.
    await this.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 50)
        await upsertAdding(trx, 'tls_results', rows.slice(i, i + 50), ['row_key'], ['sessions']);
    });
  }

  /** The policy domains with results on a day. */
  async domainsOn(day: string): Promise<string[]> {
    const rows = (await this.knex('tls_results')
      .where({ day })
      .distinct('policy_domain')
      .orderBy('policy_domain')) as Array<{
      policy_domain: string;
    }>;
    return rows.map((row) => row.policy_domain);
  }

  async countsFor(day: string, policyDomain: string): Promise<TlsResultCount[]> {
    const rows = (await this.knex('tls_results')
      .where({ day, policy_domain: policyDomain })
      .orderBy('row_key')) as Row[];
    return rows.map((row) => ({
      day: row.day,
      policyDomain: row.policy_domain,
      policyType: row.policy_type as TlsPolicyType,
      policyString: JSON.parse(row.policy_string) as string[],
      mxHost: row.mx_host,
      resultType: row.result_type,
      sendingIp: row.sending_ip,
      receivingMxHostname: row.receiving_mx_hostname,
      receivingIp: row.receiving_ip,
      additionalInfo: row.additional_info,
      sessions: Number(row.sessions),
    }));
  }

  /** Deletes the rows of days before `day` (YYYY-MM-DD sorts as text), a batch at a time. */
  async purgeBefore(day: string): Promise<number> {
    let total = 0;
    for (;;) {
      const keys = (await this.knex('tls_results').where('day', '<', day).limit(1000).pluck('row_key')) as string[];
      if (keys.length === 0) return total;
      total += await this.knex('tls_results').whereIn('row_key', keys).delete();
    }
  }
}
