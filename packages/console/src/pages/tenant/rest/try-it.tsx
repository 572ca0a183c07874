import { useEffect, useId, useState } from 'react';
import type { AssociationView } from '@parley/protocol';
import { ErrorMessage } from '../../../components/feedback.js';
import { TextField } from '../../../components/field.js';
import { Panel } from '../../../components/page.js';
import { CopyButton } from '../../../components/secret.js';
import { curlCommand, signSendMessage, type Signed } from '../../../lib/sign.js';

const sampleBody = () =>
  JSON.stringify({
    bodies: [{ type: 'txt', msg: 'Hello, I would like to check my order' }],
    ext: { visitor: { user_nickname: 'Sample customer', tags: ['vip'] } },
    msg_id: `try-${Date.now()}`,
    origin_type: 'rest',
    from: 'sample-customer-1',
    timestamp: Date.now(),
  });

/**
 * The signing steps for a sample message, computed in the browser (nothing is sent): the MD5 of
 * the body, the string to sign, the headers and a ready curl command.
 */
export function TryIt({ association }: { association: AssociationView }) {
  const bodyId = useId();
  const [body, setBody] = useState(sampleBody);
  const [expires, setExpires] = useState(() => String(Date.now() + 10 * 60_000));
  const [signed, setSigned] = useState<Signed | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);

  useEffect(() => {
    let current = true;
    const n = Number(expires);
    if (!Number.isInteger(n)) {
      setSigned(undefined);
      setError(new Error('X-Auth-Expires must be an integer (milliseconds since the epoch; 0 or negative never expires).'));
      return;
    }
    signSendMessage({ clientId: association.clientId, clientSecret: association.clientSecret, method: 'POST', path: association.postMessageUrl, expires: n, body }).then(
      (s) => {
        if (!current) return;
        setSigned(s);
        setError(undefined);
      },
      (e: unknown) => current && setError(e instanceof Error ? e : new Error(String(e))),
    );
    return () => {
      current = false;
    };
  }, [association.clientId, association.clientSecret, association.postMessageUrl, body, expires]);

  const url = `${window.location.origin}${association.postMessageUrl}`;
  const curl = signed ? curlCommand(url, Number(expires), signed.authorization, body) : '';
  return (
    <Panel title="Try it: sign a sample message" id="try-it">
      <p className="muted">Computed in your browser with this association's secret; nothing is sent. Sign the exact bytes you send.</p>
      <div className="field">
        <label htmlFor={bodyId}>Message body (compact JSON)</label>
        <textarea id={bodyId} rows={4} value={body} onChange={(e) => setBody(e.target.value)} spellCheck={false} />
      </div>
      <div className="form-inline">
        <TextField label="X-Auth-Expires" inputMode="numeric" value={expires} onChange={(e) => setExpires(e.target.value)} hint="Now + 10 minutes by default" />
        <button type="button" onClick={() => setExpires(String(Date.now() + 10 * 60_000))}>
          Now + 10 min
        </button>
      </div>
      {error && <ErrorMessage error={error} title="Cannot sign" />}
      {signed && (
        <>
          <h3>1. MD5 of the body</h3>
          <pre className="block" data-testid="try-md5">{signed.md5}</pre>
          <h3>2. String to sign</h3>
          <pre className="block" data-testid="try-string-to-sign">{signed.stringToSign}</pre>
          <h3>3. Headers</h3>
          <pre className="block" data-testid="try-headers">{`Content-Type: application/json\nX-Auth-Expires: ${expires}\nAuthorization: ${signed.authorization}`}</pre>
          <h3>4. curl</h3>
          <pre className="block" data-testid="try-curl">{curl}</pre>
          <CopyButton text={curl} label="Copy the curl command" />
        </>
      )}
    </Panel>
  );
}
