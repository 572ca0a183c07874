import { useEffect, useRef, useState, type FormEvent } from 'react';
import { login } from '../api/client.js';
import { ErrorMessage } from '../components/feedback.js';
import { SubmitButton, TextField } from '../components/field.js';
import { useSubmit } from '../hooks.js';
import { sessionFromLogin, type Session } from '../session.js';

/** Sign-in for every role: system admin, tenant admin and agent use the same form. */
export function SignIn({ onSignedIn, notice }: { onSignedIn(session: Session): void; notice: string | undefined }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const submit = useSubmit(login);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Parley console';
  }, []);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = await submit.run(username.trim(), password);
    if (result) onSignedIn(sessionFromLogin(result));
  };

  return (
    <main className="sign-in" id="main">
      <form className="sign-in-card" onSubmit={onSubmit} aria-labelledby="sign-in-title">
        <p className="brand" aria-hidden="true">
          Parley
        </p>
        <h1 id="sign-in-title" ref={heading} tabIndex={-1}>
          Sign in to the console
        </h1>
        {notice && (
          <p className="notice notice-info" role="status">
            {notice}
          </p>
        )}
        {submit.error && <ErrorMessage error={submit.error} title="Sign-in failed" />}
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          required
          autoFocus
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          hint="Your login name or e-mail address"
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <SubmitButton busy={submit.busy} busyLabel="Signing in…">
          Sign in
        </SubmitButton>
      </form>
    </main>
  );
}
