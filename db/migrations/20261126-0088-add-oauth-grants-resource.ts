import type { Migration } from './migration.js';

/**
 * `resource`: the RFC 8707 resource indicator the grant was approved for (the REST API's URL or
 * <public URL>/mcp); its tokens work on that resource only. Null: none was named, which means the
 * REST API, as every token meant before. Grants made before this column take it from their code
 * when that row is still there (codes are purged a day after they expire); the rest keep null.
 */
export const addOAuthGrantsResource: Migration = {
  name: '20261126-0088-add-oauth-grants-resource',
  async up(knex) {
    if (await knex.schema.hasColumn('oauth_grants', 'resource')) return;
    await knex.schema.alterTable('oauth_grants', (table) => {
      table.string('resource', 2048).nullable();
    });
    await knex('oauth_grants')
      .whereNull('resource')
      .update({
        resource: knex('oauth_codes')
          .max('oauth_codes.resource')
          .where('oauth_codes.grant_id', knex.ref('oauth_grants.id')),
      });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('oauth_grants', 'resource'))) return;
    await knex.schema.alterTable('oauth_grants', (table) => {
      table.dropColumn('resource');
    });
  },
};
