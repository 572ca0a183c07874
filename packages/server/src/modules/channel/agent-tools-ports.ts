/**
 * Storage ports of the agents' everyday tools (contract 6.4): notes, labels, canned replies;
 * implemented in src/storage/repositories/channel-agent-tools.ts.
 */
export interface Note {
  id: number;
  text: string;
  author: { id: number; nickname: string } | null;
  createdAt: number;
}

export interface CannedReply {
  id: number;
  tenantId: number;
  /** 0: the tenant's; else the agent whose own it is. */
  ownerId: number;
  shortcut: string;
  text: string;
  createdAt: number;
  updatedAt: number;
}

export interface AgentToolsRepository {
  addNote(tenantId: number, conversationId: number, authorId: number, text: string, now: number): Promise<number>;
  notes(conversationId: number): Promise<Note[]>;
  /** Replaces the conversation's labels (one transaction); answers them sorted. */
  setLabels(tenantId: number, conversationId: number, labels: readonly string[]): Promise<string[]>;
  /** A unique-key conflict (the shortcut taken) reaches the caller as the kernel's Conflict. */
  createCanned(reply: Omit<CannedReply, 'id'>): Promise<CannedReply>;
  /** The tenant's canned replies and the agent's own, by shortcut. */
  listCanned(tenantId: number, agentId: number): Promise<CannedReply[]>;
  getCanned(tenantId: number, id: number): Promise<CannedReply | undefined>;
  updateCanned(tenantId: number, id: number, patch: { shortcut?: string; text?: string }, now: number): Promise<CannedReply | undefined>;
  deleteCanned(tenantId: number, id: number): Promise<boolean>;
}
