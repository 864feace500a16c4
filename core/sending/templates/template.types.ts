import type { BrandKit } from '../../platform/teams/team.types.js';

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'object', 'list'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];
export type TemplateVariable = { key: string; type: VariableType; fallback_value: unknown };

/** Per-template brand values: a missing field follows the team's kit, a null one the neutral default. */
export type BrandOverrides = Partial<BrandKit>;

export type TemplateVersion = {
  id: string;
  templateId: string;
  version: number;
  from: string | null;
  subject: string | null;
  replyTo: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariable[];
  createdAt: Date;
  updatedAt: Date;
};

/** A version as listed: without html, text and variables (each can be megabytes). */
export type TemplateVersionSummary = Omit<TemplateVersion, 'html' | 'text' | 'variables'>;

export type Template = {
  id: string;
  teamId: string;
  name: string;
  alias: string | null;
  status: 'draft' | 'published';
  currentVersionId: string;
  publishedVersionId: string | null;
  brandOverrides: BrandOverrides | null;
  createdAt: Date;
  updatedAt: Date;
  publishedAt: Date | null;
};

/** The editable content of a version. */
export type VersionContent = Pick<TemplateVersion, 'from' | 'subject' | 'replyTo' | 'html' | 'text' | 'variables'>;
