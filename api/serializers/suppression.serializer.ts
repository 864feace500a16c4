/** The shaping lives in core: suppression.* webhook events carry the same object. */
export {
  publicSuppression as serializeSuppression,
  publicSuppressionItem as serializeSuppressionItem,
} from '../../core/sending/suppressions/suppression.shape.js';
