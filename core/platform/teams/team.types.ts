import type { Plan } from '../plans/plan.catalog.js';

export const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'] as const;
export type Region = (typeof REGIONS)[number];

export const RISK_STATES = ['normal', 'suspended'] as const;
export type RiskState = (typeof RISK_STATES)[number];

export type PostalAddress = {
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  country: string;
};

export const FONTS = ['system', 'helvetica', 'arial', 'verdana', 'georgia', 'times', 'courier'] as const;
export const BUTTON_STYLES = ['square', 'rounded', 'pill'] as const;

export type BrandKit = {
  logo_url: string | null;
  primary_color: string | null;
  accent_color: string | null;
  font: (typeof FONTS)[number] | null;
  button_style: (typeof BUTTON_STYLES)[number] | null;
  company_name: string | null;
  address: string | null;
  footer_text: string | null;
};

export const EMPTY_BRAND_KIT: BrandKit = {
  logo_url: null,
  primary_color: null,
  accent_color: null,
  font: null,
  button_style: null,
  company_name: null,
  address: null,
  footer_text: null,
};

export type Team = {
  id: string;
  name: string;
  slug: string;
  riskState: RiskState;
  plan: Plan;
  sendingTier: number;
  senderName: string | null;
  postalAddress: PostalAddress | null;
  aiAssistEnabled: boolean;
  brandKit: BrandKit;
  createdAt: Date;
  updatedAt: Date;
};

export const TIER_NAMES = ['new', 'verified', 'paid', 'trusted'] as const;
/** The values the spec allows for `sending.next_unlock`. */
export type NextUnlock = 'verify_domain' | 'add_payment_method' | 'operator_review' | null;
/**
 * What unlocks the next tier from each tier (tier 3 is the top). The spec's `add_payment_method`
 * presumes a payment provider, and this appliance has none (see core/platform/billing): the paid
 * tier is the operator's to give (`mailroom team set-tier`), so from tier 1 as from tier 2 the
 * way on is `operator_review`. A payment provider, once there is one, would answer
 * `add_payment_method` from tier 1 again.
 */
export const NEXT_UNLOCK: readonly NextUnlock[] = ['verify_domain', 'operator_review', 'operator_review', null];

export type TeamMember = {
  id: string;
  teamId: string;
  email: string;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  mfaEnabled: boolean;
  createdAt: Date;
};
