/**
 * The cluster view: `GET /readyz`, which every instance answers without authentication (it is
 * what load balancers probe). 503 still carries the body: an instance that is not ready says why.
 */
import { ApiError } from './client.js';

export interface ClusterInstance {
  id: string;
  /** The instance that answered. */
  self: boolean;
  in_flight: number;
  last_heartbeat: string;
  heartbeat_age_ms: number;
  started_at: string;
}

export interface ClusterView {
  status: 'ready' | 'not_ready';
  checks: Record<string, string>;
  /** Absent when the instances could not be read (the storage check then says why). */
  instances?: ClusterInstance[];
}

export async function readCluster(signal?: AbortSignal): Promise<ClusterView> {
  let response: Response;
  try {
    response = await fetch('/readyz', { headers: { accept: 'application/json' }, signal: signal ?? null });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'network_error', 'Could not reach the Parley server. Check that it is running and try again.', undefined);
  }
  if (response.status !== 200 && response.status !== 503) {
    throw new ApiError(response.status, 'unexpected_status', `/readyz answered HTTP ${response.status}.`, undefined);
  }
  return (await response.json()) as ClusterView;
}
