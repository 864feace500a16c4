import type { Job } from '../job.js';

/** Stored AI diagnoses are kept for the team plan's retention window, like the emails they are about. */
export const purgeAiDiagnosesJob: Job = {
  name: 'purge-ai-diagnoses',
  description: "delete stored AI diagnoses past the plan's retention (hourly)",
  cron: '43 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({ deleted: await services.aiDiagnosis.purgeExpired() }),
};
