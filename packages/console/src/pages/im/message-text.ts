/**
 * What a stored callback's message says, in one line: the text of a `txt` body, or the kind of
 * the body with its name (a file name, an address, a command), as read from the record's
 * `payload.bodies` (contract 4.3); the bodies of one message joined.
 */
type Body = Record<string, unknown>;

const field = (body: Body, name: string): string => (typeof body[name] === 'string' ? (body[name] as string) : '');

function describe(body: Body): string {
  switch (body.type) {
    case 'txt':
      return field(body, 'msg');
    case 'img':
      return `[image] ${field(body, 'filename')}`;
    case 'audio':
      return `[voice] ${field(body, 'filename')}`;
    case 'video':
      return `[video] ${field(body, 'filename')}`;
    case 'file':
      return `[file] ${field(body, 'filename')}`;
    case 'loc':
      return `[location] ${field(body, 'addr')}`;
    case 'cmd':
      return `[command] ${field(body, 'action')}`;
    case 'custom':
      return `[custom] ${field(body, 'customEvent')}`;
    default:
      return `[${String(body.type)}]`;
  }
}

export function messageText(record: Record<string, unknown>): string {
  const payload = record.payload as { bodies?: unknown } | undefined;
  const bodies = Array.isArray(payload?.bodies) ? (payload.bodies as Body[]) : [];
  return bodies.map((b) => describe(b).trim()).join(' · ');
}

/** A call id (`{appkey}_{uuid}`) shortened to the start of its uuid, the part that tells records apart. */
export function shortCallId(callId: string): string {
  const id = callId.slice(callId.lastIndexOf('_') + 1);
  return id.length > 8 ? `${id.slice(0, 8)}…` : id;
}
