/**
 * V8 flags Parley runs with. `npm start` passes them, and so do the benchmarks and the tests that
 * start the built service. They must be given on the command line or in NODE_OPTIONS: V8 sizes
 * its heap when it starts, so setting them from code later has no effect.
 *
 * --max-semi-space-size=32: a young generation of 2 x 32 MiB instead of Node 20's 2 x 16 MiB.
 * Under load most objects of a request (its body, parsed message, query parameters, promises)
 * live until the group commit that stores it, a few milliseconds; with the smaller young
 * generation they survive one or two scavenges and are copied each time. Under
 * `npm run bench:ingest` the larger one cuts garbage collection to a few per cent of the
 * service's CPU; 64 MiB gains nothing more.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** The flags of NODE_FLAGS this process was started without. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((flag) => flag.split('=')[0]));
  return NODE_FLAGS.filter((flag) => !given.has(flag.split('=')[0]));
}
