import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

const INDEX = 'received_emails_raw_blob_index';

/**
 * received_emails.raw_blob, indexed: since received raw messages are spool records
 * (`spool:<segment>:...`), the spool's retention sweep asks, per segment, whether a received
 * email still refers to it (a range read of this index), and retention asks which raw blobs no
 * row refers to any more. A secondary index is built in place on MariaDB (no table lock).
 */
export const indexReceivedRawBlob: Migration = {
  name: '20261129-0303-index-received-raw-blob',
  async up(knex) {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${INDEX} ON received_emails (raw_blob)`);
  },
  async down(knex) {
    await knex.raw(
      dialectOfKnex(knex) === 'mysql'
        ? `DROP INDEX IF EXISTS ${INDEX} ON received_emails`
        : `DROP INDEX IF EXISTS ${INDEX}`,
    );
  },
};
