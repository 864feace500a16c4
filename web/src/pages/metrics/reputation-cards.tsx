import { Badge, type Tone } from '../../ui/badge';
import { formatPercent } from './metric-format';

/**
 * Bounce and complaint rates against the levels mailbox providers and relays watch (the usual
 * industry guidance: bounces warn at 5 % and put sending at risk at 10 %; complaints at 0.1 % and
 * 0.5 %). The appliance itself enforces neither: these are a sender's early warning. The level is
 * said in words beside its colour.
 */
type Level = { tone: Tone; word: string; advice: string };

export const REPUTATION = {
  bounce: { warning: 0.05, risk: 0.1 },
  complaint: { warning: 0.001, risk: 0.005 },
} as const;

export function levelOf(rate: number, thresholds: { warning: number; risk: number }): Level {
  if (rate >= thresholds.risk)
    return {
      tone: 'bad',
      word: 'At risk',
      advice: 'Providers may block this mail: find the cause before sending more.',
    };
  if (rate >= thresholds.warning)
    return { tone: 'warn', word: 'Warning', advice: 'Above the warning level: look at which addresses and why.' };
  return { tone: 'good', word: 'Healthy', advice: 'Below the warning level.' };
}

export function ReputationCards({ bounceRate, complaintRate }: { bounceRate: number; complaintRate: number }) {
  return (
    <div className="grid-2 reputation">
      <ReputationCard
        name="Bounce rate"
        kind="bounce"
        rate={bounceRate}
        thresholds={REPUTATION.bounce}
        what="Bounced emails out of those sent."
      />
      <ReputationCard
        name="Complaint rate"
        kind="complaint"
        rate={complaintRate}
        thresholds={REPUTATION.complaint}
        what="Recipients who marked an email as spam, out of those sent."
      />
    </div>
  );
}

function ReputationCard({
  name,
  kind,
  rate,
  thresholds,
  what,
}: {
  name: string;
  kind: string;
  rate: number;
  thresholds: { warning: number; risk: number };
  what: string;
}) {
  const level = levelOf(rate, thresholds);
  return (
    <section className={`card reputation-card reputation-${level.tone}`} aria-labelledby={`reputation-${kind}`}>
      <h2 id={`reputation-${kind}`}>{name}</h2>
      <p className="reputation-value">
        <span className="stat-value">{formatPercent(rate)}</span> <Badge tone={level.tone}>{level.word}</Badge>
      </p>
      <p className="muted">
        {what} {level.advice}
      </p>
      <p className="reputation-thresholds">
        Warning at {formatPercent(thresholds.warning)}, at risk at {formatPercent(thresholds.risk)}.
      </p>
    </section>
  );
}
