import type { MfaStatus } from '../../core/accounts/account.types.js';

/** The spec's MfaStatus shape. */
export function serializeMfaStatus(status: MfaStatus) {
  return {
    object: 'mfa' as const,
    enabled: status.enabled,
    enabled_at: status.enabledAt?.toISOString() ?? null,
    enrolling: status.enrolling,
    recovery_codes_remaining: status.recoveryCodesRemaining,
    has_password: status.hasPassword,
  };
}
