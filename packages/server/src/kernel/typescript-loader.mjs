// Preloaded (`--import`) into worker threads started from the TypeScript sources, see
// worker-file.ts. It is JavaScript because it runs before any TypeScript can load. tsx's own
// `--import tsx` registers its loader only on the main thread before Node 22.22.3, so a worker
// registers it itself here.
import { register } from 'tsx/esm/api';

register();
