import type { DNSResolver } from 'mailauth';

/**
 * DNS answers for mailauth kept briefly: SPF, DKIM and DMARC of one message ask for some of the
 * same names (the SPF record, the DMARC record of the From domain and of its organizational
 * domain), and a burst of mail from one sender asks for the same few records again and again:
 * every look-up is a UDP round trip and a good share of a message's CPU. The resolver mailauth is
 * given does not return TTLs, so an answer is kept for `ttlMs` (a short bound well under the TTLs
 * senders publish) and then asked again. "No such name" and "no such record" are answers and are
 * kept too; any other failure (a timeout, SERVFAIL) is not: the next message asks again.
 * Concurrent look-ups of one name share one query.
 */
export function cachingResolver(
  resolve: DNSResolver,
  options: { ttlMs: number; maxEntries: number; now?: () => number },
): DNSResolver {
  const now = options.now ?? Date.now;
  const answers = new Map<string, { until: number; answer: Promise<unknown> }>();
  const cached = (name: string, rrtype: string): Promise<unknown> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = answers.get(key);
    if (hit && hit.until > now()) return hit.answer;
    if (hit) answers.delete(key);
    const answer = resolve(name, rrtype);
    answers.set(key, { until: now() + options.ttlMs, answer });
    // Oldest first: a Map iterates in insertion order.
    if (answers.size > options.maxEntries) answers.delete(answers.keys().next().value!);
    answer.catch((err: unknown) => {
      if (!isNegativeAnswer(err) && answers.get(key)?.answer === answer) answers.delete(key);
    });
    return answer;
  };
  return cached as DNSResolver;
}

/** The name or the record type does not exist: an answer, as cacheable as a record. */
function isNegativeAnswer(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA';
}
