import type { ConversationView, VisitorView } from '@parley/protocol';
import { ErrorMessage, EmptyState } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { formatTime } from '../../format.js';
import { useResource } from '../../hooks.js';
import { Link } from '../../router.js';

/** How many earlier conversations the profile lists (the history page has them all). */
const EARLIER = 5;

const STATE_WORD = { waiting: 'waiting', processing: 'in progress', closed: 'closed' } as const;

const firstText = (c: ConversationView): string | undefined => {
  const body = c.lastMessage?.bodies[0];
  return body?.type === 'txt' ? (body.msg ?? undefined) : undefined;
};

/** The customer's other conversations, most recent first, each a link to read it in the history. */
function EarlierConversations({ conversation }: { conversation: ConversationView }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const customer = conversation.visitor.customer_id;
  const earlier = useResource((signal) => api.conversationPage(tenantId, { customer, limit: EARLIER + 1 }, signal), [api, tenantId, customer, conversation.id]);
  const others = earlier.data?.entities.filter((c) => c.id !== conversation.id).slice(0, EARLIER);
  const historyLink = (open?: number) => `/history?customer=${encodeURIComponent(customer)}${open === undefined ? '' : `&open=${open}`}`;
  return (
    <section className="earlier" aria-labelledby="earlier-heading">
      <h3 id="earlier-heading">Earlier conversations</h3>
      {earlier.error && <ErrorMessage error={earlier.error} title="Could not load the earlier conversations" />}
      {others && others.length === 0 && <p className="muted small-text">This is the customer's first conversation.</p>}
      {others && others.length > 0 && (
        <ul className="earlier-list">
          {others.map((c) => (
            <li key={c.id}>
              <Link to={historyLink(c.id)}>
                {formatTime(c.createdAt)} · {STATE_WORD[c.state]}
              </Link>
              {firstText(c) && <span className="muted small-text conversation-preview">{firstText(c)}</span>}
            </li>
          ))}
        </ul>
      )}
      {earlier.data?.cursor && <Link to={historyLink()}>All of this customer's conversations</Link>}
    </section>
  );
}

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
          <EarlierConversations conversation={conversation} />
        </>
      )}
    </Panel>
  );
}
