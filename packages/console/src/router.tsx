/**
 * A minimal history router for a console mounted at /console: the current path inside the
 * console, navigation without reloads, and links that stay real <a> elements (middle-click,
 * copy link and keyboard work as usual).
 */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export const BASE = '/console';

/** The console-relative path of the current location, always starting with '/'. */
export function currentPath(): string {
  const { pathname } = window.location;
  const inside = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const trimmed = inside.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

const NAVIGATE = 'parley:navigate';

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${path === '/' ? '' : path}`;
  if (url === window.location.pathname) return;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATE, update);
    };
  }, []);
  return path;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser handle new-tab and modified clicks.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={`${BASE}${to === '/' ? '' : to}`} onClick={handleClick} {...rest} />;
}
