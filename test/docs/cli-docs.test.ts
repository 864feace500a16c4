/**
 * docs/cli.md lists every scheduled job (`mailroom job run NAME` takes any of them): a job added
 * to scheduler/jobs/index.ts without a row there fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { jobs } from '../../scheduler/jobs/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
const section = page.slice(page.indexOf('## Scheduled jobs'));

t.ok(jobs.length > 0, 'found the jobs');
for (const job of jobs) {
  const row = section.split('\n').find((line) => line.startsWith(`| \`${job.name}\` `));
  t.ok(row, `${job.name} has a row in the scheduled jobs of docs/cli.md`);
  if (row) t.ok(row.includes(`\`${job.cron}\``), `${job.name}'s row gives its schedule, ${job.cron}`);
}
