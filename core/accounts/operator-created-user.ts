import type { Knex } from 'knex';
import { newId } from '../../lib/ids.js';
import type { User } from './account.types.js';
import type { PasswordChange } from './password-change.js';
import type { UserRepository } from './user.repository.js';

/**
 * The user row behind `mailroom user create` (team member or operator), inside the caller's
 * transaction: a new user is created verified; a known one keeps its name unless it had none,
 * and a given password replaces theirs the way a password change does (locked, sessions ended).
 */
export async function upsertOperatorCreatedUser(
  repositories: { users: UserRepository; passwords: PasswordChange },
  trx: Knex.Transaction,
  input: { email: string; name: string | null; passwordHash: string | null; now: Date },
): Promise<{ user: User; created: boolean }> {
  const { users, passwords } = repositories;
  const { email, name, passwordHash, now } = input;
  const existing = await users.findByEmail(email, trx);
  const user: User = existing
    ? { ...existing, name: existing.name ?? name }
    : { id: newId(), email, name, emailVerifiedAt: now, createdAt: now };
  if (!existing) await users.insert({ ...user, passwordHash }, trx);
  else if (existing.name === null && name !== null) await users.nameIfUnnamed(user.id, name, now, trx);
  if (existing && passwordHash) {
    await passwords.lock(user.id, trx);
    await passwords.apply(user.id, passwordHash, now, trx);
  }
  return { user, created: !existing };
}
