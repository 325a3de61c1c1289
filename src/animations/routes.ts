import type { Route } from '../platform/module.ts';
import { jsonBody } from '../http/body.ts';
import { CreateAnimationResponse } from './schemas.ts';
import type { AnimationDeps } from './deps.ts';
import { createAnimation } from './create.ts';
import { DRIVER_BANK } from './driver-bank.ts';

/** Why the reference marks POST /animations deprecated, and what a new integration uses instead. */
const DEPRECATION = [
  'Deprecated because the hosted service\'s interface marks it so: animations are its legacy product, and',
  'creating one is the operation it flags. mimic keeps it working exactly as documented (same body, same',
  'result, same webhook) for the clients that use it, and has no date to remove it.',
  '',
  'For new work: a photo that speaks a script is a **talk** (`POST /talks`, after `POST /images`);',
  'a built-in or trained presenter speaking is a **clip** (`POST /clips`). Both return a video the same',
  'way (poll the record or take the webhook). Nothing replaces a driver video\'s movement without speech.',
].join('\n');

/** Thin handlers: parse, call one verb, shape the response. */
export function animationRoutes(deps: AnimationDeps): Route[] {
  return deps.lifecycle.routes(
    {
      method: 'post', path: '/animations', summary: 'Create an animation', tag: 'Animations', deprecated: true,
      description: DEPRECATION,
      body: deps.schemas.CreateAnimation,
      ok: { status: 201, schema: CreateAnimationResponse, description: 'accepted; the animation is queued' },
      errors: ['BadRequestError', 'AuthorizationError', 'InsufficientCreditsError', 'PermissionError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await createAnimation(deps, c.get('user'), await jsonBody(c)), 201),
    },
    {
      method: 'get', path: '/animations/drivers', summary: 'The driver bank', tag: 'Animations',
      ok: { status: 200, description: 'categories and their drivers' }, errors: ['AuthorizationError'],
      handler: (c) =>
        c.json({
          categories: Object.entries(DRIVER_BANK).map(([category, { description, drivers }]) => ({
            category,
            description,
            url: `bank://${category}/`,
            drivers: drivers.map((name) => `bank://${category}/${name}`),
          })),
        }),
    },
  );
}
