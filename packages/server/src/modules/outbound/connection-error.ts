/**
 * The message of a `connection` failure, said once: Node's socket errors repeat their code in
 * their message ("connect ECONNREFUSED 127.0.0.1:9099"), so "code: message" said it twice. The
 * common codes read as words with the address they concern ("refused (127.0.0.1:9099)"); the
 * failure is recorded as "connection: refused (127.0.0.1:9099)". Other errors keep their own
 * message, with the code in front only when the message does not name it already.
 */
const PHRASES: Record<string, string> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset by the receiver',
  EPIPE: 'closed by the receiver',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed, try again',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connect timed out',
  UND_ERR_SOCKET: 'closed by the receiver',
};

interface SocketError {
  code?: string;
  message: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** `host:port` (or the host name) the error concerns, when it names one. */
function target(e: SocketError): string | undefined {
  if (e.address) return e.port ? `${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}` : e.address;
  return e.hostname;
}

export function connectionMessage(error: SocketError): string {
  const code = error.code;
  const phrase = code ? PHRASES[code] : undefined;
  if (phrase) {
    const where = target(error);
    return where ? `${phrase} (${where})` : phrase;
  }
  if (!code || error.message.includes(code)) return error.message;
  return `${code}: ${error.message}`;
}
