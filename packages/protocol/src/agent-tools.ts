/**
 * The agents' everyday tools (contract 6.4): private notes on a conversation (never pushed), its
 * labels, and canned replies of the tenant or of one agent.
 */
import { Type, type Static } from 'typebox';

export const NoteRequest = Type.Object({ text: Type.String({ minLength: 1, maxLength: 4000 }) }, { additionalProperties: false, examples: [{ text: 'Called back about the refund; waiting for the bank.' }] });
export type NoteRequest = Static<typeof NoteRequest>;

export const NoteView = Type.Object(
  {
    id: Type.Integer(),
    text: Type.String(),
    author: Type.Union([Type.Object({ id: Type.Integer(), nickname: Type.String() }), Type.Null()]),
    createdAt: Type.Integer(),
  },
  { examples: [{ id: 3, text: 'Called back about the refund; waiting for the bank.', author: { id: 7, nickname: 'Lily' }, createdAt: 1893456000000 }] },
);
export type NoteView = Static<typeof NoteView>;

export const Label = Type.String({ minLength: 1, maxLength: 64 });
export const LabelsRequest = Type.Object({ labels: Type.Array(Label, { maxItems: 20, uniqueItems: true }) }, { additionalProperties: false, examples: [{ labels: ['refund', 'priority'] }] });
export type LabelsRequest = Static<typeof LabelsRequest>;
export const LabelsView = Type.Object({ labels: Type.Array(Type.String()) }, { examples: [{ labels: ['priority', 'refund'] }] });
export type LabelsView = Static<typeof LabelsView>;

export const CannedScope = Type.Union([Type.Literal('tenant'), Type.Literal('personal')]);
export type CannedScope = Static<typeof CannedScope>;
const Shortcut = Type.String({ pattern: '^[\\p{L}\\p{N}_-]{1,32}$', description: 'What follows `/` in the reply box: letters, digits, `_` and `-`, at most 32' });
const CannedText = Type.String({ minLength: 1, maxLength: 4000 });

export const CannedReplyRequest = Type.Object(
  { shortcut: Shortcut, text: CannedText, scope: CannedScope },
  { additionalProperties: false, examples: [{ shortcut: 'refund', text: 'Your refund is on its way and arrives within 3 working days.', scope: 'tenant' }] },
);
export type CannedReplyRequest = Static<typeof CannedReplyRequest>;

export const CannedReplyUpdate = Type.Object({ shortcut: Type.Optional(Shortcut), text: Type.Optional(CannedText) }, { additionalProperties: false, examples: [{ text: 'Your refund arrives within 3 working days.' }] });
export type CannedReplyUpdate = Static<typeof CannedReplyUpdate>;

export const CannedReplyView = Type.Object(
  { id: Type.Integer(), shortcut: Type.String(), text: Type.String(), scope: CannedScope, createdAt: Type.Integer(), updatedAt: Type.Integer() },
  { examples: [{ id: 4, shortcut: 'refund', text: 'Your refund is on its way and arrives within 3 working days.', scope: 'tenant', createdAt: 1893456000000, updatedAt: 1893456000000 }] },
);
export type CannedReplyView = Static<typeof CannedReplyView>;

export const CannedReplyParams = Type.Object({
  tenantId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
export type CannedReplyParams = Static<typeof CannedReplyParams>;
