import type { DmarcRowAggregate } from './dmarc-report.repository.js';

export type DmarcSource = {
  ip: string;
  count: number;
  /** Shares (0..1) of this source's messages whose SPF / DKIM result was aligned and passed. */
  spfAlignedRate: number;
  dkimAlignedRate: number;
  /** DMARC passed: SPF or DKIM aligned and passed. */
  dmarcPassRate: number;
  ours: boolean;
};

export type DmarcSummary = {
  from: Date;
  to: Date;
  messages: number;
  spfAlignedRate: number;
  dkimAlignedRate: number;
  dmarcPassRate: number;
  sources: DmarcSource[];
  days: Array<{ date: string; count: number; dmarcPass: number }>;
  /** Sources that are not our egress addresses and failed DMARC for some of their mail: spoofing, or a forgotten sender. */
  unknownSenders: Array<{ ip: string; count: number; failed: number }>;
};

type Tally = { count: number; spf: number; dkim: number; dmarc: number };
const empty = (): Tally => ({ count: 0, spf: 0, dkim: 0, dmarc: 0 });
const rate = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

function add(tally: Tally, row: DmarcRowAggregate): void {
  const spf = row.spf === 'pass';
  const dkim = row.dkim === 'pass';
  tally.count += row.count;
  if (spf) tally.spf += row.count;
  if (dkim) tally.dkim += row.count;
  if (spf || dkim) tally.dmarc += row.count;
}

/** Folds the stored rows of a date range into what the domain owner reads: who sends as the domain, and how well. */
export function summarize(
  rows: DmarcRowAggregate[],
  range: { from: Date; to: Date },
  isOurs: (ip: string) => boolean,
): DmarcSummary {
  const total = empty();
  const bySource = new Map<string, Tally>();
  const byDay = new Map<string, Tally>();
  for (const row of rows) {
    add(total, row);
    const source = bySource.get(row.sourceIp) ?? empty();
    add(source, row);
    bySource.set(row.sourceIp, source);
    const day = byDay.get(row.day) ?? empty();
    add(day, row);
    byDay.set(row.day, day);
  }
  const sources = [...bySource.entries()]
    .map(([ip, t]) => ({
      ip,
      count: t.count,
      spfAlignedRate: rate(t.spf, t.count),
      dkimAlignedRate: rate(t.dkim, t.count),
      dmarcPassRate: rate(t.dmarc, t.count),
      ours: isOurs(ip),
    }))
    .sort((a, b) => b.count - a.count || a.ip.localeCompare(b.ip));
  return {
    ...range,
    messages: total.count,
    spfAlignedRate: rate(total.spf, total.count),
    dkimAlignedRate: rate(total.dkim, total.count),
    dmarcPassRate: rate(total.dmarc, total.count),
    sources,
    days: [...byDay.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([date, t]) => ({ date, count: t.count, dmarcPass: t.dmarc })),
    unknownSenders: sources
      .filter((source) => !source.ours && source.dmarcPassRate < 1)
      .map((source) => ({
        ip: source.ip,
        count: source.count,
        failed: bySource.get(source.ip)!.count - bySource.get(source.ip)!.dmarc,
      })),
  };
}
