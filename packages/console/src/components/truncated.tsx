/**
 * A long value (a URL, an id) kept on one line: cut with an ellipsis where it does not fit, the
 * whole value in its tooltip (`title`) and, with `copy`, a copy button. `chars` caps its width
 * (in a table cell, which would otherwise grow to fit it).
 */
import { CopyButton } from './secret.js';

export function Truncated({ value, shown = value, code = false, chars, copy }: { value: string; shown?: string; code?: boolean; chars?: number; copy?: string }) {
  const props = { className: 'truncate', title: value, style: chars ? { maxWidth: `${chars}ch` } : undefined };
  const text = code ? <code {...props}>{shown}</code> : <span {...props}>{shown}</span>;
  if (!copy) return text;
  return (
    <span className="with-copy">
      {text}
      <CopyButton text={value} label={copy} />
    </span>
  );
}
