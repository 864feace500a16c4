import { z } from 'zod';

/**
 * The whole configuration of a Mailroom node: one schema, every default commented here.
 * Sources, later winning: these defaults, the JSON config file, MAILROOM_* environment variables
 * (see ENV_OVERRIDES). `mailroom config print` shows the result with secrets masked.
 */
/** One egress address of a region's IP pool. */
const egressAddress = z.union([
  z.string().min(1),
  z
    .object({
      address: z.string().min(1),
      helo: z.string().min(1).optional(),
      weight: z.number().int().min(1).max(100).default(1),
    })
    .strict(),
]);
/** A zone on the operator's own primary DNS server that accepts TSIG-signed updates from us. */
const dnsUpdateZone = z
  .object({
    /** The zone apex, e.g. example.com. */
    zone: z
      .string()
      .min(1)
      .transform((zone) => zone.toLowerCase().replace(/\.$/, '')),
    /** The primary server's address (the one that accepts updates). */
    server: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(53),
    /** The TSIG key's name, as in the server's `key "<name>"` statement. */
    keyName: z.string().min(1),
    keyAlgorithm: z.enum(['hmac-sha256']).default('hmac-sha256'),
    keySecretFile: z.string().min(1),
    /** TTL of the records published, in seconds. */
    ttl: z.number().int().min(60).max(86400).default(3600),
  })
  .strict();
/** What a provider tolerates from one sending address (see core/sending/shaping/shaping.types.ts). */
const shapingLimits = z
  .object({
    maxConnections: z.number().int().min(1).max(1000).optional(),
    messagesPerConnection: z.number().int().min(1).optional(),
    messagesPerHour: z.number().int().min(1).optional(),
    pacingMs: z.number().int().min(0).max(60_000).optional(),
    tlsRequired: z.boolean().optional(),
  })
  .strict();

const shapingProviderRule = shapingLimits
  .extend({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/),
    mx: z.array(z.string().min(1)).min(1),
    source: z.string().default('operator configuration'),
  })
  .strict();

const shapingReactionRule = z
  .object({
    id: z.string().min(1),
    providers: z.array(z.string()).optional(),
    codes: z.array(z.number().int().min(200).max(599)).optional(),
    enhanced: z.array(z.string().regex(/^[245]\.\d{1,3}\.\d{1,3}$/)).optional(),
    text: z.string().optional(),
    action: z.enum(['slow', 'pause']),
    pauseSeconds: z.number().int().min(1).optional(),
    message: z.enum(['defer', 'classify']).optional(),
    source: z.string().default('operator configuration'),
    example: z.string().default(''),
  })
  .strict();

const regionPool = z
  .object({ ips: z.array(egressAddress).min(1).default(['127.0.0.1']) })
  .strict()
  .prefault({});

