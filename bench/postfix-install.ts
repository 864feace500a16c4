import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Installs Postfix from the Debian packages when /usr/sbin/postfix is missing. debconf is told
 * "No configuration", so the package writes no main.cf and starts nothing: the benchmark runs
 * its own instance (own config and queue directories) and the system one stays unconfigured.
 */
export function ensurePostfix(): void {
  if (existsSync('/usr/sbin/postfix')) return;
  console.log('postfix is not installed: installing it from the Debian packages (apt-get install postfix)');
  execFileSync('debconf-set-selections', {
    input: 'postfix postfix/main_mailer_type select No configuration\n',
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'postfix'], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  try {
    install();
  } catch {
    // A fresh machine may have no package lists yet.
    execFileSync('apt-get', ['update'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    install();
  }
  if (!existsSync('/usr/sbin/postfix')) throw new Error('apt-get install postfix did not provide /usr/sbin/postfix');
}
