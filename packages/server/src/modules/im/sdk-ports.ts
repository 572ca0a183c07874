/**
 * Storage ports of the SDK surface (contract 6.8): an app's allowed origins, user attributes,
 * contacts and block lists. The Kysely implementations live in src/storage/repositories/imSdk.ts.
 */

export interface ImOriginsRepository {
  /** The app's allowed origins; null when never set (every origin). */
  getOrigins(appId: string): Promise<string[] | null>;
  setOrigins(appId: string, origins: string[], now: number): Promise<void>;
}
