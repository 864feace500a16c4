import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import {
  InvalidParameterError,
  MissingRequiredFieldError,
  NotFoundError,
  UnprocessableValidationError,
  ValidationError,
} from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import { EMPTY_BRAND_KIT, type BrandKit } from '../../platform/teams/team.types.js';
import { placeholderRefusal } from './placeholders.js';
import { findStarter } from './starters.js';
import { TemplateRepository } from './template.repository.js';
import type {
  CreateTemplateInput,
  ListTemplatesQuery,
  ListTemplateVersionsQuery,
  UpdateTemplateInput,
} from './template.schemas.js';
import type {
  BrandOverrides,
  Template,
  TemplateVersion,
  TemplateVersionSummary,
  VersionContent,
} from './template.types.js';

export type TemplateView = { template: Template; current: TemplateVersion };

const MAX_BODY_BYTES = 2 * 1024 * 1024;
const toList = (value: string | string[] | null | undefined) =>
  value === undefined ? undefined : value === null ? null : Array.isArray(value) ? value : [value];

/**
 * Templates: a name, an optional alias and a series of versions. Created as a draft (version 1);
 * publishing makes the current version the one sends use; an update of a published template
 * opens a new draft version while the published one keeps sending.
 */
export class TemplateService {
  private readonly repository: TemplateRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock }) {
    this.repository = new TemplateRepository(deps.knex);
  }

  async create(teamId: string, input: CreateTemplateInput): Promise<Template> {
    if (input.html === undefined && input.starter === undefined) {
      throw new MissingRequiredFieldError('Send html or a starter', {
        errors: [{ path: 'html', message: 'html or starter is required' }],
      });
    }
    if (input.html !== undefined && input.starter !== undefined) {
      throw new InvalidParameterError('Send html or a starter, not both', {
        errors: [{ path: 'starter', message: 'cannot be combined with html' }],
      });
    }
    const starter = input.starter === undefined ? undefined : findStarter(input.starter);
    if (input.starter !== undefined && !starter) {
      throw new ValidationError(`Unknown starter ${input.starter}; see GET /starters`, {
        errors: [{ path: 'starter', message: 'is not a starter slug' }],
      });
    }
    // With a starter, what the caller sent wins over the starter's own values.
    const content: VersionContent = {
      from: input.from ?? null,
      subject: input.subject ?? starter?.subject ?? null,
      replyTo: toList(input.reply_to) ?? null,
      html: input.html ?? starter!.html,
      text: input.text !== undefined ? input.text : (starter?.text ?? null),
      variables: (input.variables ?? starter?.variables ?? []).map((v) => ({
        key: v.key,
        type: v.type,
        fallback_value: v.fallback_value ?? null,
      })),
    };
    this.checkContent(content);
    if (input.alias) await this.assertAliasFree(teamId, input.alias);
    const brandOverrides = input.brand_overrides == null ? null : this.checkBrandOverrides(input.brand_overrides);
    const now = this.deps.clock.now();
    const template: Template = {
      id: newId(),
      teamId,
      name: input.name,
      alias: input.alias ?? null,
      status: 'draft',
      currentVersionId: newId(),
      publishedVersionId: null,
      brandOverrides,
      createdAt: now,
      updatedAt: now,
      publishedAt: null,
    };
    const version: TemplateVersion = {
      id: template.currentVersionId,
      templateId: template.id,
      version: 1,
      ...content,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.knex.transaction((trx) => new TemplateRepository(trx).insert(template, version));
    return template;
  }

  /** By id or by alias (case-insensitive); another team's or a deleted one is 404. */
  async get(teamId: string, idOrAlias: string): Promise<TemplateView> {
    const template = isUuid(idOrAlias)
      ? await this.repository.findById(teamId, idOrAlias.toLowerCase())
      : await this.repository.findByAlias(teamId, idOrAlias);
    if (!template) throw new NotFoundError('Template not found');
    const current = await this.repository.version(template.currentVersionId);
    return { template, current: current! };
  }

  async list(teamId: string, query: ListTemplatesQuery) {
    const page = await this.repository.list(teamId, query);
    if (!page)
      throw new InvalidParameterError('The cursor is not a template of this team', {
        errors: [{ path: query.after ? 'after' : 'before', message: 'unknown template id' }],
      });
    return page;
  }

  /** The template's versions, newest first, without their content (GET …/versions/:id has it). */
  async versions(
    teamId: string,
    idOrAlias: string,
    query: ListTemplateVersionsQuery,
  ): Promise<{ template: Template; versions: TemplateVersionSummary[]; hasMore: boolean }> {
    const { template } = await this.get(teamId, idOrAlias);
    const page = await this.repository.listVersions(template.id, query);
    if (!page)
      throw new InvalidParameterError('The cursor is not a version of this template', {
        errors: [{ path: query.after ? 'after' : 'before', message: 'unknown version id' }],
      });
    return { template, ...page };
  }

  /** One version with its content; a version of another template is 404, as an unknown one. */
  async version(
    teamId: string,
    idOrAlias: string,
    versionId: string,
  ): Promise<{ template: Template; version: TemplateVersion }> {
    const { template } = await this.get(teamId, idOrAlias);
    const version = await this.repository.versionOf(template.id, versionId);
    if (!version) throw new NotFoundError('Template version not found');
    return { template, version };
  }

  async update(teamId: string, idOrAlias: string, input: UpdateTemplateInput): Promise<Template> {
    const { template, current } = await this.get(teamId, idOrAlias);
    const content: VersionContent = {
      from: input.from !== undefined ? input.from : current.from,
      subject: input.subject !== undefined ? input.subject : current.subject,
      replyTo: input.reply_to !== undefined ? (toList(input.reply_to) ?? null) : current.replyTo,
      html: input.html ?? current.html,
      text: input.text !== undefined ? input.text : current.text,
      variables: input.variables
        ? input.variables.map((v) => ({ key: v.key, type: v.type, fallback_value: v.fallback_value ?? null }))
        : current.variables,
    };
    this.checkContent(content);
    if (input.alias) await this.assertAliasFree(teamId, input.alias, template.id);
    const now = this.deps.clock.now();
    const changes: Partial<Template> = { updatedAt: now };
    if (input.name !== undefined) changes.name = input.name;
    if (input.alias !== undefined) changes.alias = input.alias;
    if (input.brand_overrides !== undefined)
      changes.brandOverrides = input.brand_overrides === null ? null : this.checkBrandOverrides(input.brand_overrides);
    const contentChanged = (['from', 'subject', 'html', 'text', 'variables', 'reply_to'] as const).some(
      (key) => input[key] !== undefined,
    );
    await this.deps.knex.transaction(async (trx) => {
      const repository = new TemplateRepository(trx);
      if (contentChanged && current.id === template.publishedVersionId) {
        // The published version keeps sending: the change opens a new draft version.
        const version: TemplateVersion = {
          id: newId(),
          templateId: template.id,
          version: (await repository.latestVersionNumber(template.id)) + 1,
          ...content,
          createdAt: now,
          updatedAt: now,
        };
        await repository.insertVersion(version);
        changes.currentVersionId = version.id;
      } else if (contentChanged) {
        await repository.replaceVersion({ ...current, ...content, updatedAt: now });
      }
      await repository.update(template.id, changes);
    });
    return { ...template, ...changes };
  }

  /** The current version becomes the one sends use. */
  async publish(teamId: string, idOrAlias: string): Promise<Template> {
    const { template } = await this.get(teamId, idOrAlias);
    const now = this.deps.clock.now();
    const changes: Partial<Template> = {
      status: 'published',
      publishedVersionId: template.currentVersionId,
      publishedAt: now,
      updatedAt: now,
    };
    await this.repository.update(template.id, changes);
    return { ...template, ...changes };
  }

  /** A new draft template with the current version's content; the alias is not copied. */
  async duplicate(teamId: string, idOrAlias: string): Promise<Template> {
    const { template, current } = await this.get(teamId, idOrAlias);
    const now = this.deps.clock.now();
    const copy: Template = {
      ...template,
      id: newId(),
      name: `${template.name} (copy)`.slice(0, 255),
      alias: null,
      status: 'draft',
      currentVersionId: newId(),
      publishedVersionId: null,
      createdAt: now,
      updatedAt: now,
      publishedAt: null,
    };
    const version: TemplateVersion = {
      ...current,
      id: copy.currentVersionId,
      templateId: copy.id,
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.knex.transaction((trx) => new TemplateRepository(trx).insert(copy, version));
    return copy;
  }

  async remove(teamId: string, idOrAlias: string): Promise<Template> {
    const { template } = await this.get(teamId, idOrAlias);
    await this.repository.softDelete(template.id, this.deps.clock.now());
    return template;
  }

  /** What a send uses: the published version, or 422 for a template that has none. */
  async publishedVersion(teamId: string, idOrAlias: string): Promise<{ template: Template; version: TemplateVersion }> {
    const { template } = await this.get(teamId, idOrAlias);
    if (!template.publishedVersionId)
      throw new InvalidParameterError('This template is a draft: publish it before sending with it', {
        errors: [{ path: 'template.id', message: 'is not published' }],
      });
    return { template, version: (await this.repository.version(template.publishedVersionId))! };
  }

  /** The team's brand kit with this template's overrides on top. */
  effectiveBrand(teamKit: BrandKit, overrides: BrandOverrides | null): BrandKit {
    return { ...EMPTY_BRAND_KIT, ...teamKit, ...(overrides ?? {}) };
  }

  private checkContent(content: VersionContent): void {
    const refusal = placeholderRefusal(content.variables, {
      subject: content.subject,
      html: content.html,
      text: content.text,
    });
    if (refusal) throw new UnprocessableValidationError(refusal.message, { errors: refusal.errors });
    if (Buffer.byteLength(content.html, 'utf8') + Buffer.byteLength(content.text ?? '', 'utf8') > MAX_BODY_BYTES) {
      throw new UnprocessableValidationError('html and text together must be at most 2 MB', {
        errors: [{ path: 'html', message: 'too large' }],
      });
    }
  }

  private async assertAliasFree(teamId: string, alias: string, exceptId?: string): Promise<void> {
    if (await this.repository.aliasTaken(teamId, alias, exceptId)) {
      throw new UnprocessableValidationError(`The alias ${alias} is used by another template`, {
        errors: [{ path: 'alias', message: 'already in use' }],
      });
    }
  }

  /** Value rules of brand_overrides beyond the field names and enums (422 invalid_parameter). */
  private checkBrandOverrides(overrides: BrandOverrides): BrandOverrides {
    const errors: Array<{ path: string; message: string }> = [];
    for (const field of ['primary_color', 'accent_color'] as const) {
      const value = overrides[field];
      if (typeof value === 'string' && !/^#[0-9a-fA-F]{6}$/.test(value))
        errors.push({ path: `brand_overrides.${field}`, message: 'must be a six-digit hex colour' });
    }
    const logo = overrides.logo_url;
    if (typeof logo === 'string' && !(/^https?:\/\//i.test(logo) && URL.canParse(logo)))
      errors.push({ path: 'brand_overrides.logo_url', message: 'must be an absolute http(s) URL' });
    for (const field of ['company_name', 'address', 'footer_text'] as const) {
      const value = overrides[field];
      if (
        typeof value === 'string' &&
        (value.length === 0 || value.length > 500 || /[\u0000-\u001f\u007f]/.test(value))
      )
        errors.push({ path: `brand_overrides.${field}`, message: 'must be one line of 1 to 500 characters' });
    }
    if (errors.length > 0) throw new InvalidParameterError(errors[0]!.message, { errors });
    return overrides;
  }
}
