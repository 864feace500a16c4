import type { Job } from '../job.js';

/**
 * Every 5 seconds: sent events enrol their contacts in matching automations, then due runs move
 * on step by step. A run stops after four minutes (inside its lease); what is left is still due
 * at the next run.
 */
export const advanceAutomationsJob: Job = {
  name: 'advance-automations',
  description: 'enrol contacts whose events match an automation, then move due automation runs on (every 5 s)',
  cron: '*/5 * * * * *',
  timeoutMs: 300_000,
  run: async (services) => services.automationRuns.tick(240_000),
};
