import { useCallback, useEffect, useRef, useState, type DependencyList, type FormEvent } from 'react';

export type Resource<T> =
  | { state: 'loading'; data: T | undefined; error: undefined }
  | { state: 'ready'; data: T; error: undefined }
  | { state: 'error'; data: T | undefined; error: Error };

/**
 * Loads data for a page and reloads it on demand. A reload keeps showing the previous data while
 * the new request runs; a stale answer (deps changed, page left) is dropped through the AbortSignal.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Resource<T> & { reload(): void } {
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading', data: undefined, error: undefined });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setResource((previous) => ({ state: 'loading', data: previous.data, error: undefined }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResource({ state: 'ready', data, error: undefined });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setResource((previous) => ({ state: 'error', data: previous.data, error: error instanceof Error ? error : new Error(String(error)) }));
      },
    );
    return () => controller.abort();
    // The caller's deps decide when to reload; `load` itself is a new closure on every render.
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...resource, reload };
}

/** State of one form submission: busy while it runs, then the error (if any) to show. */
export function useSubmit<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action(...args);
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(undefined) };
}

/**
 * A form that creates something: on success it shows what was created, clears the form, lets the
 * caller refresh its list and puts the focus back on the first field (give it `firstField`).
 */
export function useCreateForm<F, R>(empty: F, create: (form: F) => Promise<R>, afterCreate: () => void) {
  const [form, setForm] = useState<F>(empty);
  const [created, setCreated] = useState<R | undefined>(undefined);
  const firstField = useRef<HTMLInputElement>(null);
  const submit = useSubmit(create);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    const result = await submit.run(form);
    if (result === undefined) return;
    setCreated(result);
    setForm(empty);
    afterCreate();
    firstField.current?.focus();
  };
  return { form, setForm, created, firstField, submit, onSubmit };
}

/** Calls `callback` every `ms` while the component is mounted (a page that re-reads what it shows). */
export function useInterval(callback: () => void, ms: number): void {
  useEffect(() => {
    const timer = window.setInterval(callback, ms);
    return () => window.clearInterval(timer);
  }, [callback, ms]);
}

/** The width of the element `ref` is put on, in CSS pixels (at least `min`), followed as it changes. */
export function useElementWidth<T extends Element>(initial: number, min: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(min, Math.round(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [min]);
  return [ref, width] as const;
}
