/**
 * "Send test record" on a callback rule: Parley signs and sends a test record to the rule's URL
 * now and shows the exact strings it signed, the request's headers and body, and the receiver's
 * answer (or why there was none), so a receiver's signature check can be compared byte for byte.
 */
import type { CallbackTestResult } from '@parley/protocol';
import { useState } from 'react';
import { ErrorMessage } from '../../components/feedback.js';
import { useSubmit } from '../../hooks.js';
import { useImApp } from './app-gate.js';

export function RuleTest({ rule }: { rule: string }) {
  const { api } = useImApp();
  const [result, setResult] = useState<CallbackTestResult | undefined>(undefined);
  const send = useSubmit(() => api.testRule(rule));
  const run = async () => {
    const answer = await send.run();
    if (answer) setResult(answer);
  };
  const response = result?.response;
  return (
    <section className="rule-test" aria-label={`Test record of ${rule}`}>
      <button type="button" className="small" disabled={send.busy} onClick={() => void run()}>
        {send.busy ? 'Sending…' : 'Send test record'}
        <span className="visually-hidden"> to {rule}</span>
      </button>
      {send.error && <ErrorMessage error={send.error} title="The test record was not sent" />}
      {result && response && (
        <div data-testid="rule-test-result">
          <p>
            {response.status === null ? `No answer: ${response.error ?? 'unknown'}` : `HTTP ${response.status}`} · {response.latency_ms} ms
          </p>
          <dl className="kv-list">
            <dt>Signed for security (MD5 of)</dt>
            <dd>
              <code>{result.signed.security}</code>
            </dd>
            <dt>Signed for webhook-signature (HMAC-SHA256 of)</dt>
            <dd>
              <code>{result.signed.webhook}</code>
            </dd>
            <dt>Headers</dt>
            <dd>
              <pre>{Object.entries(result.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}</pre>
            </dd>
            <dt>Body</dt>
            <dd>
              <pre>{result.body}</pre>
            </dd>
            <dt>Answer{response.truncated ? ' (cut at 4 KiB)' : ''}</dt>
            <dd>
              <pre>{response.body}</pre>
            </dd>
          </dl>
        </div>
      )}
    </section>
  );
}
