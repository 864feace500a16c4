import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { connect, dialectOf, sqlitePathFromUrl, type Database } from '../../db/connection.js';
import { bindZoneSnippet } from '../../core/platform/doctor/bind-zone.js';
import { recordTargets } from '../../core/sending/domains/record-targets.js';
import { dmarcRecordValue } from '../../core/sending/domains/dmarc-record.js';
import { exitCodeOf, formatResults, runDoctor } from '../../core/platform/doctor/doctor.js';
import { createPtrLookup } from '../../core/platform/doctor/reverse-names.js';
import { expectedRecords } from '../../core/sending/domains/domain-records.js';
import { DomainRepository } from '../../core/sending/domains/domain.repository.js';
import type { Config } from '../../lib/config/config.schema.js';
import { loadConfig } from '../../lib/config/load-config.js';
import { createDnsLookup } from '../../lib/dns/dns-resolver.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { printJson } from '../output.js';
import { submissionPorts } from '../../submission/submission-ports.js';
import { isDomainName } from './queue.command.js';

/**
 * The database as it is, read-only in spirit: no migration, no MySQL database created, no
 * SQLite file created where none is (the doctor reports that instead), no runtime (which would
 * generate a development master key).
 */
async function openDatabase(config: Config): Promise<{ db?: Database; problem?: string }> {
  const url = config.database.url;
  if (dialectOf(url) === 'sqlite') {
    const path = sqlitePathFromUrl(url);
    if (path !== ':memory:' && !existsSync(resolve(path)))
      return { problem: `no SQLite database at ${resolve(path)}: run mailroom migrate` };
  }
  return { db: connect(url, 1, { wsrepSyncWait: config.database.wsrepSyncWait }) };
}

/** Where this node's submission server listens (the implicit-TLS port opens only with a certificate). */
function submissionTarget(config: Config) {
  const ports = submissionPorts(config);
  const { host, certFile, keyFile } = config.submission;
  return { host, port: ports.port, tlsPort: certFile && keyFile ? ports.tlsPort : null };
}

async function doctor(options: { json?: boolean; dnsblZones?: string }): Promise<void> {
  const config = loadConfig();
  const dnsblZones = (options.dnsblZones ?? config.doctor.dnsblZones.join(','))
    .split(',')
    .map((zone) => zone.trim().toLowerCase())
    .filter(Boolean);
  for (const zone of dnsblZones)
    if (!isDomainName(zone)) throw new ValidationError(`--dnsbl-zones: "${zone}" is not a DNS zone name`);
  const { db, problem } = await openDatabase(config);
  try {
    const results = await runDoctor({
      config,
      lookup: createDnsLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
      ptr: createPtrLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
      db,
      dbProblem: problem,
      now: () => new Date(),
      dnsblZones,
      submission: submissionTarget(config),
    });
    if (options.json) printJson(results);
    else process.stdout.write(formatResults(results));
    process.exitCode = exitCodeOf(results);
  } finally {
    await db?.knex.destroy();
  }
}

async function dnsZone(options: { domain: string; team?: string }): Promise<void> {
  if (!isDomainName(options.domain))
    throw new ValidationError(`--domain must be a domain name such as example.com, not "${options.domain}"`);
  if (options.team !== undefined && !isUuid(options.team))
    throw new ValidationError(`--team must be a team id (a UUID), not "${options.team}"`);
  const config = loadConfig();
  const { db, problem } = await openDatabase(config);
  if (!db) throw new ValidationError(problem ?? 'the database could not be opened');
  try {
    const repository = new DomainRepository(db.knex);
    const named = (await repository.findByName(options.domain.toLowerCase())).filter(
      (domain) => options.team === undefined || domain.teamId === options.team!.toLowerCase(),
    );
    if (named.length === 0)
      throw new NotFoundError(`No domain ${options.domain}${options.team ? ` in team ${options.team}` : ''}`);
    if (named.length > 1)
      throw new ValidationError(
        `${options.domain} belongs to ${named.length} teams (${named.map((d) => d.teamId).join(', ')}): say which with --team ID`,
      );
    const domain = named[0]!;
    const targets = recordTargets(config);
    const records = expectedRecords(domain, await repository.keysOf(domain.id), targets);
    process.stdout.write(bindZoneSnippet(domain, records, targets.tlsRptRua, dmarcRecordValue(domain, targets)));
  } finally {
    await db.knex.destroy();
  }
}

export function registerDoctorCommands(program: Command): void {
  program
    .command('doctor')
    .description(
      'deliverability and set-up checks: reverse DNS and block lists of each egress IP; SPF, DKIM, DMARC and MX of each verified domain; certificates, the submission ports as a client meets them (STARTTLS, AUTH), master key, database durability, clock; exit 1 on any failure',
    )
    .option('--json', 'print an array of { check, subject, status, detail }')
    .option(
      '--dnsbl-zones <zones>',
      'DNS block lists to query, comma-separated (empty: none); default doctor.dnsblZones: Spamhaus ZEN, Barracuda, SpamCop',
    )
    .action((options: { json?: boolean; dnsblZones?: string }) => doctor(options));
  program
    .command('dns-zone')
    .description("print a domain's DNS records as a BIND zone-file snippet to paste into its zone")
    .requiredOption('--domain <name>', 'the domain')
    .option('--team <id>', 'the team owning it, when several teams have added the same name')
    .action((options: { domain: string; team?: string }) => dnsZone(options));
}
