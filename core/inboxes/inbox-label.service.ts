import type { Clock } from '../../lib/clock.js';
import { MissingRequiredFieldError, NotFoundError, UnprocessableValidationError } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import type { InboxLabelRepository } from './inbox-label.repository.js';
import type { Inbox, InboxLabel } from './inbox.types.js';

/** The colour a label gets when none is given. */
export const DEFAULT_LABEL_COLOR = '#6B7280';

/** An inbox's labels: a name (unique in the inbox, whatever the case) and a #RRGGBB colour. */
export class InboxLabelService {
  constructor(private readonly deps: { clock: Clock; repository: InboxLabelRepository }) {}

  list(inbox: Inbox): Promise<InboxLabel[]> {
    return this.deps.repository.list(inbox.id);
  }

  async find(inbox: Inbox, id: string): Promise<InboxLabel> {
    const label = isUuid(id) ? await this.deps.repository.find(inbox.id, id.toLowerCase()) : undefined;
    if (!label) throw new NotFoundError('Label not found');
    return label;
  }

  async create(inbox: Inbox, input: { name: string; color?: string }): Promise<InboxLabel> {
    await this.assertNameFree(inbox, input.name);
    const label: InboxLabel = {
      id: newId(),
      inboxId: inbox.id,
      name: input.name,
      color: (input.color ?? DEFAULT_LABEL_COLOR).toUpperCase(),
      createdAt: this.deps.clock.now(),
    };
    await this.deps.repository.insert(label, inbox.teamId);
    return label;
  }

  async update(inbox: Inbox, id: string, input: { name?: string; color?: string }): Promise<InboxLabel> {
    if (input.name === undefined && input.color === undefined)
      throw new MissingRequiredFieldError('Send at least one of name and color', {
        errors: [{ path: '', message: 'at least one field is required' }],
      });
    const label = await this.find(inbox, id);
    if (input.name !== undefined && input.name.toLowerCase() !== label.name.toLowerCase())
      await this.assertNameFree(inbox, input.name);
    await this.deps.repository.update(label.id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.color !== undefined ? { color: input.color.toUpperCase() } : {}),
    });
    return this.find(inbox, label.id);
  }

  /** Removing a label takes it off every thread. */
  async remove(inbox: Inbox, id: string): Promise<InboxLabel> {
    const label = await this.find(inbox, id);
    await this.deps.repository.remove(label.id);
    return label;
  }

  /** These ids as labels of the inbox; an id that is not one is a 422 naming it. */
  async existing(inbox: Inbox, ids: string[]): Promise<InboxLabel[]> {
    const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
    const found = await this.deps.repository.byIds(inbox.id, wanted.filter(isUuid));
    const missing = wanted.filter((id) => !found.some((label) => label.id === id));
    if (missing.length > 0)
      throw new UnprocessableValidationError(`No label of this inbox has the id ${missing.join(', ')}`, {
        errors: missing.map((id) => ({ path: 'labels', message: `${id} is not a label of this inbox` })),
      });
    return wanted.map((id) => found.find((label) => label.id === id)!);
  }

  private async assertNameFree(inbox: Inbox, name: string): Promise<void> {
    if (await this.deps.repository.findByName(inbox.id, name))
      throw new UnprocessableValidationError(`This inbox already has a label named ${name}`, {
        errors: [{ path: 'name', message: 'is already used by another label of this inbox' }],
      });
  }
}
