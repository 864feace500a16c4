export type ApiKeyPermission = 'full_access' | 'sending_access';

export const API_KEY_STATUSES = ['active', 'revoked', 'suspended'] as const;
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

export type ApiKey = {
  id: string;
  teamId: string;
  name: string;
  permission: ApiKeyPermission;
  domainId: string | null;
  keyPrefix: string;
  status: ApiKeyStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Derived from the request log (the newest request made with this key), not stored. */
  lastUsedRequestLogId: string | null;
};
