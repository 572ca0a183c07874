/** Values an admin copies into another system: copy buttons and secrets hidden until revealed. */
import { useState } from 'react';

/**
 * Copies text to the clipboard and says so. When the clipboard is not available (insecure
 * origin, permission refused) it says to select the text instead of failing silently.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="small" onClick={() => void copy()} aria-label={label}>
        Copy
      </button>
      <span className="copy-state" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text and copy it' : ''}
      </span>
    </>
  );
}

/** A labelled read-only value with a copy button; a value too long for its line ends in an ellipsis (whole in its tooltip). */
export function CopyValue({ label, value }: { label: string; value: string }) {
  return (
    <div className="kv">
      <span className="kv-label">{label}</span>
      <code className="kv-value truncate" title={value}>
        {value}
      </code>
      <CopyButton text={value} label={`Copy ${label}`} />
    </div>
  );
}

/** A secret shown as dots until revealed; it can be copied without being shown. */
export function SecretValue({ label, value }: { label: string; value: string }) {
  const [shown, setShown] = useState(false);
  return (
    <div className="kv">
      <span className="kv-label">{label}</span>
      <code className="kv-value truncate" title={shown ? value : undefined} aria-label={shown ? undefined : `${label} (hidden)`}>
        {shown ? value : '•'.repeat(Math.min(32, value.length))}
      </code>
      <button type="button" className="small" aria-pressed={shown} onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Reveal'}
      </button>
      <CopyButton text={value} label={`Copy ${label}`} />
    </div>
  );
}
