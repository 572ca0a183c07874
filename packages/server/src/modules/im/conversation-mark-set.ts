/**
 * Easemob's conversation marks (the SDK's `CONVERSATION_MARK`, `mark_0` … `mark_19`): a user's
 * marks on one conversation are a bit set, bit n for `mark_n`. Pure helpers for reading the
 * marks' wire names and for the bit set.
 */
import { AppError } from '../../kernel/errors.js';

/** How many marks there are (`mark_0` … `mark_19`). */
export const CONVERSATION_MARKS = 20;
/** How many conversations one mark call may name (Easemob's limit). */
export const MARK_TARGETS_MAX = 20;

const MARK_NAME = /^mark_(\d{1,2})$/;

/** The mark a wire name (`mark_3`) stands for; any other value is 400 `illegal_argument` naming `field`. */
export function markOf(name: string, field: string): number {
  const digits = MARK_NAME.exec(name)?.[1];
  const mark = Number(digits);
  if (digits === undefined || String(mark) !== digits || mark >= CONVERSATION_MARKS) {
    throw new AppError('illegal_argument', { detail: `${field}: "${name.slice(0, 40)}" is not a conversation mark (mark_0 … mark_${CONVERSATION_MARKS - 1})` });
  }
  return mark;
}

/** The bit of one mark in a set. */
export const markBit = (mark: number): number => 1 << mark;

/** Whether the set holds the mark. */
export const hasMark = (set: number, mark: number): boolean => (set & markBit(mark)) !== 0;

/** The wire names of a set's marks, lowest first (`["mark_0", "mark_3"]`). */
export function markNames(set: number): string[] {
  const names: string[] = [];
  for (let mark = 0; mark < CONVERSATION_MARKS; mark++) if (hasMark(set, mark)) names.push(`mark_${mark}`);
  return names;
}
