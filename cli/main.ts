import { Command } from 'commander';
import { VERSION } from '../lib/version.js';
import { registerAdminCommands } from './commands/admin.command.js';
import { registerBackupCommands } from './commands/backup.command.js';
import { registerDoctorCommands } from './commands/doctor.command.js';
import { registerDomainCommands } from './commands/domain.command.js';
import { registerDeliverabilityCommands } from './commands/deliverability.command.js';
import { registerDevCommands } from './commands/dev.command.js';
import { registerIpCommands } from './commands/ip.command.js';
import { registerMarketingCommands } from './commands/marketing.command.js';
import { registerQueueCommands } from './commands/queue.command.js';
import { registerServeCommands } from './commands/serve.command.js';
import { registerTeamCommands } from './commands/team.command.js';
import { registerUserCommands } from './commands/user.command.js';
import { reportFailure } from './output.js';

const program = new Command('mailroom').version(VERSION).description('Mailroom, the self-hosted mail appliance');
registerServeCommands(program);
registerAdminCommands(program);
registerTeamCommands(program);
registerUserCommands(program);
registerDomainCommands(program);
registerQueueCommands(program);
registerIpCommands(program);
registerDeliverabilityCommands(program);
registerDoctorCommands(program);
registerDevCommands(program);
registerBackupCommands(program);
registerMarketingCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = reportFailure(err);
}
