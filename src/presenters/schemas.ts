import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, pageOf } from '../schemas/common.ts';
import { VoiceRef } from '../speaking/schemas.ts';

/** JSON Schemas of the presenter endpoints: the hosted service's shapes (GET, PATCH and DELETE /clips/presenters[/{id}]). */
export const Presenter = Type.Object(
  {
    presenter_id: Type.String(),
    name: Type.String(),
    gender: Type.String({ description: 'male, female or other' }),
    owner_id: Type.String({ description: '"mimic" for the built-in presenters' }),
    created_at: IsoTime,
    modified_at: IsoTime,
    preview_url: Type.String({ description: 'signed URL of a small still of the presenter' }),
    thumbnail_url: Type.String({ description: 'signed URL of a small still of the presenter' }),
    image_url: Type.String({ description: 'signed URL of the presenter picture' }),
    talking_preview_url: Type.String({ description: 'signed URL of a short clip mimic renders of the presenter speaking; fetched before the render has finished, it waits for it (up to 150 s, then 503)' }),
    voice: VoiceRef,
    is_streamable: Type.Boolean(),
  },
  { $id: 'Presenter' },
);
export type PresenterView = Static<typeof Presenter>;

export const PresenterList = pageOf('presenters', Presenter, 'PresenterList');

export const RenamePresenter = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'the new display name' }) },
  { additionalProperties: false, $id: 'RenamePresenter' },
);

export const DeletedPresenter = Type.Object({ deleted: Type.String({ description: 'the presenter id' }) }, { $id: 'DeletedPresenter' });
