import type { Domain } from './domain.types.js';

/** The name a domain receives mail at: the domain itself (`@`) or `<label>.<domain>`. */
export const receivingName = (domain: Pick<Domain, 'name' | 'receivingHost'>): string =>
  domain.receivingHost === '@' ? domain.name : `${domain.receivingHost}.${domain.name}`;
