import { ForbiddenValidationError } from '../../../lib/errors.js';
import type { DomainService } from '../domains/domain.service.js';

/**
 * The refusal of a `from` on a domain the team cannot send from (403 validation_error, spec).
 * The message says what to do next: a domain the team has added but not verified names its
 * status and the verify call; another team's domain of that name is never mentioned.
 */
export async function unverifiedDomainRefusal(
  domains: Pick<DomainService, 'repository'>,
  teamId: string,
  name: string,
): Promise<ForbiddenValidationError> {
  // Read fresh (this is the refusal path only): the status named is the one stored now.
  const own = (await domains.repository.findByName(name.toLowerCase())).find((domain) => domain.teamId === teamId);
  if (!own)
    return new ForbiddenValidationError(
      `The domain ${name} is not a domain of this team: add it with POST /domains, publish its DNS records, then POST /domains/<id>/verify`,
    );
  return new ForbiddenValidationError(
    `The domain ${own.name} is not verified (status: ${own.status}); add its DNS records (GET /domains/${own.id} lists them), then POST /domains/${own.id}/verify`,
  );
}
