import { z } from 'zod';
import {
  createDomainSchema,
  listDomainsQuerySchema,
  rotateDkimSchema,
  updateDomainSchema,
} from '../../core/sending/domains/domain.schemas.js';
import { listEnvelope } from '../../core/shared/pagination/list-query.js';
import { domainDetail, domainItem } from './domain-shapes.js';
import { defineRoute } from '../route.js';
import { deletedSchema, listSchema, uuidParam } from '../schemas.js';
import { serializeDomain, serializeDomainItem } from '../serializers/domain.serializer.js';
import { answeredId, auditEvent } from '../audit-events.js';

const tag = 'domains';
const params = z.object({ domain_id: uuidParam('Domain id') });
const isolation = { param: 'domain_id', resource: 'domain' };
const ref = z.object({ object: z.literal('domain'), id: z.string() });

export const domainRoutes = [
  defineRoute({
    method: 'POST',
    path: '/domains',
    operationId: 'createDomain',
    summary: 'Add a domain; answers the DNS records to publish',
    tag,
    permission: 'full_access',
    scope: null,
    body: createDomainSchema,
    exampleBody: { name: 'mail.example.com' },
    responses: { 201: { description: 'Created (status not_started)', schema: domainDetail } },
    audit: ({ body }, result) => auditEvent('domain.created', 'domain', answeredId(result), { name: body.name }),
    handler: async ({ body, caller, services }) => ({
      status: 201,
      body: serializeDomain(await services.domains.create(caller.team, body)),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/domains',
    operationId: 'listDomains',
    summary: 'List domains, newest first',
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    query: listDomainsQuerySchema,
    responses: { 200: { description: 'A page of domains', schema: listSchema(domainItem) } },
    handler: async ({ query, caller, services }) => {
      const { domains, hasMore } = await services.domains.list(caller.team.id, query);
      return { status: 200, body: listEnvelope(domains.map(serializeDomainItem), hasMore) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/domains/:domain_id',
    operationId: 'getDomain',
    summary: 'Retrieve a domain with its records and their statuses',
    tag,
    permission: 'full_access',
    scope: 'domains:read',
    params,
    isolation,
    responses: { 200: { description: 'The domain', schema: domainDetail } },
    handler: async ({ params, caller, services }) => ({
      status: 200,
      body: serializeDomain(await services.domains.get(caller.team.id, params.domain_id)),
    }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/domains/:domain_id',
    operationId: 'updateDomain',
    summary: 'Change tracking, TLS policy or capabilities',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: updateDomainSchema,
    exampleBody: { open_tracking: true },
    responses: { 200: { description: 'Updated', schema: ref } },
    audit: ({ params, body }) =>
      auditEvent('domain.updated', 'domain', params.domain_id, { changed: Object.keys(body) }),
    handler: async ({ params, body, caller, services }) => {
      const view = await services.domains.update(caller.team.id, params.domain_id, body);
      return { status: 200, body: { object: 'domain', id: view.domain.id } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/domains/:domain_id',
    operationId: 'deleteDomain',
    summary: 'Remove a domain and its keys',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Deleted', schema: deletedSchema('domain') } },
    audit: ({ params }) => auditEvent('domain.deleted', 'domain', params.domain_id),
    handler: async ({ params, caller, services }) => {
      const domain = await services.domains.remove(caller.team.id, params.domain_id);
      return { status: 200, body: { object: 'domain', id: domain.id, deleted: true } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/domains/:domain_id/verify',
    operationId: 'verifyDomain',
    summary: 'Check the DNS records now and keep checking until verified',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    responses: { 200: { description: 'Checked', schema: ref } },
    audit: ({ params }) => auditEvent('domain.verification_requested', 'domain', params.domain_id),
    handler: async ({ params, caller, services }) => {
      const view = await services.domainVerification.verify(caller.team.id, params.domain_id);
      return { status: 200, body: { object: 'domain', id: view.domain.id } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/domains/:domain_id/dkim/rotate',
    operationId: 'rotateDomainDkim',
    summary: 'Publish a new DKIM key; it signs once its record verifies',
    tag,
    permission: 'full_access',
    scope: null,
    params,
    isolation,
    body: rotateDkimSchema,
    exampleBody: { algorithm: 'rsa' },
    responses: { 200: { description: 'The domain with the new key among its records', schema: domainDetail } },
    audit: ({ params, body }) =>
      auditEvent('domain.dkim_rotated', 'domain', params.domain_id, { algorithm: body.algorithm ?? null }),
    handler: async ({ params, body, caller, services }) => ({
      status: 200,
      body: serializeDomain(await services.domains.rotateDkim(caller.team.id, params.domain_id, body.algorithm)),
    }),
  }),
];
