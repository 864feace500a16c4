import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../lib/config/config.schema.js';

/** Our plugins, in the order Haraka runs them on each hook. */
const PLUGINS = ['mailroom_lifeline', 'mailroom_nodelay', 'mailroom_limits', 'mailroom_rcpt', 'mailroom_queue'];

export const PLUGIN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'haraka', 'plugins');

/**
 * Writes Haraka's directory for this node: `config/` from our configuration (listen address,
 * size limit, host name, TLS) and `plugins/` pointing at ours. Regenerated at every start, so
 * the Mailroom configuration is the one source of truth; nothing in it is edited by hand.
 */
export function writeHarakaDirectory(config: Config, options: { dir: string; port: number }): void {
  const settings = config.inbound;
  const configDir = join(options.dir, 'config');
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(configDir, { recursive: true });
  symlinkSync(PLUGIN_DIR, join(options.dir, 'plugins'), 'dir');
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const files: Record<string, string> = {
    // nodes=0: one process, no cluster (the per-client connection count lives in it).
    'smtp.ini': `[main]\nlisten=${host}:${options.port}\nnodes=0\ninactivity_timeout=300\nforce_shutdown_timeout=10\n`,
    'connection.ini': [
      '[main]',
      'smtputf8=true',
      '[headers]',
      'max_lines=1000',
      'max_received=100',
      '[max]',
      // Haraka counts the end-of-data line (".\r\n") too: the limit applies to the message itself.
      `bytes=${settings.maxMessageBytes + 3}`,
      'mime_parts=1000',
      'line_length=512',
      'data_line_length=992',
      '[message]',
      `helo=${config.inbound.mxHost} at your service`,
      'close=closing connection',
      '[uuid]',
      'banner_chars=0',
      'deny_chars=0',
      '',
    ].join('\n'),
    me: `${config.inbound.mxHost}\n`,
    'log.ini': '[main]\nlevel=notice\ntimestamps=false\nformat=default\n',
    plugins: [...(settings.certFile && settings.keyFile ? ['tls'] : []), ...PLUGINS].join('\n') + '\n',
  };
  if (settings.certFile && settings.keyFile) {
    cpSync(resolve(settings.keyFile), join(configDir, 'tls_key.pem'));
    cpSync(resolve(settings.certFile), join(configDir, 'tls_cert.pem'));
    files['tls.ini'] = '[main]\nkey=tls_key.pem\ncert=tls_cert.pem\n';
  } else {
    // No certificate: say so, or Haraka looks for its default key files and logs an error each start.
    files['tls.ini'] = '[main]\nkey=\ncert=\n';
  }
  for (const [name, content] of Object.entries(files)) writeFileSync(join(configDir, name), content);
}
