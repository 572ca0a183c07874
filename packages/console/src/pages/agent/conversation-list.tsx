import type { ConversationView } from '@parley/protocol';
import { formatTime } from '../../format.js';
import { waitingFor } from './events.js';

function preview(c: ConversationView): string {
  const body = c.lastMessage?.bodies[0];
  if (!body) return '';
  if (body.type === 'txt') return body.msg ?? '';
  return `[${body.type}] ${body.filename ?? ''}`;
}

interface ConversationItemProps {
  conversation: ConversationView;
  current: boolean;
  unread: boolean;
  onOpen(id: number): void;
  /** "Waiting 3 min", for the queue. */
  waitingSince?: number | undefined;
  /** Who holds it, for lists that are not the user's own. */
  showAgent?: boolean;
  /** When it closed, for the history. */
  showClosed?: boolean;
  /** The conversation's labels, for the inbox. */
  showLabels?: boolean;
}

/** One conversation in a list: name, VIP and unread markers, the last message, and context. */
export function ConversationItem({ conversation: c, current, unread, onOpen, waitingSince, showAgent, showClosed, showLabels }: ConversationItemProps) {
  return (
    <li>
      <button type="button" className="conversation-item" aria-current={current ? 'true' : undefined} data-unread={unread ? 'true' : undefined} onClick={() => onOpen(c.id)}>
        <span className="conversation-name">
          {c.vip && <span className="badge badge-vip">VIP</span>}
          {c.visitor.user_nickname ?? c.visitor.customer_id}
          {unread && <span className="badge badge-unread">New</span>}
        </span>
        <span className="conversation-preview">{preview(c)}</span>
        {waitingSince !== undefined && <span className="muted small-text">Waiting {waitingFor(waitingSince - c.createdAt)}</span>}
        {showAgent && <span className="muted small-text">{c.agent ? `Agent: ${c.agent.nickname}` : 'Nobody holds it'}</span>}
        {showClosed && c.closedAt !== null && <span className="muted small-text">Closed {formatTime(c.closedAt)}</span>}
        {showLabels && c.labels.length > 0 && (
          <span className="conversation-labels">
            {c.labels.map((l) => (
              <span key={l} className="badge badge-label">
                {l}
              </span>
            ))}
          </span>
        )}
      </button>
    </li>
  );
}
