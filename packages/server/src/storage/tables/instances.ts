/** Running Parley instances and their heartbeat (modules/cluster). */
export interface InstancesTable {
  /** The instance id; also the lease owner (`jobs.locked_by`) of the jobs it claims. */
  id: string;
  /** Moved by one at every heartbeat: observers time its changes on their own clock. */
  beat: number;
  /** The instance's own clock at its last heartbeat, ms (shown, not compared across instances). */
  heartbeat_at: number;
  started_at: number;
  /** Jobs running in the instance at its last heartbeat (claimed and not yet completed). */
  in_flight: number;
}

export interface InstancesTables {
  instances: InstancesTable;
}
