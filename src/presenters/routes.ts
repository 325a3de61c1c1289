import type { Route } from '../platform/module.ts';
import { idParam, pageParams } from '../http/params.ts';
import { parsePage } from '../pagination.ts';
import { DeletedPresenter, PresenterList, RenamePresenter } from './schemas.ts';
import type { PresenterCatalogue } from './catalogue.ts';
import { fetchPresenter, pagePresenters, removePresenter, renamePresenter } from './service.ts';
import { jsonBody } from '../http/body.ts';


/** Mounted before the clip routes, so /clips/presenters is not read as a clip id. */
export function presenterRoutes(catalogue: PresenterCatalogue): Route[] {
  return [
    {
      method: 'get', path: '/clips/presenters', summary: 'List the presenters: the built-in ones, then your own', tag: 'Clips', params: pageParams,
      ok: { status: 200, schema: PresenterList, description: 'a page of presenters' }, errors: ['BadRequestError', 'AuthorizationError'],
      handler: async (c) => {
        const { limit, cursor } = parsePage(c.req.query());
        return c.json(await pagePresenters(catalogue, c.get('user').id, limit, cursor));
      },
    },
    {
      method: 'get', path: '/clips/presenters/{id}', summary: 'Get a presenter', tag: 'Clips', params: [idParam('the presenter id')],
      ok: { status: 200, schema: PresenterList, description: 'an object whose presenters array holds the one presenter' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await fetchPresenter(catalogue, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'patch', path: '/clips/presenters/{id}', summary: 'Rename one of your own presenters (a trained avatar)', tag: 'Clips', params: [idParam('the presenter id')],
      body: RenamePresenter,
      ok: { status: 200, schema: PresenterList, description: 'an object whose presenters array holds the renamed presenter' }, errors: ['BadRequestError', 'ValidationError', 'AuthorizationError', 'PermissionError', 'NotFoundError'],
      handler: async (c) => c.json(await renamePresenter(catalogue, c.get('user').id, c.req.param('id')!, await jsonBody(c))),
    },
    {
      method: 'delete', path: '/clips/presenters/{id}', summary: 'Delete one of your own presenters (a trained avatar), with its avatar record and media', tag: 'Clips', params: [idParam('the presenter id')],
      ok: { status: 200, schema: DeletedPresenter, description: 'the id of the deleted presenter' }, errors: ['AuthorizationError', 'PermissionError', 'NotFoundError'],
      handler: async (c) => c.json(await removePresenter(catalogue, c.get('user').id, c.req.param('id')!)),
    },
  ];
}
