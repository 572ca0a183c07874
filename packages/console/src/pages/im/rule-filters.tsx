/** The four filters of a callback rule as groups of checkboxes (each a non-empty subset). */
import type { CallbackChatType, CallbackEventType, CallbackMessageType, CallbackSource } from '@parley/protocol';

// Listed here rather than imported: only types may come from the protocol package (no schema code in the bundle).
const CALLBACK_EVENT_TYPES: readonly CallbackEventType[] = ['chat', 'chat_offline', 'roster', 'userStatus', 'recall', 'read_ack'];
/** What a new rule receives unless more is ticked: message records (the event catalogue is opt-in). */
const DEFAULT_EVENT_TYPES: readonly CallbackEventType[] = ['chat', 'chat_offline'];
const CALLBACK_CHAT_TYPES: readonly CallbackChatType[] = ['chat', 'groupchat'];
const CALLBACK_MESSAGE_TYPES: readonly CallbackMessageType[] = ['txt', 'img', 'audio', 'video', 'file', 'loc', 'cmd', 'custom'];
const CALLBACK_SOURCES: readonly CallbackSource[] = ['sdk', 'rest'];

export interface RuleFilters {
  event_types: CallbackEventType[];
  chat_types: CallbackChatType[];
  message_types: CallbackMessageType[];
  sources: CallbackSource[];
}

/** A new rule's filters: message records of every chat type, message type and source. */
export const DEFAULT_FILTERS: RuleFilters = {
  event_types: [...DEFAULT_EVENT_TYPES],
  chat_types: [...CALLBACK_CHAT_TYPES],
  message_types: [...CALLBACK_MESSAGE_TYPES],
  sources: [...CALLBACK_SOURCES],
};

const GROUPS: Array<{ key: keyof RuleFilters; legend: string; options: readonly string[] }> = [
  { key: 'event_types', legend: 'Events', options: CALLBACK_EVENT_TYPES },
  { key: 'chat_types', legend: 'Chats (groupchat covers groups and chat rooms)', options: CALLBACK_CHAT_TYPES },
  { key: 'message_types', legend: 'Message types', options: CALLBACK_MESSAGE_TYPES },
  { key: 'sources', legend: 'Sources', options: CALLBACK_SOURCES },
];

export function RuleFilterFields({ value, onChange, idPrefix }: { value: RuleFilters; onChange(next: RuleFilters): void; idPrefix: string }) {
  const toggle = (key: keyof RuleFilters, option: string, checked: boolean) => {
    const current = value[key] as string[];
    const next = checked ? [...current, option] : current.filter((o) => o !== option);
    onChange({ ...value, [key]: next } as RuleFilters);
  };
  return (
    <>
      {GROUPS.map((g) => (
        <fieldset key={g.key} className="span-all" id={`${idPrefix}-${g.key}`}>
          <legend>{g.legend}</legend>
          <div className="checks">
            {g.options.map((option) => (
              <label key={option} className="check">
                <input type="checkbox" checked={(value[g.key] as string[]).includes(option)} onChange={(e) => toggle(g.key, option, e.target.checked)} />
                {option}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
    </>
  );
}
