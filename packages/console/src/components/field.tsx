import { useId, type ComponentProps, type ReactNode } from 'react';

interface FieldShell {
  label: string;
  hint?: ReactNode;
}

/** A labelled input; the hint is announced with the field through aria-describedby. */
export function TextField({ label, hint, ...input }: FieldShell & ComponentProps<'input'>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hintId} {...input} />
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function SelectField({ label, hint, children, ...select }: FieldShell & ComponentProps<'select'>) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-describedby={hintId} {...select}>
        {children}
      </select>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A form's primary submit button: disabled while the submission runs, saying what it is doing. */
export function SubmitButton({ busy, busyLabel, children }: { busy: boolean; busyLabel: string; children: ReactNode }) {
  return (
    <button type="submit" className="primary" disabled={busy}>
      {busy ? busyLabel : children}
    </button>
  );
}

/** The password of a new console account: at least 8 characters, never autofilled from a saved one. */
export function NewPasswordField(props: { label: string; name: string; value: string; onChange: ComponentProps<'input'>['onChange'] }) {
  return <TextField type="password" required minLength={8} autoComplete="new-password" hint="At least 8 characters" {...props} />;
}
