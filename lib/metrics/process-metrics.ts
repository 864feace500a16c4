import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DomainLabels } from './bounded-labels.js';

/** A value read from the database (or elsewhere) when Prometheus scrapes, not kept up to date in between. */
export type ScrapeCollector = () => Promise<void>;

/**
 * The Prometheus metrics of one process (`mailroom start` is one process: one set). Counters and
 * histograms are updated where things happen (the API, the inbound bridge); gauges that describe
 * stored state (queue depth, outbox depth) are read at scrape time by the collectors the process
 * registers, so an idle appliance costs nothing. Labels are bounded: route templates (not paths),
 * status codes, a few fixed outcome names.
 */
export class ProcessMetrics {
  readonly registry = new Registry();
  private readonly collectors: ScrapeCollector[] = [];

  readonly apiRequestSeconds = new Histogram({
    name: 'mailroom_api_request_duration_seconds',
    help: 'API requests by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'mailroom_api_rate_limited_total',
    help: 'Requests refused with 429 by the rate limit',
    registers: [this.registry],
  });

  readonly inboundMessages = new Counter({
    name: 'mailroom_inbound_messages_total',
    help: 'Messages the inbound MX handed over, by outcome (accepted: stored before the 250; failed: answered 451)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly inboundRecipients = new Counter({
    name: 'mailroom_inbound_recipients_total',
    help: 'RCPT decisions of the inbound MX: mailbox, bounce (VERP), feedback, unsubscribe (a broadcast mailto), refused (550), failed (451)',
    labelNames: ['decision'] as const,
    registers: [this.registry],
  });

  readonly queueDeliveries = new Gauge({
    name: 'mailroom_queue_deliveries',
    help: 'Deliveries in the outbound queue (not settled) by state and lane (read at scrape)',
    labelNames: ['state', 'lane'] as const,
    registers: [this.registry],
  });

  readonly queueOldestDueSeconds = new Gauge({
    name: 'mailroom_queue_oldest_due_age_seconds',
    help: 'Age of the oldest delivery that is due and not yet attempted or retried (read at scrape)',
    registers: [this.registry],
  });

  readonly webhookOutbox = new Gauge({
    name: 'mailroom_webhook_outbox_deliveries',
    help: 'Webhook deliveries waiting to be posted (read at scrape)',
    registers: [this.registry],
  });

  readonly deliveryOutcomes = new Counter({
    name: 'mailroom_deliveries_total',
    help: 'Delivery attempts by outcome (delivered, bounced, deferred, expired: bounced after the maximum queue time), per recipient',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly smtpReplies = new Counter({
    name: 'mailroom_smtp_replies_total',
    help: 'Replies of remote servers by class (2xx, 4xx, 5xx; connection: no reply) and destination domain (large providers, the first 30 others, then other)',
    labelNames: ['class', 'domain'] as const,
    registers: [this.registry],
  });

  /** Bounded values for the `domain` label of smtpReplies. */
  readonly destinationLabels = new DomainLabels();

  readonly dkimSignSeconds = new Histogram({
    name: 'mailroom_dkim_sign_duration_seconds',
    help: 'Time to DKIM-sign one message (all its signatures)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'mailroom_webhook_attempts_total',
    help: 'Webhook deliveries worked on, by what became of them (success, attempting: failed and retried, failed, dropped: endpoint deleted)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly dnsErrors = new Counter({
    name: 'mailroom_dns_lookup_errors_total',
    help: 'DNS look-ups that failed temporarily (SERVFAIL, refused, time-out), by record type and error code',
    labelNames: ['type', 'code'] as const,
    registers: [this.registry],
  });

  readonly databasePool = new Gauge({
    name: 'mailroom_database_pool_connections',
    help: "The database pool's connections by state (used, free, pending: requests waiting for one; read at scrape)",
    labelNames: ['state'] as const,
    registers: [this.registry],
  });

  readonly shapingActions = new Counter({
    name: 'mailroom_shaping_actions_total',
    help: 'Traffic-shaping actions taken in reaction to receivers (slow, pause, suspend_marketing), by provider (rule name, or `other` for a single domain)',
    labelNames: ['action', 'provider'] as const,
    registers: [this.registry],
  });

  readonly shapingWaits = new Counter({
    name: 'mailroom_shaping_waits_total',
    help: 'Deliveries put back to wait by traffic shaping, without an attempt, by reason (pause, suspended, connections, rate, warmup)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly warmupSentToday = new Gauge({
    name: 'mailroom_ip_warmup_sent_today',
    help: 'Messages a warming address sent today to a provider (read at scrape), against mailroom_ip_warmup_allowance_today',
    labelNames: ['ip', 'provider'] as const,
    registers: [this.registry],
  });

  readonly warmupAllowanceToday = new Gauge({
    name: 'mailroom_ip_warmup_allowance_today',
    help: "A warming address's allowance today per provider (read at scrape)",
    labelNames: ['ip', 'provider'] as const,
    registers: [this.registry],
  });

  readonly warmupDay = new Gauge({
    name: 'mailroom_ip_warmup_day',
    help: 'The day of its schedule a warming address is on (read at scrape)',
    labelNames: ['ip'] as const,
    registers: [this.registry],
  });

  readonly scrapeErrors = new Counter({
    name: 'mailroom_metrics_scrape_errors_total',
    help: 'Collectors that failed during a scrape (their gauges keep the last value)',
    registers: [this.registry],
  });

  private defaultsOn = false;

  /**
   * Names the process in every series (`process="api"`, `"start"`...) and adds prom-client's
   * process metrics (CPU, memory, open files, event-loop lag, GC): done when the process serves
   * its metrics, not for every runtime (a CLI command or a test builds one too).
   */
  serveAs(process: string): void {
    this.registry.setDefaultLabels({ process });
    if (this.defaultsOn) return;
    this.defaultsOn = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'mailroom_' });
  }

  onScrape(collector: ScrapeCollector): void {
    this.collectors.push(collector);
  }

  /** The exposition text, after every collector has refreshed its gauges. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    await Promise.all(this.collectors.map((collect) => collect().catch(() => this.scrapeErrors.inc())));
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
