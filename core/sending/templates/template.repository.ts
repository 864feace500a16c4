import type { Knex } from 'knex';
import { readJson, readNullableTimestamp, readTimestamp, whereContains, writeJson } from '../../../db/dialect.js';
import type { ListTemplatesQuery, ListTemplateVersionsQuery } from './template.schemas.js';
import type {
  BrandOverrides,
  Template,
  TemplateVariable,
  TemplateVersion,
  TemplateVersionSummary,
} from './template.types.js';

type Row = Record<string, unknown>;

const toTemplate = (row: Row): Template => ({
  id: String(row.id),
  teamId: String(row.team_id),
  name: String(row.name),
  alias: (row.alias as string | null) ?? null,
  status: row.status as Template['status'],
  currentVersionId: String(row.current_version_id),
  publishedVersionId: (row.published_version_id as string | null) ?? null,
  brandOverrides: readJson<BrandOverrides | null>(row.brand_overrides, null),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
  publishedAt: readNullableTimestamp(row.published_at),
});

const SUMMARY_COLUMNS = [
  'id',
  'template_id',
  'version',
  'from_address',
  'subject',
  'reply_to',
  'created_at',
  'updated_at',
];

const toSummary = (row: Row): TemplateVersionSummary => ({
  id: String(row.id),
  templateId: String(row.template_id),
  version: Number(row.version),
  from: (row.from_address as string | null) ?? null,
  subject: (row.subject as string | null) ?? null,
  replyTo: readJson<string[] | null>(row.reply_to, null),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

const toVersion = (row: Row): TemplateVersion => ({
  ...toSummary(row),
  html: String(row.html),
  text: (row.text as string | null) ?? null,
  variables: readJson<TemplateVariable[]>(row.variables, []),
});

const versionRow = (v: TemplateVersion): Row => ({
  id: v.id,
  template_id: v.templateId,
  version: v.version,
  from_address: v.from,
  subject: v.subject,
  reply_to: writeJson(v.replyTo),
  html: v.html,
  text: v.text,
  variables: JSON.stringify(v.variables),
  created_at: v.createdAt,
  updated_at: v.updatedAt,
});

export class TemplateRepository {
  constructor(private readonly knex: Knex) {}

  private live(teamId: string): Knex.QueryBuilder {
    return this.knex('templates').where({ team_id: teamId }).whereNull('deleted_at');
  }

  async insert(template: Template, version: TemplateVersion): Promise<void> {
    await this.knex('template_versions').insert(versionRow(version));
    await this.knex('templates').insert({
      id: template.id,
      team_id: template.teamId,
      name: template.name,
      alias: template.alias,
      alias_normalized: template.alias?.toLowerCase() ?? null,
      status: template.status,
      current_version_id: template.currentVersionId,
      published_version_id: template.publishedVersionId,
      brand_overrides: writeJson(template.brandOverrides),
      created_at: template.createdAt,
      updated_at: template.updatedAt,
      published_at: template.publishedAt,
    });
  }

  async findById(teamId: string, id: string): Promise<Template | undefined> {
    const row = (await this.live(teamId).where({ id }).first()) as Row | undefined;
    return row ? toTemplate(row) : undefined;
  }

  async findByAlias(teamId: string, alias: string): Promise<Template | undefined> {
    const row = (await this.live(teamId).where({ alias_normalized: alias.toLowerCase() }).first()) as Row | undefined;
    return row ? toTemplate(row) : undefined;
  }

  async aliasTaken(teamId: string, alias: string, exceptId?: string): Promise<boolean> {
    const query = this.live(teamId).where({ alias_normalized: alias.toLowerCase() });
    if (exceptId) query.whereNot({ id: exceptId });
    return Boolean(await query.first('id'));
  }

  async update(id: string, changes: Partial<Template>): Promise<void> {
    const row: Row = {};
    if (changes.name !== undefined) row.name = changes.name;
    if (changes.alias !== undefined) {
      row.alias = changes.alias;
      row.alias_normalized = changes.alias?.toLowerCase() ?? null;
    }
    if (changes.status !== undefined) row.status = changes.status;
    if (changes.currentVersionId !== undefined) row.current_version_id = changes.currentVersionId;
    if (changes.publishedVersionId !== undefined) row.published_version_id = changes.publishedVersionId;
    if (changes.brandOverrides !== undefined) row.brand_overrides = writeJson(changes.brandOverrides);
    if (changes.updatedAt !== undefined) row.updated_at = changes.updatedAt;
    if (changes.publishedAt !== undefined) row.published_at = changes.publishedAt;
    await this.knex('templates').where({ id }).update(row);
  }

  /** Deleting keeps the row and its versions (sends refer to them) but frees the alias. */
  async softDelete(id: string, now: Date): Promise<void> {
    await this.knex('templates').where({ id }).update({ deleted_at: now, alias_normalized: null, updated_at: now });
  }

  async version(id: string): Promise<TemplateVersion | undefined> {
    const row = (await this.knex('template_versions').where({ id }).first()) as Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  /** A version of this template only: another template's version id is undefined, as an unknown one. */
  async versionOf(templateId: string, id: string): Promise<TemplateVersion | undefined> {
    const row = (await this.knex('template_versions').where({ id, template_id: templateId }).first()) as
      Row | undefined;
    return row ? toVersion(row) : undefined;
  }

  /**
   * Newest version first, keyset on (template_id, version), the unique index: cursors are version
   * ids of this template, resolved to their number (undefined for a cursor that is not one).
   */
  async listVersions(
    templateId: string,
    page: ListTemplateVersionsQuery,
  ): Promise<{ versions: TemplateVersionSummary[]; hasMore: boolean } | undefined> {
    const limit = page.limit ?? 20;
    const query = this.knex('template_versions').where({ template_id: templateId }).select(SUMMARY_COLUMNS);
    const cursorId = page.after ?? page.before;
    if (cursorId) {
      const cursor = (await this.knex('template_versions')
        .where({ template_id: templateId, id: cursorId })
        .first('version')) as Row | undefined;
      if (!cursor) return undefined;
      query.where('version', page.after ? '<' : '>', Number(cursor.version));
    }
    const rows = (await query.orderBy('version', page.before ? 'asc' : 'desc').limit(limit + 1)) as Row[];
    const slice = rows.slice(0, limit);
    return { versions: (page.before ? slice.reverse() : slice).map(toSummary), hasMore: rows.length > limit };
  }

  async insertVersion(version: TemplateVersion): Promise<void> {
    await this.knex('template_versions').insert(versionRow(version));
  }

  async replaceVersion(version: TemplateVersion): Promise<void> {
    const { id, template_id: _t, version: _v, created_at: _c, ...rest } = versionRow(version);
    await this.knex('template_versions').where({ id }).update(rest);
  }

  async latestVersionNumber(templateId: string): Promise<number> {
    const [row] = (await this.knex('template_versions')
      .where({ template_id: templateId })
      .max({ n: 'version' })) as Array<{ n: number | null }>;
    return Number(row?.n ?? 0);
  }

  /** Most recently changed first; cursors are template ids, resolved to their (updated_at, id). */
  async list(
    teamId: string,
    filter: ListTemplatesQuery,
  ): Promise<{ templates: Template[]; hasMore: boolean } | undefined> {
    const limit = filter.limit ?? 20;
    const query = this.live(teamId);
    if (filter.status) query.where({ status: filter.status });
    if (filter.search) whereContains(query, ['name', 'alias'], filter.search);
    const cursorId = filter.after ?? filter.before;
    if (cursorId) {
      const cursor = (await this.knex('templates')
        .where({ team_id: teamId, id: cursorId })
        .first('updated_at', 'id')) as Row | undefined;
      if (!cursor) return undefined;
      const op = filter.after ? '<' : '>';
      query.where((q) =>
        q
          .where('updated_at', op, cursor.updated_at as Date)
          .orWhere((q2) => q2.where('updated_at', cursor.updated_at as Date).andWhere('id', op, cursorId)),
      );
    }
    const direction = filter.before ? 'asc' : 'desc';
    const rows = (await query
      .orderBy([
        { column: 'updated_at', order: direction },
        { column: 'id', order: direction },
      ])
      .limit(limit + 1)) as Row[];
    const page = rows.slice(0, limit);
    return { templates: (filter.before ? page.reverse() : page).map(toTemplate), hasMore: rows.length > limit };
  }
}
