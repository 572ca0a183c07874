import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A page with its heading. The heading takes focus when the page opens, so keyboard and
 * screen-reader users land on the new content after navigation.
 */
export function Page({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    document.title = `${title} · Parley console`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <h1 id="page-title" ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {intro && <p className="intro">{intro}</p>}
      {children}
    </section>
  );
}

export function Panel({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/\W+/g, '-')}-heading`;
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}
