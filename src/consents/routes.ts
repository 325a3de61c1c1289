import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam } from '../http/params.ts';
import { resourceReadRoutes } from '../http/resource-routes.ts';
import { Consent, ConsentLanguages, ConsentList, CreateConsentResponse } from './schemas.ts';
import type { ConsentDeps } from './deps.ts';
import { createConsent, fetchConsent, listLanguages, pageConsents, removeConsent, uploadConsent } from './create.ts';

const TAG = 'Consents';

export function consentRoutes(deps: ConsentDeps): Route[] {
  const reads = resourceReadRoutes({
    base: '/consents', one: 'consent', many: 'consents', tag: TAG, record: Consent, list: ConsentList, removes: 'its stored video',
    page: (userId, limit, cursor) => pageConsents(deps, userId, limit, cursor),
    fetch: (userId, id) => fetchConsent(deps, userId, id),
    remove: (userId, id) => removeConsent(deps, userId, id),
  });
  return [
    {
      method: 'post', path: '/consents', summary: 'Create a consent: a statement with a passcode to read on video, valid for 30 minutes', tag: TAG,
      body: deps.schemas.CreateConsent,
      ok: { status: 201, schema: CreateConsentResponse, description: 'the statement to read; [user name] is where the person says their name' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError'],
      handler: async (c) => c.json(await createConsent(deps, c.var.user, await jsonBody(c)), 201),
    },
    reads.list,
    {
      method: 'get', path: '/consents/languages', summary: 'The languages a consent may be read in', tag: TAG,
      ok: { status: 200, schema: ConsentLanguages, description: 'each language, and whether its spoken words are checked by speech recognition here' }, errors: ['AuthorizationError'],
      handler: (c) => c.json(listLanguages(deps)),
    },
    { ...reads.get, summary: 'Get a consent, with each verification step as measured' },
    {
      method: 'post', path: '/consents/{id}', summary: 'Upload the consent video: starts its verification', tag: TAG, params: [idParam('the consent id')],
      body: deps.schemas.UploadConsent,
      ok: { status: 200, schema: Consent, description: 'the consent, now validating' },
      errors: ['BadRequestError', 'ValidationError', 'ConsentExpiredError', 'AuthorizationError', 'NotFoundError', 'ConflictError'],
      handler: async (c) => c.json(await uploadConsent(deps, c.var.user, c.req.param('id')!, await jsonBody(c))),
    },
    reads.remove,
  ];
}
