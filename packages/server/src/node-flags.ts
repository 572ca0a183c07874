/**
 * V8 flags Parley runs with. `npm start` passes them, and so do the benchmarks and the tests that
 * start the built service. They must be given on the command line or in NODE_OPTIONS: V8 sizes
 * its heap when it starts, so setting them from code later has no effect.
 *
 * --max-semi-space-size=32: a young generation of 2 x 32 MiB instead of Node 20's 2 x 16 MiB.
 * Under load most objects of a request (its body, parsed message, query parameters, promises)
 * live until the group commit that stores it, a few milliseconds; with the smaller young
 * generation they survived one or two scavenges and were copied each time. Measured with
 * `npm run bench:ingest`: garbage collection went from 14% to 4% of the service's CPU and the
 * rate rose by 12% (docs/channel.md §7). 64 MiB gained nothing more.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** The flags of NODE_FLAGS this process was started without. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map((flag) => flag.split('=')[0]));
  return NODE_FLAGS.filter((flag) => !given.has(flag.split('=')[0]));
}
