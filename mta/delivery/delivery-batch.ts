import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Domain } from '../../core/sending/domains/domain.types.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { Provider } from '../../core/sending/shaping/provider-matcher.js';
import type { EgressAddress } from '../../lib/config/egress-pools.js';
import type { PreparedMessage } from './message-preparer.js';

/** The recipients of one email at one destination domain: one SMTP transaction. */
export type DeliveryBatch = {
  email: Email;
  domain: Domain;
  deliveries: Delivery[];
  message: PreparedMessage;
  egress: EgressAddress;
  /** The destination's mailbox provider (traffic shaping; its replies may draw a reaction). */
  provider?: Provider;
  /** The egress address is warming up (its answers are counted in its warm-up progress). */
  warming?: boolean;
};

/** What the worker does with a batch's outcome: settle rows, record events (see outcome-recorder). */
export type AttemptContext = { egressIp: string | null; mxHost: string | null; transcript: string; startedAt: number };
