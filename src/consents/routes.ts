import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { Consent, ConsentLanguages, ConsentList, CreateConsentResponse } from '../schemas/consents.ts';
import type { ConsentDeps } from './deps.ts';
import { createConsent, fetchConsent, listLanguages, pageConsents, removeConsent, uploadConsent } from './create.ts';

const id = idParam('the consent id');
const TAG = 'Consents';

export function consentRoutes(deps: ConsentDeps): Route[] {
  return [
    {
      method: 'post', path: '/consents', summary: 'Create a consent: a statement with a passcode to read on video, valid for 30 minutes', tag: TAG,
      body: deps.schemas.CreateConsent,
      ok: { status: 201, schema: CreateConsentResponse, description: 'the statement to read; [user name] is where the person says their name' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError'],
      handler: async (c) => c.json(await createConsent(deps, c.var.user, await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/consents', summary: 'List your consents, newest first', tag: TAG, params: pageParams,
      ok: { status: 200, schema: ConsentList, description: 'a page of consents' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pageConsents(deps, c.var.user.id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/consents/languages', summary: 'The languages a consent may be read in', tag: TAG,
      ok: { status: 200, schema: ConsentLanguages, description: 'each language, and whether its spoken words are checked by speech recognition here' }, errors: ['AuthorizationError'],
      handler: (c) => c.json(listLanguages(deps)),
    },
    {
      method: 'get', path: '/consents/{id}', summary: 'Get a consent, with each verification step as measured', tag: TAG, params: [id],
      ok: { status: 200, schema: Consent, description: 'the consent record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchConsent(deps, c.var.user.id, c.req.param('id')!)),
    },
    {
      method: 'post', path: '/consents/{id}', summary: 'Upload the consent video: starts its verification', tag: TAG, params: [id],
      body: deps.schemas.UploadConsent,
      ok: { status: 200, schema: Consent, description: 'the consent, now validating' },
      errors: ['BadRequestError', 'ValidationError', 'ConsentExpiredError', 'AuthorizationError', 'NotFoundError', 'ConflictError'],
      handler: async (c) => c.json(await uploadConsent(deps, c.var.user, c.req.param('id')!, await jsonBody(c))),
    },
    {
      method: 'delete', path: '/consents/{id}', summary: 'Delete a consent and its stored video', tag: TAG, params: [id],
      ok: { status: 200, schema: Consent, description: 'the deleted record' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await removeConsent(deps, c.var.user.id, c.req.param('id')!)),
    },
  ];
}
