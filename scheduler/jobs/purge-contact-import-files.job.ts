import type { Job } from '../job.js';

/** Uploaded import files (and their kept failed rows) seven days after the import finished; the counts stay. */
export const purgeContactImportFilesJob: Job = {
  name: 'purge-contact-import-files',
  description: 'delete uploaded contact-import files seven days after the import finished (hourly)',
  cron: '41 * * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.contactImports.purgeFiles(),
};
