import { useId, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import type { AgentReplyBody, MediaView } from '@parley/protocol';
import { ErrorMessage } from '../../components/feedback.js';
import { useConsole, useTenantId } from '../../context.js';
import { useSubmit } from '../../hooks.js';
import { useCannedMenu } from './canned-menu.js';

type Kind = 'img' | 'audio' | 'file';

const ATTACHMENTS: Array<{ kind: Kind; label: string; accept: string | undefined }> = [
  { kind: 'img', label: 'Image', accept: 'image/*' },
  { kind: 'audio', label: 'Voice', accept: 'audio/*' },
  { kind: 'file', label: 'File', accept: undefined },
];

/**
 * The reply body for an upload. The server types a file by its bytes (`content_type`): a file
 * that is not really an image or audio goes as a `file`, so the customer's side never gets an
 * `img` it cannot show.
 */
function bodyFor(kind: Kind, media: MediaView): AgentReplyBody {
  if (kind === 'img' && media.content_type.startsWith('image/')) return { type: 'img', url: media.url, filename: media.filename };
  if (kind === 'audio' && media.content_type.startsWith('audio/')) return { type: 'audio', url: media.url, filename: media.filename };
  return { type: 'file', url: media.url, filename: media.filename, file_length: media.file_length };
}

/**
 * The reply box: Enter sends, Shift+Enter starts a new line. Attachments are uploaded through
 * the media endpoint first and sent as a reply of their type.
 */
export function ReplyBox({ conversationId, onSent }: { conversationId: number; onSent(): void }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const id = useId();
  const [text, setText] = useState('');
  const textarea = useRef<HTMLTextAreaElement>(null);
  const canned = useCannedMenu(textarea, text, setText);
  const send = useSubmit((bodies: AgentReplyBody[]) => api.reply(tenantId, conversationId, bodies));
  const upload = useSubmit(async (kind: Kind, file: File) => {
    const media = await api.upload(tenantId, file);
    return api.reply(tenantId, conversationId, [bodyFor(kind, media)]);
  });

  const sendText = async () => {
    const msg = text.trim();
    if (msg === '' || send.busy) return;
    if (await send.run([{ type: 'txt', msg }])) {
      setText('');
      onSent();
    }
    textarea.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing || canned.onKeyDown(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void sendText();
    }
  };
  const onFile = (kind: Kind) => async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file && (await upload.run(kind, file))) onSent();
  };

  return (
    <div className="reply-box">
      <label htmlFor={`${id}-reply`} className="visually-hidden">
        Reply
      </label>
      <div className="reply-input">
        <textarea
          id={`${id}-reply`}
          ref={textarea}
          rows={2}
          placeholder="Write a reply…"
          value={text}
          maxLength={10_000}
          onChange={(e) => {
            setText(e.target.value);
            canned.edited(e.target);
          }}
          onKeyDown={onKeyDown}
          onKeyUp={(e) => canned.track(e.currentTarget)}
          onClick={(e) => canned.track(e.currentTarget)}
          aria-describedby={`${id}-reply-hint`}
          {...canned.comboProps}
        />
        {canned.menu}
      </div>
      <div className="actions reply-actions">
        <button type="button" className="primary" disabled={send.busy || text.trim() === ''} onClick={() => void sendText()}>
          {send.busy ? 'Sending…' : 'Send'}
        </button>
        {ATTACHMENTS.map((a) => (
          <label key={a.kind} className="file-button button-like compact">
            Attach {a.label.toLowerCase()}
            <input type="file" accept={a.accept} disabled={upload.busy} onChange={(e) => void onFile(a.kind)(e)} aria-label={`Attach ${a.label.toLowerCase()}`} />
          </label>
        ))}
        {upload.busy && (
          <span className="muted" role="status">
            Uploading…
          </span>
        )}
        <span className="hint reply-hint" id={`${id}-reply-hint`}>
          Enter sends; Shift+Enter starts a new line. {canned.hint}
        </span>
      </div>
      {send.error && <ErrorMessage error={send.error} title="Your reply was not sent" />}
      {upload.error && <ErrorMessage error={upload.error} title="The attachment was not sent" />}
    </div>
  );
}

/** Sends the bodies of a failed reply again, as a new reply. */
export function useResend(conversationId: number, onSent: () => void) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const resend = useSubmit((bodies: AgentReplyBody[]) => api.reply(tenantId, conversationId, bodies));
  return {
    ...resend,
    run: async (bodies: AgentReplyBody[]) => {
      if (await resend.run(bodies)) onSent();
    },
  };
}
