/**
 * The cluster: Parley instances on one database announce themselves with a heartbeat, so that the
 * leased jobs of one that stopped are released at once instead of when their leases expire.
 */

/** One instance's row, as stored. */
export interface InstanceRecord {
  /** The instance id; the lease owner of the jobs it claims. */
  id: string;
  /** Moved by one at every heartbeat. */
  beat: number;
  /** The instance's own clock at its last heartbeat, ms. */
  heartbeatAt: number;
  startedAt: number;
  /** Jobs running in the instance at its last heartbeat. */
  inFlight: number;
}

/** What a take-over did: nothing when another instance took over first or the beat moved. */
export interface TakeOver {
  taken: boolean;
  /** Jobs whose lease was released (ready again). */
  jobs: number;
  /** Their queues, to wake. */
  queues: string[];
}

export interface InstancesRepository {
  /**
   * Writes this instance's heartbeat. Answers false when its row was gone (first beat, or
   * another instance declared it dead and took over its jobs), true when it updated it.
   */
  beat(record: InstanceRecord): Promise<boolean>;
  list(): Promise<InstanceRecord[]>;
  /**
   * In one transaction: removes the instance's row if its beat is still `beat`, and if it did,
   * releases the leases it holds (the jobs become ready again, attempts unchanged).
   */
  takeOver(id: string, beat: number): Promise<TakeOver>;
  /** Removes this instance's row (clean stop). */
  remove(id: string): Promise<void>;
}

/** An instance as /readyz and the console show it. */
export interface InstanceView {
  id: string;
  /** This is the instance answering. */
  self: boolean;
  inFlight: number;
  /** The instance's last heartbeat, by its own clock (ISO 8601). */
  lastHeartbeat: string;
  /** Since its beat last moved, by the answering instance's clock, ms. */
  heartbeatAgeMs: number;
  startedAt: string;
}
