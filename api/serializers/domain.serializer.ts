/** The shaping lives in core: domain.* webhook events carry the same object. */
export {
  publicDomain as serializeDomain,
  publicDomainItem as serializeDomainItem,
} from '../../core/sending/domains/domain.shape.js';
