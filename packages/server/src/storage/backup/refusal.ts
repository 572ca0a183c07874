/** A backup, restore or copy that was refused: exit 1 (refused) or 2 (bad usage or configuration). */
export class Refused extends Error {
  override name = 'Refused';
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