export const configSchema = z
  .object({
    /** development relaxes the master-key rule and logs prettier; production is strict. */
    env: z.enum(['development', 'test', 'production']).default('development'),
    /** pino level: fatal, error, warn, info, debug, trace, silent. */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Spool, uploads and the embedded SQLite file live here. */
    dataDir: z.string().min(1).default('./data'),
    /**
     * Encrypts secrets at rest (DKIM private keys, webhook secrets). 32+ characters.
     * Optional in development only; start-up refuses a production node without one.
     */
    masterKey: z.string().min(32).optional(),
    database: z
      .object({
        /** sqlite://./relative.sqlite, sqlite:///absolute/path.sqlite or mysql://user:pass@host:3306/db */
        url: z.string().min(1).default('sqlite://./data/mailroom.sqlite'),
        /** Connection pool size per process (MySQL only; SQLite uses one writer). */
        poolMax: z.number().int().min(1).max(200).default(10),
        /**
         * MariaDB Galera: the session's wsrep_sync_wait on every connection (1 = reads wait until
         * this member has applied every write the cluster committed before them). Nodes behind one
         * load balancer need 1, so that a resource created through one node is found through the
         * next (docs/operating/cluster.md). Unset: the server's setting.
         */
        wsrepSyncWait: z.number().int().min(0).max(15).optional(),
      })
      .strict()
      .prefault({}),
    spool: z
      .object({
        /**
         * Copy every spool record (accepted mail, received raw mail) into the database before
         * answering, so that every node can read what any node accepted: needed with several
         * nodes (an MTA sends what another node's API accepted; a node lost for good loses no
         * mail). One node: off (the records are on this node's disk only).
         */
        copyToDatabase: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    redis: z
      .object({
        /** redis://host:6379/0. Unset: the in-process implementation (single node only). */
        url: z.string().min(1).optional(),
        /** Prefix for every key, so several appliances can share one Redis. */
        keyPrefix: z.string().default('mailroom:'),
        /**
         * Redis Sentinel: the sentinels as host:port. Set: the node asks them which Redis is the
         * primary of the group `name` and follows a failover (redis.url is then not used).
         */
        sentinels: z
          .array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'host:port'))
          .min(1)
          .optional(),
        /** The Sentinel group (the name in `sentinel monitor <name> ...`). */
        name: z.string().min(1).default('mailroom'),
        /** The primary's and replicas' password when sentinels are set (with redis.url, the URL carries it). */
        password: z.string().min(1).optional(),
        /** The sentinels' own password (requirepass in sentinel.conf), when they have one. */
        sentinelPassword: z.string().min(1).optional(),
        /** The database number when sentinels are set. */
        db: z.number().int().min(0).max(15).default(0),
      })
      .strict()
      .prefault({}),
    api: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(3000),
        /** Public base URL of this API, used in links it hands out (brand-kit upload URLs). */
        publicUrl: z.string().url().optional(),
        /** Trust X-Forwarded-For from a reverse proxy in front of the API. */
        trustProxy: z.boolean().default(false),
        /** Requests per second per team (token bucket of the same size). The spec's value is 10. */
        rateLimitPerSecond: z.number().int().min(1).max(100000).default(10),
        /** Largest request body accepted, in bytes (sends carry attachments). */
        maxBodyBytes: z
          .number()
          .int()
          .min(1024)
          .default(50 * 1024 * 1024),
        /**
         * How long an API process keeps a looked-up API key, team or verified domain, in ms. A
         * change made in the same process (or another API worker of it) applies at the next
         * request; one made elsewhere (the command line, another node, the scheduler) within this
         * long. 0 turns the cache off.
         */
        lookupCacheMs: z.number().int().min(0).max(60_000).default(1000),
        /**
         * API worker processes sharing the port (node:cluster), for multi-core machines; each has
         * its own database pool (database.poolMax). More than 1 needs MySQL and Redis, which the
         * workers share (rate limits are kept in Redis).
         */
        workers: z.number().int().min(1).max(64).default(1),
      })
      .strict()
      .prefault({}),
    dashboard: z
      .object({
        /**
         * A listen address of the dashboard's own (with `port`): the api process then also serves
         * the dashboard (and the API it calls) there, for example on an address only a VPN or an
         * office network reaches. Unset: the dashboard is served under /dashboard/ on the API's
         * address only.
         */
        host: z.string().min(1).optional(),
        /** The dashboard's own port (0 picks a free one); set it to open that listener. */
        port: z.number().int().min(0).max(65535).optional(),
        /**
         * The dashboard's public base URL when it has its own address (behind a proxy: the URL
         * people open). Mailed links (sign-in, invitations) use it, and cookie-authenticated writes
         * are accepted from its origin as from api.publicUrl's. Unset: the listener's own URL.
         */
        publicUrl: z.string().url().optional(),
        /** The built dashboard (index.html and assets/). Unset: dist/web of this release. */
        dir: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    mta: z
      .object({
        /** The MTA's own host name: HELO name, and the bounce (return-path) MX target. */
        hostname: z.string().min(1).default('mail.mailroom.localhost'),
        /**
         * Egress addresses of each sending region's IP pool: a plain address (HELO is
         * `hostname`, weight 1) or { address, helo, weight }. SPF records published for a domain
         * list every address of its region; a message leaves from one picked by a stable hash.
         */
        regions: z
          .object({
            'us-east-1': regionPool,
            'eu-west-1': regionPool,
            'sa-east-1': regionPool,
            'ap-northeast-1': regionPool,
          })
          .strict()
          .prefault({}),
        /** Egress addresses taken out of every pool by the operator (the pool keeps sending). */
        disabledIps: z.array(z.string().min(1)).default([]),
        /** Port of the recipients' mail servers: 25; tests point it at their sinks. */
        port: z.number().int().min(1).max(65535).default(25),
        /**
         * Deliveries one mta process works on at once. Most of them wait on I/O (a claim, a
         * connection, the settle commit), and a claim carries concurrency / perDestination
         * deliveries (10 with the defaults). Fresh mail needs no claim (the worker that hands
         * it over keeps what fits in its free slots), so claims mostly carry retries and mail
         * another worker handed over; 200 keeps every connection to a busy destination fed.
         */
        concurrency: z.number().int().min(1).max(1000).default(200),
        /**
         * Connections at once to one destination domain, per mta process. 20 is Postfix's
         * default_destination_concurrency_limit; in the MTA benchmark it moved more mail than 5
         * with the same CPU (a busy destination's messages keep flowing on other connections
         * while a claim's messages are read and signed). Lower it for receivers that limit
         * connections per client address.
         */
        perDestinationConcurrency: z.number().int().min(1).max(100).default(20),
        /**
         * Addresses of a destination's MX hosts tried in one attempt, in preference order, and
         * how many of them may take a connection that then ends before every message is sent
         * (Postfix's smtp_mx_address_limit and smtp_mx_session_limit). A domain publishing many
         * unreachable MX hosts would otherwise hold a connection slot for minutes per attempt.
         */
        mxAddressLimit: z.number().int().min(1).max(100).default(5),
        mxSessionLimit: z.number().int().min(1).max(100).default(2),
        /**
         * MX and address answers reused this long by the delivery worker (0: every claim asks the
         * resolver), and how old an answer may be to stand in while the resolver fails
         * temporarily (serve-stale). Node's resolver does not report MX TTLs; keep this below them.
         */
        dnsCacheMs: z.number().int().min(0).max(300_000).default(10_000),
        dnsStaleMs: z.number().int().min(0).max(86_400_000).default(600_000),
        /** A claimed delivery whose worker died is taken back after this long. */
        leaseMs: z
          .number()
          .int()
          .min(1000)
          .default(5 * 60_000),
        /** How often an idle worker looks for work (new mail also wakes it at once in-process). */
        pollMs: z.number().int().min(10).max(60_000).default(1000),
        /**
         * Delays before each retry of a temporary failure, in seconds; the last repeats. A
         * message still undelivered after maxQueueSeconds bounces.
         */
        retrySchedule: z.array(z.number().min(0)).min(1).default([60, 300, 900, 1800, 3600, 7200, 14400, 28800]),
        maxQueueSeconds: z
          .number()
          .int()
          .min(1)
          .default(3 * 24 * 3600),
        /** Timeouts of the SMTP conversation, in milliseconds. */
        connectTimeoutMs: z.number().int().min(100).default(30_000),
        greetingTimeoutMs: z.number().int().min(100).default(30_000),
        socketTimeoutMs: z.number().int().min(100).default(120_000),
        /** With a domain's tls = enforced: also verify the server's certificate (against caFile or the system CAs). */
        verifyEnforcedTls: z.boolean().default(true),
        /** PEM file of extra CAs trusted for enforced TLS (a private relay; tests). */
        tlsCaFile: z.string().min(1).optional(),
        /**
         * MTA-STS (RFC 8461) for outbound mail: a destination's published policy is fetched over
         * HTTPS (system CAs plus tlsCaFile), cached for its max_age, and honoured: `enforce`
         * delivers only to matching MX hosts with a valid certificate (otherwise deferred),
         * `testing` delivers and reports. A sending domain with tls = enforced keeps its own rule.
         */
        mtaSts: z
          .object({
            /** Off: destinations' MTA-STS policies are neither fetched nor honoured. */
            enabled: z.boolean().default(true),
            /** Port of the policy host (https://mta-sts.<domain>/): 443; tests point it elsewhere. */
            port: z.number().int().min(1).max(65535).default(443),
            /** How long a policy fetch may take; a failed fetch keeps a cached policy in force. */
            fetchTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
          })
          .strict()
          .prefault({}),
        /**
         * DANE (RFC 7672) for outbound mail: validating resolvers ("host:port") asked for the
         * MX hosts' TLSA records with the DO bit; only answers they mark authenticated (AD) count.
         * Empty: DANE is off (a resolver that does not validate DNSSEC must not be listed).
         */
        dane: z
          .object({
            resolvers: z.array(z.string().min(1)).default([]),
            /** How long a TLSA look-up may take per resolver; no answer defers mail to that MX. */
            timeoutMs: z.number().int().min(100).max(30_000).default(5000),
          })
          .strict()
          .prefault({}),
        /** SMTP transcripts of attempts: bytes kept per attempt, and days kept. */
        transcriptMaxBytes: z
          .number()
          .int()
          .min(256)
          .max(1024 * 1024)
          .default(16 * 1024),
        transcriptRetentionDays: z.number().int().min(1).default(14),
        /** Rejections that look like blocklisting, from one destination, before an address is rested there. */
        blockThreshold: z.number().int().min(1).default(3),
        /** How long an address rests from a destination that blocklisted it. */
        blockRestSeconds: z
          .number()
          .int()
          .min(60)
          .default(6 * 3600),
        /**
         * Traffic shaping per mailbox provider (docs/operating/deliverability.md): limits per
         * sending address and provider, and reactions to the replies that say "slow down".
         */
        shaping: z
          .object({
            /** Off: only perDestinationConcurrency limits what goes where. */
            enabled: z.boolean().default(true),
            /**
             * Rules added to (or, by the same name, replacing) the built-in provider rules
             * (core/sending/shaping/provider-rules.data.ts): { name, mx: [host suffixes],
             * maxConnections, messagesPerConnection, messagesPerHour, pacingMs, tlsRequired, source }.
             */
            providers: z.array(shapingProviderRule).default([]),
            /** Limits for destinations no provider rule matches (each domain counts alone). */
            default: shapingLimits.prefault({}),
            /** Reaction rules tried before the built-in ones (core/sending/shaping/reply-reactions.data.ts). */
            reactions: z.array(shapingReactionRule).default([]),
            /** A slowed provider gets back double its share after this long without another such reply. */
            restoreSeconds: z.number().int().min(1).default(600),
            /** Slowing below this share of the limits pauses instead. */
            minimumFactor: z.number().min(0.001).max(1).default(0.125),
            /** How long a pause lasts when its rule names no duration (and after slowing bottoms out). */
            pauseSeconds: z.number().int().min(1).default(900),
            /** Replies within this long of the last action for the same provider and address add no new one. */
            settleSeconds: z.number().int().min(0).default(60),
            /**
             * A team's marketing (broadcast) mail to a provider is suspended for suspendHours when
             * its complaint rate there over the last day passes this share, with at least
             * minimumDelivered messages delivered.
             */
            complaintRate: z.number().min(0).max(1).default(0.003),
            minimumDelivered: z.number().int().min(1).default(1000),
            suspendHours: z.number().min(0.01).default(24),
          })
          .strict()
          .prefault({}),
        /**
         * IP warm-up: an address marked as warming (`mailroom ip warmup start`) sends no more than
         * its day's allowance per provider; the rest leaves from warm addresses of its pool, or waits.
         */
        warmup: z
          .object({
            /** Day-by-day messages per provider, replacing the built-in table for the providers named (`default`: all others). */
            schedule: z.record(z.string(), z.array(z.number().int().min(0)).min(1)).default({}),
            /** Share of a day's allowance broadcast mail may take: the rest is kept for transactional mail. */
            bulkShare: z.number().min(0).max(1).default(0.8),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    inbound: z
      .object({
        /** MX target published for receiving domains (the inbound MX of this appliance). */
        mxHost: z.string().min(1).default('inbound.mailroom.localhost'),
        /** Address the Haraka MX listens on (`mailroom inbound`, and `mailroom start`). */
        host: z.string().min(1).default('127.0.0.1'),
        /** SMTP port of the MX: 25 in production, 2525 otherwise; 0 picks a free port (tests). */
        port: z.number().int().min(0).max(65535).optional(),
        /** PEM certificate chain and key offered with STARTTLS; without them the MX speaks plain SMTP only. */
        certFile: z.string().min(1).optional(),
        keyFile: z.string().min(1).optional(),
        /** Largest message accepted; a larger one is refused at the end of DATA. */
        maxMessageBytes: z
          .number()
          .int()
          .min(1024)
          .default(40 * 1024 * 1024),
        /** Recipients accepted per message; more get 452 4.5.3 (the sender sends them again). */
        maxRecipients: z.number().int().min(1).default(100),
        /** Simultaneous connections from one client address; more are refused with 421 until one closes. */
        maxConnectionsPerClient: z.number().int().min(1).default(20),
        /** Feedback-loop addresses (ARF complaints arrive here); empty: fbl@<mta.hostname>. */
        fblAddresses: z.array(z.email()).default([]),
        /** Where the Haraka process and its config live at run time; default <dataDir>/inbound. */
        runDir: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    dmarcReports: z
      .object({
        /**
         * Local part of the DMARC aggregate report address published as each sending domain's
         * rua: `mailto:<localPart>+<domain id>@<inbound.mxHost>`.
         */
        localPart: z
          .string()
          .regex(/^[a-z0-9][a-z0-9._-]*$/i, 'letters, digits, dot, dash and underscore')
          .default('dmarc-reports'),
        /** Largest report message accepted (compressed); larger ones are refused at the end of DATA (554 5.6.0). */
        maxReportBytes: z
          .number()
          .int()
          .min(1024)
          .default(10 * 1024 * 1024),
        /** Largest report after decompression (gzip/zip bombs stop here; the report is recorded as failed). */
        maxXmlBytes: z
          .number()
          .int()
          .min(1024)
          .default(50 * 1024 * 1024),
        /** Rows (<record>) read from one report; more and the report is recorded as failed. */
        maxRecords: z.number().int().min(1).default(50_000),
        /** Days a received report is kept. */
        retentionDays: z.number().int().min(1).default(180),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        /** Serve Prometheus metrics (`GET /metrics`) from each process on its own listen address. */
        enabled: z.boolean().default(true),
        /** Address of the metrics endpoint: never the public API's. */
        host: z.string().min(1).default('127.0.0.1'),
        /** Port of the metrics endpoint; one per process (the systemd units give each its own); 0 picks a free one. */
        port: z.number().int().min(0).max(65535).default(9464),
      })
      .strict()
      .prefault({}),
    doctor: z
      .object({
        /** DNS block lists `mailroom doctor` looks each egress address up in (Spamhaus ZEN, Barracuda, SpamCop). */
        dnsblZones: z
          .array(z.string().min(1))
          .default(['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net']),
      })
      .strict()
      .prefault({}),
    /**
     * SMTP TLS reporting (RFC 8460): the MTA counts its outbound TLS sessions per destination
     * policy, and a daily job sends each destination that publishes `_smtp._tls` its report.
     */
    tlsReports: z
      .object({
        /** Off: results are still counted, but no report is sent. */
        enabled: z.boolean().default(true),
        /** organization-name in the reports we send. */
        organizationName: z.string().min(1).default('Mailroom'),
        /** contact-info in the reports we send; unset: postmaster@<mta.hostname>. */
        contactInfo: z.string().min(1).optional(),
        /** Days the counted results and the record of sent reports are kept. */
        retentionDays: z.number().int().min(2).default(30),
        /** Seconds between the MTA's writes of its counted results to the database. */
        flushSeconds: z.number().int().min(1).max(3600).default(30),
        /**
         * The mailbox our domains' TLSRPT records name (`_smtp._tls.<domain> TXT "v=TLSRPTv1;
         * rua=mailto:..."`), where receivers send reports about mail to us; unset: tlsrpt@<mta.hostname>.
         */
        ruaAddress: z.email().optional(),
        /**
         * From address of reports sent to `mailto:` destinations, a verified domain of the team
         * accounts.mailTeamId (the reports go through the ordinary send path). Unset:
         * accounts.mailFrom; neither: mailto destinations are skipped (recorded as failed).
         */
        mailFrom: z.string().min(3).max(320).optional(),
        /** PEM file of extra CAs trusted when posting to `https:` destinations (a private collector); unset: mta.tlsCaFile. */
        caFile: z.string().min(1).optional(),
        /** Addresses or CIDRs `https:` destinations may resolve to beyond public ones (tests: 127.0.0.1). */
        allowAddresses: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    submission: z
      .object({
        /** Address the SMTP submission server listens on (`mailroom submission`, and `mailroom start`). */
        host: z.string().min(1).default('127.0.0.1'),
        /**
         * Submission port (STARTTLS, then AUTH); 0 picks a free port (tests). Default 587 in
         * production, 2587 otherwise (a developer's `npm start` needs no privileged port).
         */
        port: z.number().int().min(0).max(65535).optional(),
        /** Implicit-TLS submission port, opened only when a certificate is configured: 465 in production, 2465 otherwise. */
        tlsPort: z.number().int().min(0).max(65535).optional(),
        /** PEM certificate chain and key for STARTTLS and the implicit-TLS port. */
        certFile: z.string().min(1).optional(),
        keyFile: z.string().min(1).optional(),
        /** AUTH without TLS: for development and tests on loopback only. */
        allowInsecureAuth: z.boolean().default(false),
        /** Largest message accepted (refused with 552 at DATA). */
        maxMessageBytes: z
          .number()
          .int()
          .min(1024)
          .default(40 * 1024 * 1024),
        /** Connections served at once per process. */
        maxClients: z.number().int().min(1).max(10_000).default(200),
        /**
         * Failed AUTH attempts allowed per presented credential (kept as a hash, never in clear)
         * per authFailureWindowSeconds, across connections and processes (shared through Redis
         * when configured); past it AUTH is answered 454 4.7.0 without checking the credential.
         * Successful attempts take nothing.
         */
        authFailuresPerCredential: z.number().int().min(1).max(10_000).default(10),
        /** Failed AUTH attempts allowed per client address (an IPv6 client: per /64) per window. */
        authFailuresPerSource: z.number().int().min(1).max(100_000).default(50),
        /** The window the AUTH failure limits refill over, in seconds (default 15 minutes). */
        authFailureWindowSeconds: z.number().int().min(60).max(86_400).default(900),
      })
      .strict()
      .prefault({}),
    tracking: z
      .object({
        /** CNAME target of every domain's tracking subdomain (opens, clicks, unsubscribes). */
        host: z.string().min(1).default('track.mailroom.localhost'),
        /** Scheme of the open and click tracking links written into mail; http only for development and tests. */
        scheme: z.enum(['https', 'http']).default('https'),
      })
      .strict()
      .prefault({}),
    dns: z
      .object({
        /** Resolvers for domain verification, host[:port]; empty uses the system resolver. */
        servers: z.array(z.string().min(1)).default([]),
        timeoutMs: z.number().int().min(100).max(30000).default(3000),
        /**
         * Zones this appliance may publish domains' records in by DNS UPDATE (RFC 2136, TSIG
         * signed): POST /domains/{id}/auto-configure and `mailroom domain auto-configure`. A
         * domain uses the longest zone it is in. Config file only (a list of objects); the key
         * secret stays in its file (a bare base64 secret or `tsig-keygen` output), read at each use.
         */
        updateZones: z.array(dnsUpdateZone).default([]),
        /** How long to wait for a DNS UPDATE answer, in ms. */
        updateTimeoutMs: z.number().int().min(100).max(60000).default(10000),
      })
      .strict()
      .prefault({}),
    marketing: z
      .object({
        /**
         * Broadcasts switched on platform-wide. `mailroom marketing pause|resume` overrides it at
         * run time on every node (stored in the database); this is the value until then.
         */
        enabled: z.boolean().default(true),
        /** Recipients per page of a broadcast's fan-out: one transaction (and one group commit) each. */
        fanOutPageSize: z.number().int().min(1).max(5000).default(500),
        /**
         * Pages of a fan-out in flight: 2 reads and renders the next page while one commits (the
         * database works on another core); 1 does one page at a time. Commits stay in page order.
         */
        fanOutPagesInFlight: z.number().int().min(1).max(2).default(2),
      })
      .strict()
      .prefault({}),
    automations: z
      .object({
        /** A claimed run or event whose worker died is taken back after this long, in ms. */
        leaseMs: z.number().int().min(1000).max(3_600_000).default(120_000),
        /**
         * A step that throws an unexpected error (not a refusal, which fails the run at once) is
         * retried at the next claim; after this many attempts the run fails with that error.
         */
        maxStepAttempts: z.number().int().min(1).max(100).default(5),
        /**
         * Runs of one claimed batch advanced at once per scheduler process. Unset: 8 on MySQL (a
         * step waits on round trips, so runs advance side by side), 1 on SQLite (one connection).
         */
        concurrency: z.number().int().min(1).max(64).optional(),
        /**
         * How long a process keeps a team's platform triggers (svc:...) when recording events, in
         * ms: an automation enabled on another node starts enrolling within this long.
         */
        triggerCacheMs: z.number().int().min(0).max(60_000).default(5000),
      })
      .strict()
      .prefault({}),
    sandbox: z
      .object({
        /** Mailbox-simulator domain: sandboxed teams may always send to it. */
        simulatorDomain: z.string().min(1).default('simulator.mailroom.localhost'),
      })
      .strict()
      .prefault({}),
    attachments: z
      .object({
        /** Attachments given by `path` are fetched over https with these bounds. */
        fetchTimeoutMs: z.number().int().min(100).max(120000).default(10000),
        fetchMaxBytes: z
          .number()
          .int()
          .min(1024)
          .default(10 * 1024 * 1024),
        /**
         * Addresses or CIDRs exempt from the private/loopback/link-local refusal (an internal
         * file server; tests). Empty by default: nothing internal is reachable.
         */
        fetchAllowAddresses: z.array(z.string().min(1)).default([]),
        /** PEM file of extra CA certificates trusted for attachment fetches. */
        fetchCaFile: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    webhooks: z
      .object({
        /** Endpoint URLs must be https; true also accepts http (development and tests only). */
        allowHttp: z.boolean().default(false),
        /**
         * Addresses or CIDRs exempt from the private/loopback/link-local refusal of endpoint URLs
         * (an internal receiver; tests). Empty by default: nothing internal is reachable.
         */
        allowAddresses: z.array(z.string().min(1)).default([]),
        /** One delivery attempt, from connecting to the last byte read, in ms. */
        timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
        /** Bytes of each receiver's response kept in the attempt log; the rest is not read. */
        maxResponseBytes: z
          .number()
          .int()
          .min(0)
          .max(1024 * 1024)
          .default(64 * 1024),
        /**
         * Delays before each retry of a failed delivery, in seconds (+-10% jitter); once they are
         * used up the delivery is failed. The default spans about 27 hours over 8 attempts.
         */
        retrySchedule: z.array(z.number().min(0)).min(1).default([5, 300, 1800, 7200, 18000, 36000, 36000]),
        /** An endpoint whose every attempt failed for this long is disabled (PATCH status enabled restores it). */
        disableAfterSeconds: z
          .number()
          .int()
          .min(1)
          .default(5 * 86400),
        /** After a signing-secret rotation, the previous secret keeps signing beside the new one this long. */
        secretGraceSeconds: z.number().int().min(0).default(86400),
        /** Deliveries in flight at once per scheduler process. */
        concurrency: z.number().int().min(1).max(1000).default(50),
        /** How often an idle delivery worker looks for due deliveries, in ms. */
        pollMs: z.number().int().min(10).max(60_000).default(1000),
        /** A claimed delivery whose worker died is taken back after this long (at least timeoutMs + 30 s is used). */
        leaseMs: z.number().int().min(1000).default(60_000),
        /** How long a process keeps a team's endpoint list when recording events, in ms (MySQL; 0 turns it off). */
        endpointCacheMs: z.number().int().min(0).max(60_000).default(1000),
        /** PEM file of extra CA certificates trusted for https endpoints (an internal CA). */
        caFile: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    accounts: z
      .object({
        /**
         * Who may create a dashboard account with POST /auth/signup: `closed` (only the operator,
         * `mailroom user create`), `invite` (only an address with a pending team invitation; the
         * new user joins the inviting team once the address is verified), `open` (anyone; the new
         * user gets a team of their own). Under every policy an invitation's link (POST
         * /auth/invitations/accept) still creates the account. Unset: `closed` when env is
         * production, else `open`.
         */
        signup: z.enum(['closed', 'invite', 'open']).optional(),
        /**
         * Sender of verification and password-reset mail, an address on a domain verified by
         * `mailTeamId` (the operator's team, whose quota it uses). Unset (either): the links are
         * written to the process log instead.
         */
        mailFrom: z.string().min(3).max(320).optional(),
        mailTeamId: z.string().uuid().optional(),
        /** Login attempts per account (and password-reset requests per address) per 15 minutes. */
        attemptsPerAccount: z.number().int().min(1).max(10_000).default(10),
        /** Login attempts (and password-reset requests) per client address per 15 minutes. */
        attemptsPerIp: z.number().int().min(1).max(100_000).default(50),
        /**
         * Single sign-on look-ups (POST /auth/sso/discover) per client address per 15 minutes
         * (per address: attemptsPerAccount). Higher than attemptsPerIp: a whole office signs in
         * through one NAT address, and a look-up proves nothing about a password.
         */
        ssoDiscoveriesPerIp: z.number().int().min(1).max(1_000_000).default(500),
      })
      .strict()
      .prefault({}),
    oauth: z
      .object({
        /** Client registrations (POST /oauth/register) per client address per hour. The spec's value is 10. */
        registrationsPerIpPerHour: z.number().int().min(1).max(100_000).default(10),
        /** Client registrations per day across the platform. The spec's value is 1,000. */
        registrationsPerDay: z.number().int().min(1).max(10_000_000).default(1000),
      })
      .strict()
      .prefault({}),
    billing: z
      .object({
        /**
         * The payment provider behind the paid billing routes (checkout, portal, invoices, plan
         * change, add-ons) and its webhooks: `none` (plans are the operator's to set with
         * `mailroom team set-plan`; the paid routes answer 503) or `stripe`. See docs/operating/billing.md.
         */
        provider: z.enum(['none', 'stripe']).default('none'),
        stripe: z
          .object({
            /**
             * The secret API key (`sk_live_...`, or `sk_test_...` in test mode). Environment only
             * (MAILROOM_STRIPE_SECRET_KEY, in /etc/mailroom/mailroom.env): refused in the config file.
             */
            secretKey: z.string().min(1).optional(),
            /** The webhook endpoint's signing secret (`whsec_...`). Environment only, like secretKey. */
            webhookSecret: z.string().min(1).optional(),
            /**
             * Stripe price id of each plan code (`pro`, `scale`...) and add-on code
             * (`inbox_seat`, `inbox_storage_100gb`) sold: { "pro": "price_..." }. Recurring prices.
             * A plan or add-on without a price here cannot be bought.
             */
            prices: z.record(z.string().min(1), z.string().min(1)).default({}),
            /**
             * Metered price (per email, attached to the meter below) of each plan code whose
             * overage is billed: added to the plan's subscription at checkout and on plan change.
             */
            overagePrices: z.record(z.string().min(1), z.string().min(1)).default({}),
            /**
             * Event name of the Stripe billing meter that overage emails are reported to (the
             * report-billing-overage job). Unset: overage is not reported.
             */
            meterEventName: z.string().min(1).optional(),
            /** Stripe's API address; change it only to point at a local double (tests). */
            host: z.string().min(1).optional(),
            port: z.number().int().min(1).max(65535).optional(),
            protocol: z.enum(['https', 'http']).optional(),
            /** One call to Stripe, in ms, and how many times the SDK retries a failed one (with its idempotency key). */
            timeoutMs: z.number().int().min(100).max(120_000).default(20_000),
            maxNetworkRetries: z.number().int().min(0).max(10).default(2),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .superRefine((billing, ctx) => {
        if (billing.provider !== 'stripe') return;
        if (!billing.stripe.secretKey)
          ctx.addIssue({
            code: 'custom',
            path: ['stripe', 'secretKey'],
            message: 'billing.provider is stripe: set MAILROOM_STRIPE_SECRET_KEY in the environment file',
          });
        if (!billing.stripe.webhookSecret)
          ctx.addIssue({
            code: 'custom',
            path: ['stripe', 'webhookSecret'],
            message:
              'billing.provider is stripe: set MAILROOM_STRIPE_WEBHOOK_SECRET (the endpoint signing secret) in the environment file',
          });
        if (Object.keys(billing.stripe.prices).length === 0)
          ctx.addIssue({
            code: 'custom',
            path: ['stripe', 'prices'],
            message: 'billing.provider is stripe: map at least one plan code to a Stripe price id',
          });
      })
      .prefault({}),
    ai: z
      .object({
        /**
         * The model behind the AI helpers (subject lines, drafts, diagnoses): `none` (the AI
         * routes answer 503 and AI assist cannot be switched on) or `openai-compatible`: any
         * server speaking OpenAI's chat completions API with structured output, hosted or on the
         * operator's own hardware (Ollama, llama.cpp's server, vLLM). See docs/operating/ai.md.
         */
        provider: z.enum(['none', 'openai-compatible']).default('none'),
        /**
         * The API's base URL, up to and including `/v1`: `https://api.openai.com/v1`, or
         * `http://127.0.0.1:11434/v1` for Ollama on this machine. Required with openai-compatible.
         */
        baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
        /** The model name the server knows (`gpt-4o-mini`, `llama3.1`...). Required with openai-compatible. */
        model: z.string().min(1).max(200).optional(),
        /**
         * The API key, sent as a bearer token. Environment only (MAILROOM_AI_API_KEY, in
         * /etc/mailroom/mailroom.env): refused in the config file. A local server needs none.
         */
        apiKey: z.string().min(1).optional(),
        /** How long one call to the model may take, in ms; past it the request answers 503 and costs no credit. */
        timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
        /** Retries of a call that timed out, could not connect or got a 5xx (each waits up to timeoutMs). */
        maxRetries: z.number().int().min(0).max(5).default(1),
        /** Upper bound on the tokens of one answer (sent as max_tokens); unset: the server's own limit. */
        maxOutputTokens: z.number().int().min(64).max(1_000_000).optional(),
      })
      .strict()
      .superRefine((ai, ctx) => {
        if (ai.provider !== 'openai-compatible') return;
        for (const key of ['baseUrl', 'model'] as const)
          if (!ai[key])
            ctx.addIssue({
              code: 'custom',
              path: [key],
              message: `ai.provider is openai-compatible: set ai.${key} (see docs/operating/ai.md)`,
            });
      })
      .prefault({}),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;

/** Environment variable -> dotted config key, with how to read the string. */
export const ENV_OVERRIDES: Record<string, { key: string; type: 'string' | 'number' | 'boolean' | 'list' }> = {
  MAILROOM_MARKETING_ENABLED: { key: 'marketing.enabled', type: 'boolean' },
  MAILROOM_ENV: { key: 'env', type: 'string' },
  MAILROOM_LOG_LEVEL: { key: 'logLevel', type: 'string' },
  MAILROOM_DATA_DIR: { key: 'dataDir', type: 'string' },
  MAILROOM_MASTER_KEY: { key: 'masterKey', type: 'string' },
  MAILROOM_DATABASE_URL: { key: 'database.url', type: 'string' },
  MAILROOM_DATABASE_POOL_MAX: { key: 'database.poolMax', type: 'number' },
  MAILROOM_SPOOL_COPY_TO_DATABASE: { key: 'spool.copyToDatabase', type: 'boolean' },
  MAILROOM_REDIS_URL: { key: 'redis.url', type: 'string' },
  MAILROOM_REDIS_KEY_PREFIX: { key: 'redis.keyPrefix', type: 'string' },
  MAILROOM_REDIS_SENTINELS: { key: 'redis.sentinels', type: 'list' },
  MAILROOM_REDIS_NAME: { key: 'redis.name', type: 'string' },
  MAILROOM_REDIS_PASSWORD: { key: 'redis.password', type: 'string' },
  MAILROOM_REDIS_SENTINEL_PASSWORD: { key: 'redis.sentinelPassword', type: 'string' },
  MAILROOM_REDIS_DB: { key: 'redis.db', type: 'number' },
  MAILROOM_DATABASE_WSREP_SYNC_WAIT: { key: 'database.wsrepSyncWait', type: 'number' },
  MAILROOM_API_HOST: { key: 'api.host', type: 'string' },
  MAILROOM_API_PORT: { key: 'api.port', type: 'number' },
  MAILROOM_PUBLIC_URL: { key: 'api.publicUrl', type: 'string' },
  MAILROOM_DASHBOARD_HOST: { key: 'dashboard.host', type: 'string' },
  MAILROOM_DASHBOARD_PORT: { key: 'dashboard.port', type: 'number' },
  MAILROOM_DASHBOARD_PUBLIC_URL: { key: 'dashboard.publicUrl', type: 'string' },
  MAILROOM_DASHBOARD_DIR: { key: 'dashboard.dir', type: 'string' },
  MAILROOM_TRUST_PROXY: { key: 'api.trustProxy', type: 'boolean' },
  MAILROOM_RATE_LIMIT_PER_SECOND: { key: 'api.rateLimitPerSecond', type: 'number' },
  MAILROOM_API_LOOKUP_CACHE_MS: { key: 'api.lookupCacheMs', type: 'number' },
  MAILROOM_API_WORKERS: { key: 'api.workers', type: 'number' },
  MAILROOM_MTA_HOSTNAME: { key: 'mta.hostname', type: 'string' },
  MAILROOM_MTA_PORT: { key: 'mta.port', type: 'number' },
  MAILROOM_MTA_CONCURRENCY: { key: 'mta.concurrency', type: 'number' },
  MAILROOM_MTA_DISABLED_IPS: { key: 'mta.disabledIps', type: 'list' },
  MAILROOM_MTA_MAX_QUEUE_SECONDS: { key: 'mta.maxQueueSeconds', type: 'number' },
  MAILROOM_DOCTOR_DNSBL_ZONES: { key: 'doctor.dnsblZones', type: 'list' },
  MAILROOM_METRICS_ENABLED: { key: 'metrics.enabled', type: 'boolean' },
  MAILROOM_METRICS_HOST: { key: 'metrics.host', type: 'string' },
  MAILROOM_METRICS_PORT: { key: 'metrics.port', type: 'number' },
  MAILROOM_INBOUND_MX_HOST: { key: 'inbound.mxHost', type: 'string' },
  MAILROOM_INBOUND_HOST: { key: 'inbound.host', type: 'string' },
  MAILROOM_INBOUND_PORT: { key: 'inbound.port', type: 'number' },
  MAILROOM_INBOUND_CERT_FILE: { key: 'inbound.certFile', type: 'string' },
  MAILROOM_INBOUND_KEY_FILE: { key: 'inbound.keyFile', type: 'string' },
  MAILROOM_INBOUND_MAX_MESSAGE_BYTES: { key: 'inbound.maxMessageBytes', type: 'number' },
  MAILROOM_INBOUND_FBL_ADDRESSES: { key: 'inbound.fblAddresses', type: 'list' },
  MAILROOM_TRACKING_HOST: { key: 'tracking.host', type: 'string' },
  MAILROOM_SUBMISSION_HOST: { key: 'submission.host', type: 'string' },
  MAILROOM_SUBMISSION_PORT: { key: 'submission.port', type: 'number' },
  MAILROOM_SUBMISSION_TLS_PORT: { key: 'submission.tlsPort', type: 'number' },
  MAILROOM_SUBMISSION_CERT_FILE: { key: 'submission.certFile', type: 'string' },
  MAILROOM_SUBMISSION_KEY_FILE: { key: 'submission.keyFile', type: 'string' },
  MAILROOM_SUBMISSION_ALLOW_INSECURE_AUTH: { key: 'submission.allowInsecureAuth', type: 'boolean' },
  MAILROOM_DNS_SERVERS: { key: 'dns.servers', type: 'list' },
  MAILROOM_ATTACHMENT_FETCH_ALLOW: { key: 'attachments.fetchAllowAddresses', type: 'list' },
  MAILROOM_ATTACHMENT_FETCH_CA_FILE: { key: 'attachments.fetchCaFile', type: 'string' },
  MAILROOM_ATTACHMENT_FETCH_TIMEOUT_MS: { key: 'attachments.fetchTimeoutMs', type: 'number' },
  MAILROOM_ATTACHMENT_FETCH_MAX_BYTES: { key: 'attachments.fetchMaxBytes', type: 'number' },
  MAILROOM_WEBHOOKS_ALLOW_HTTP: { key: 'webhooks.allowHttp', type: 'boolean' },
  MAILROOM_WEBHOOKS_ALLOW: { key: 'webhooks.allowAddresses', type: 'list' },
  MAILROOM_WEBHOOKS_TIMEOUT_MS: { key: 'webhooks.timeoutMs', type: 'number' },
  MAILROOM_WEBHOOKS_CONCURRENCY: { key: 'webhooks.concurrency', type: 'number' },
  MAILROOM_ACCOUNTS_SIGNUP: { key: 'accounts.signup', type: 'string' },
  MAILROOM_ACCOUNTS_MAIL_FROM: { key: 'accounts.mailFrom', type: 'string' },
  MAILROOM_ACCOUNTS_MAIL_TEAM_ID: { key: 'accounts.mailTeamId', type: 'string' },
  MAILROOM_BILLING_PROVIDER: { key: 'billing.provider', type: 'string' },
  MAILROOM_STRIPE_SECRET_KEY: { key: 'billing.stripe.secretKey', type: 'string' },
  MAILROOM_STRIPE_WEBHOOK_SECRET: { key: 'billing.stripe.webhookSecret', type: 'string' },
  MAILROOM_AI_PROVIDER: { key: 'ai.provider', type: 'string' },
  MAILROOM_AI_BASE_URL: { key: 'ai.baseUrl', type: 'string' },
  MAILROOM_AI_MODEL: { key: 'ai.model', type: 'string' },
  MAILROOM_AI_API_KEY: { key: 'ai.apiKey', type: 'string' },
  MAILROOM_AI_TIMEOUT_MS: { key: 'ai.timeoutMs', type: 'number' },
};

/** Keys whose values `config print` masks. */
export const SECRET_KEYS = [
  'masterKey',
  'redis.password',
  'redis.sentinelPassword',
  'billing.stripe.secretKey',
  'billing.stripe.webhookSecret',
  'ai.apiKey',
];
/** Secrets accepted from the environment only: start-up refuses them in the config file. */
export const ENV_ONLY_KEYS = ['billing.stripe.secretKey', 'billing.stripe.webhookSecret', 'ai.apiKey'];
/** Keys holding URLs whose password part is masked. */
export const URL_KEYS = ['database.url', 'redis.url'];
