import { useCallback, useEffect, useRef } from 'react';
import type { MessageBody, MessageView } from '@parley/protocol';
import { formatTime } from '../../format.js';

interface Card {
  title?: string;
  order_title?: string;
  price?: string;
  desc?: string;
  img_url?: string;
  item_url?: string;
}

const DELIVERY_TEXT = { pending: 'Sending…', succeeded: 'Delivered', failed: 'Failed' } as const;

const isCard = (value: unknown): value is Card => typeof value === 'object' && value !== null;
/** Only http(s) links are rendered as links: a card comes from the customer's server. */
const safeUrl = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : undefined);

function cardsOf(message: MessageView): Array<['order' | 'track', Card]> {
  const msgtype = message.ext['msgtype'];
  if (!isCard(msgtype)) return [];
  const found: Array<['order' | 'track', Card]> = [];
  for (const kind of ['order', 'track'] as const) {
    const card = (msgtype as Record<string, unknown>)[kind];
    if (isCard(card)) found.push([kind, card]);
  }
  return found;
}

function ProductCard({ kind, card }: { kind: 'order' | 'track'; card: Card }) {
  const image = safeUrl(card.img_url);
  const link = safeUrl(card.item_url);
  const title = card.title ?? card.order_title ?? (kind === 'order' ? 'Order' : 'Product');
  return (
    <article className="card" aria-label={`${kind === 'order' ? 'Order' : 'Track'} card: ${title}`}>
      {image && <img src={image} alt={title} />}
      <div>
        <div className="card-kind">{kind === 'order' ? 'Order' : 'Viewed product'}</div>
        <div>
          <strong>{title}</strong>
        </div>
        {card.order_title && card.title && <div className="muted">{card.order_title}</div>}
        {card.desc && <div>{card.desc}</div>}
        {card.price && <div className="card-price">{card.price}</div>}
        {link && (
          <a href={link} target="_blank" rel="noreferrer noopener">
            Open {kind === 'order' ? 'order' : 'product'} page
          </a>
        )}
      </div>
    </article>
  );
}

/** One body of a message; `onGrow` runs when an image finishes loading and the bubble becomes taller. */
function Body({ body, onGrow }: { body: MessageBody; onGrow(): void }) {
  const url = safeUrl(body.url);
  switch (body.type) {
    case 'txt':
      return <p className="bubble-text">{body.msg}</p>;
    case 'img':
      return url ? <img src={url} alt={body.filename ?? 'image'} onLoad={onGrow} /> : <p>[image]</p>;
    case 'audio':
      return url ? <audio controls preload="none" src={url} aria-label={`Voice message ${body.filename ?? ''}`} /> : <p>[voice]</p>;
    default:
      return url ? (
        <a href={url} target="_blank" rel="noreferrer noopener">
          {body.filename ?? body.type} {body.file_length ? `(${Math.ceil(body.file_length / 1024)} KiB)` : ''}
        </a>
      ) : (
        <p>[{body.type}]</p>
      );
  }
}

interface MessageListProps {
  messages: MessageView[];
  /** How the customer is named on their bubbles (the nickname when given, as in the header). */
  customerName: string;
  onRetry?: ((bodies: MessageBody[]) => void) | undefined;
}

/** Within this many pixels of the end, the list counts as scrolled to the newest message. */
const AT_END_PX = 48;

/** The history: customer and agent messages, cards, and each reply's delivery state. */
export function MessageList({ messages, customerName, onRetry }: MessageListProps) {
  const list = useRef<HTMLOListElement>(null);
  // Whether the reader is at the newest message: new messages and images that finish loading keep
  // them there; a reader who scrolled up to read older messages is left where they are.
  const atEnd = useRef(true);
  const toEnd = useCallback(() => {
    const el = list.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, []);
  const onScroll = () => {
    const el = list.current;
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight <= AT_END_PX;
  };
  useEffect(() => {
    atEnd.current = true;
    toEnd();
  }, [messages.length, toEnd]);
  if (messages.length === 0) return <p className="muted">No messages yet.</p>;
  return (
    <ol className="history" aria-label="Messages" ref={list} tabIndex={0} onScroll={onScroll}>
      {messages.map((m) => (
        <li key={m.msg_id} className={`bubble ${m.direction === 'agent' ? 'from-agent' : 'from-customer'}`} data-msg-id={m.msg_id}>
          {m.bodies.map((b, i) => (
            <Body key={i} body={b} onGrow={toEnd} />
          ))}
          {cardsOf(m).map(([kind, card]) => (
            <ProductCard key={kind} kind={kind} card={card} />
          ))}
          <div className="bubble-meta">
            <span>
              {m.direction === 'agent' ? (m.agent?.nickname ?? 'Agent') : customerName} · {formatTime(m.createdAt)}
            </span>
            {m.delivery && (
              <span className={`badge status-${m.delivery.status}`} data-delivery-status={m.delivery.status}>
                {DELIVERY_TEXT[m.delivery.status]}
              </span>
            )}
            {m.delivery?.status === 'pending' && m.delivery.lastError && (
              <span className="muted">Retrying; the last attempt failed: {m.delivery.lastError}</span>
            )}
            {m.delivery?.status === 'failed' && (
              <>
                <span className="error-text">
                  The customer's server did not accept it after every retry{m.delivery.lastError ? ` (last error: ${m.delivery.lastError})` : ''}.
                </span>
                {onRetry && (
                  <button type="button" className="small" onClick={() => onRetry(m.bodies)}>
                    Send again
                  </button>
                )}
              </>
            )}
          </div>
        </li>
      ))}
    </ol>
  );
}
