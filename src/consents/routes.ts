import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { idParam } from '../http/params.ts';
import { Consent, ConsentLanguages, CreateConsentResponse } from './schemas.ts';
import type { ConsentDeps } from './deps.ts';
import { createConsent, listLanguages, uploadConsent } from './create.ts';

const TAG = 'Consents';

export function consentRoutes(deps: ConsentDeps): Route[] {
  return deps.lifecycle.routes(
    {
      method: 'post', path: '/consents', summary: 'Create a consent: a statement with a passcode to read on video, valid for 30 minutes', tag: TAG,
      body: deps.schemas.CreateConsent,
      ok: { status: 201, schema: CreateConsentResponse, description: 'the statement to read; [user name] is where the person says their name' },
      errors: ['BadRequestError', 'ValidationError', 'AuthorizationError'],
      handler: async (c) => c.json(await createConsent(deps, c.get('user'), await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/consents/languages', summary: 'The languages a consent may be read in', tag: TAG,
      ok: { status: 200, schema: ConsentLanguages, description: 'each language, and whether its spoken words are checked by speech recognition here' }, errors: ['AuthorizationError'],
      handler: (c) => c.json(listLanguages(deps)),
    },
    {
      method: 'post', path: '/consents/{id}', summary: 'Upload the consent video: starts its verification', tag: TAG, params: [idParam('the consent id')],
      body: deps.schemas.UploadConsent,
      ok: { status: 200, schema: Consent, description: 'the consent, now validating' },
      errors: ['BadRequestError', 'ValidationError', 'ConsentExpiredError', 'AuthorizationError', 'NotFoundError', 'ConflictError'],
      handler: async (c) => c.json(await uploadConsent(deps, c.get('user'), c.req.param('id')!, await jsonBody(c))),
    },
  );
}
