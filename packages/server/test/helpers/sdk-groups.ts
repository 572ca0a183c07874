/** What the SDK group tests read off a client: its group events, and the SDK's error codes. */
import type { SdkClient } from './easemob-sdk.js';
import { waitFor } from './im.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** The `onGroupEvent`s of a client with this operation on this group (from `from`, when given), once there is one. */
export const groupEvents = (client: SdkClient, operation: string, groupId: string, from?: string): Promise<Any[]> =>
  waitFor(
    () => client.of('groupEvent').filter((e: Any) => e.operation === operation && e.id === groupId && (from === undefined || e.from === from)),
    (list) => list.length >= 1,
  );

/** The SDK's table of error codes (`statusCode`), whichever way the package exports it. */
export const errorsOf = (client: SdkClient): Any => client.sdk.default?.statusCode ?? client.sdk.statusCode;
