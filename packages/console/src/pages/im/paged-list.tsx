/**
 * A searchable list read a page at a time (the IM admin lists: `?q=&cursor=&limit=`): the first
 * page of the current search, "Show more" appending the next, a search form, and the states
 * (loading, none yet, none matching).
 */
import { useState, type DependencyList, type FormEvent, type ReactNode } from 'react';
import type { ListPage } from '../../api/im.js';
import { ErrorMessage, ListStates } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { useResource, useSubmit } from '../../hooks.js';

export const PAGE_SIZE = 20;

type Load<T> = (query: string, cursor: string | undefined, signal?: AbortSignal) => Promise<ListPage<T>>;

export function usePagedList<T>(load: Load<T>, deps: DependencyList) {
  const [query, setQuery] = useState('');
  const first = useResource((signal) => load(query, undefined, signal), [...deps, query]);
  // Pages after the first, read with "Show more"; dropped whenever the first page is read again.
  const [later, setLater] = useState<ListPage<T> | undefined>(undefined);
  const cursor = later ? later.cursor : first.data?.cursor;
  const more = useSubmit(async () => {
    const page = await load(query, cursor);
    setLater({ items: [...(later?.items ?? []), ...page.items], ...(page.cursor ? { cursor: page.cursor } : {}) });
  });
  const reload = () => {
    setLater(undefined);
    first.reload();
  };
  const search = (text: string) => {
    setLater(undefined);
    if (text.trim() === query) first.reload();
    else setQuery(text.trim());
  };
  const items = first.data ? [...first.data.items, ...(later?.items ?? [])] : undefined;
  return { query, search, reload, items, cursor, more, resource: first };
}

export type PagedList<T> = ReturnType<typeof usePagedList<T>>;

/** The search form of a list ("Find users"): a text to look for, Search, and Show all while a search is on. */
export function SearchForm({ list, what, hint }: { list: PagedList<unknown>; what: string; hint: string }) {
  const [text, setText] = useState('');
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    list.search(text);
  };
  return (
    <form role="search" aria-label={`Find ${what}`} className="form-inline" onSubmit={onSubmit}>
      <TextField label={`Search ${what}`} type="search" maxLength={128} value={text} onChange={(e) => setText(e.target.value)} hint={hint} />
      <button type="submit">Search</button>
      {list.query && (
        <button
          type="button"
          onClick={() => {
            setText('');
            list.search('');
          }}
        >
          Show all
        </button>
      )}
    </form>
  );
}

/** Loading, error and empty states above the list, and "Show more" below it (`children`). */
export function ListFrame({ list, what, empty, children }: { list: PagedList<unknown>; what: string; empty: { title: string; hint: string }; children: ReactNode }) {
  const none = list.query ? { title: `No ${what} match “${list.query}”`, hint: 'Search for another part of the name, or show all.' } : empty;
  return (
    <>
      <ListStates resource={list.resource} what={what} errorTitle={`Could not load the ${what}`} count={list.items?.length} empty={none} />
      {children}
      {list.cursor && (
        <div className="toolbar">
          <button type="button" onClick={() => void list.more.run()} disabled={list.more.busy}>
            Show more {what}
          </button>
        </div>
      )}
      {list.more.error && <ErrorMessage error={list.more.error} title={`Could not load more ${what}`} />}
    </>
  );
}
