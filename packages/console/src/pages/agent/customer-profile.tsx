import type { ConversationView, VisitorView } from '@parley/protocol';
import { EmptyState } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { formatTime } from '../../format.js';

const PROFILE_FIELDS: Array<[keyof Omit<VisitorView, 'tags'>, string]> = [
  ['customer_id', 'Customer ID'],
  ['user_nickname', 'Nickname'],
  ['true_name', 'Real name'],
  ['qq', 'QQ'],
  ['email', 'E-mail'],
  ['phone', 'Phone'],
  ['company_name', 'Company'],
  ['description', 'Description'],
];

const given = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/** The third column of the inbox: who the customer of the open conversation is. */
export function CustomerProfile({ conversation }: { conversation: ConversationView | undefined }) {
  return (
    <Panel title="Customer profile" id="customer-profile">
      {!conversation ? (
        <EmptyState title="No customer">Open a conversation to see who you are talking to.</EmptyState>
      ) : (
        <>
          <dl className="profile">
            {PROFILE_FIELDS.filter(([key]) => given(conversation.visitor[key])).map(([key, label]) => (
              <div key={key} className="profile-row">
                <dt>{label}</dt>
                <dd>{conversation.visitor[key]}</dd>
              </div>
            ))}
            {conversation.visitor.tags.length > 0 && (
              <div className="profile-row">
                <dt>Tags</dt>
                <dd>
                  {conversation.visitor.tags.map((t) => (
                    <span key={t} className="badge">
                      {t}
                    </span>
                  ))}
                </dd>
              </div>
            )}
            <div className="profile-row">
              <dt>Conversation started</dt>
              <dd>{formatTime(conversation.createdAt)}</dd>
            </div>
            {conversation.closedAt !== null && (
              <div className="profile-row">
                <dt>Closed</dt>
                <dd>{formatTime(conversation.closedAt)}</dd>
              </div>
            )}
          </dl>
          {PROFILE_FIELDS.every(([key]) => key === 'customer_id' || !given(conversation.visitor[key])) && (
            <p className="muted">Only the customer ID was given. Your server can send a nickname, name, e-mail and more in each message's <code>ext.visitor</code>.</p>
          )}
        </>
      )}
    </Panel>
  );
}
