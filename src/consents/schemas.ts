import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, pageOf } from '../schemas/common.ts';

/**
 * JSON Schemas of the consent endpoints (POST /consents, POST /consents/{id}, GET
 * /consents/{id}): the hosted service's shapes plus what mimic measures, the single source of
 * validation, types and the OpenAPI document. The storage scheme is configurable, so the URL
 * pattern is built for it.
 */
export function consentSchemas(storageScheme: string) {
  const s = storageScheme.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const CreateConsent = Type.Object(
    { language: Type.String({ minLength: 1, maxLength: 40, description: 'the language of the statement, its English name in any case, e.g. `english` or `English` (GET /consents/languages lists them; the record shows it in lower case)' }) },
    { additionalProperties: false, $id: 'CreateConsent' },
  );
  const UploadConsent = Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'the name the person says in place of [user name]' }),
      source_url: Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// or ${storageScheme}:// URL of the recorded video (mp4, mov or webm; at most MIMIC_CONSENT_MAX_BYTES)` }),
      webhook: Type.Optional(Type.String({ pattern: '^(?:|https://[^\\s]+)$', description: 'https URL told of `done` and `error`; empty means none' })),
    },
    { additionalProperties: false, $id: 'UploadConsent' },
  );
  return { CreateConsent, UploadConsent };
}
export type ConsentSchemas = ReturnType<typeof consentSchemas>;
export type UploadConsentBody = Static<ConsentSchemas['UploadConsent']>;

export const ConsentStatus = Type.Union([Type.Literal('created'), Type.Literal('validating'), Type.Literal('done'), Type.Literal('error')], { $id: 'ConsentStatus' });

/** The passcode's words, in the order they are said (they are also in `text`): for a page that shows them large. */
const Passcode = Type.Array(Type.String(), { minItems: 3, maxItems: 3, description: 'the three passcode words of `text`, in order (mimic\'s addition: a page may show them large)' });

export const CreateConsentResponse = Type.Object(
  {
    id: Type.String({ description: 'the consent id, used later as consent_id' }),
    created_at: IsoTime,
    created_by: Type.String(),
    text: Type.String({ description: 'the statement to read, with [user name] and a passcode of three words' }),
    passcode: Passcode,
    language: Type.String(),
    expires_at: IsoTime,
  },
  { additionalProperties: false, $id: 'CreateConsentResponse' },
);

/** One verification step: what was measured, the limit, and whether it passed. */
export const VerificationStep = Type.Object(
  {
    check: Type.String({ description: 'decodes, sound, one_face, facing_camera, speech_length, words' }),
    passed: Type.Boolean(),
    measured: Type.Unknown({ description: 'the values measured' }),
    limit: Type.Unknown({ description: 'what passes' }),
    note: Type.Optional(Type.String()),
  },
  { $id: 'ConsentVerificationStep' },
);

export const Consent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('consent'),
    created_at: IsoTime,
    modified_at: IsoTime,
    created_by: Type.String(),
    owner_id: Type.String(),
    language: Type.String(),
    text: Type.String(),
    passcode: Passcode,
    expires_at: IsoTime,
    status: ConsentStatus,
    name: Type.Union([Type.String(), Type.Null()], { description: 'the name given with the upload; null before' }),
    video_url: Type.Union([Type.String(), Type.Null()], { description: 'signed URL of the uploaded video, once fetched' }),
    thumbnail_url: Type.Union([Type.String(), Type.Null()], { description: 'signed URL of a frame of the video showing the face' }),
    verified_at: Type.Optional(IsoTime),
    verification: Type.Object(
      {
        steps: Type.Array(VerificationStep),
        review: Type.Optional(
          Type.Object({
            state: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
            reason: Type.String(),
            decided_at: Type.Optional(IsoTime),
          }, { description: 'when an operator must decide (a language without an offline recogniser): `mimic consents review`' }),
        ),
      },
      { description: 'each check as measured; steps appear as they run' },
    ),
    used_by: Type.Union([Type.String(), Type.Null()], { description: 'the avatar that used this consent; a consent is used once' }),
    webhook: Type.Optional(Type.String()),
    error: Type.Optional(Type.Object({ kind: Type.String(), description: Type.String(), details: Type.Optional(Type.Unknown()) })),
  },
  { $id: 'Consent' },
);
export type ConsentView = Static<typeof Consent>;

export const ConsentList = pageOf('consents', Consent, 'ConsentList');

export const ConsentLanguages = Type.Object(
  { languages: Type.Array(Type.Object({ name: Type.String(), code: Type.String(), recognised: Type.Boolean({ description: 'spoken words are checked by speech recognition; otherwise a length check and an operator review' }) })) },
  { $id: 'ConsentLanguages' },
);
