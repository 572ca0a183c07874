/**
 * Secret rotation with an overlap (contract 6.6): `POST …/secret` takes `{overlap_seconds?}`; for
 * that long the previous secret stays valid beside the new one. Used by the association Client
 * Secret, callback rule secrets and IM app client secrets.
 */
import { Type, type Static } from 'typebox';

/** The overlap when the request names none: 24 hours. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;
/** The longest overlap: 7 days. */
export const MAX_SECRET_OVERLAP_SECONDS = 604_800;

export const RotateSecretRequest = Type.Object(
  {
    overlap_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SECRET_OVERLAP_SECONDS,
        description: 'How long the previous secret stays valid beside the new one (default 86400; 0 ends it at once)',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ overlap_seconds: 3600 }] },
);
export type RotateSecretRequest = Static<typeof RotateSecretRequest>;
