import { useEffect, type ReactNode } from 'react';
import type { Role } from '@parley/protocol';
import { Page } from './components/page.js';
import { useConsole } from './context.js';
import { MyStatus } from './pages/agent/my-status.js';
import { HOME, ROUTES, routesFor, type ConsoleRoute } from './routes.js';
import { Link, navigate, usePath } from './router.js';

const ROLE_LABELS: Record<Role, string> = { system_admin: 'System administrator', admin: 'Tenant administrator', agent: 'Agent' };

function Navigation({ routes, path }: { routes: ConsoleRoute[]; path: string }) {
  const sections = [...new Set(routes.map((r) => r.section))];
  return (
    <nav className="sidebar" aria-label="Console sections">
      {sections.map((section) => (
        <div key={section} className="nav-group">
          <p className="nav-section" id={`nav-${section.replace(/\W+/g, '-')}`}>
            {section}
          </p>
          <ul aria-labelledby={`nav-${section.replace(/\W+/g, '-')}`}>
            {routes
              .filter((r) => r.section === section)
              .map((r) => (
                <li key={r.path}>
                  <Link to={r.path} aria-current={r.path === path ? 'page' : undefined}>
                    {r.label}
                    {r.placeholder && <span className="soon"> (soon)</span>}
                  </Link>
                </li>
              ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

function Content({ path, routes }: { path: string; routes: ConsoleRoute[] }): ReactNode {
  const route = routes.find((r) => r.path === path);
  if (route) return route.render();
  if (ROUTES.some((r) => r.path === path)) {
    return (
      <Page title="Not available">
        <p>This page is not part of your role's console.</p>
        <p>
          <Link to="/">Go to your start page</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Page not found">
      <p>
        There is no console page at <code>/console{path}</code>.
      </p>
      <p>
        <Link to="/">Go to your start page</Link>
      </p>
    </Page>
  );
}

/** The signed-in layout: header with the user, their agent status (tenant roles) and sign-out, navigation for the role, the page. */
export function Shell() {
  const { session, signOut } = useConsole();
  const { user } = session;
  const path = usePath();
  const routes = routesFor(user.role);
  const role = ROLE_LABELS[user.role];
  // The system admin's nickname is its role ("System administrator"): said once.
  const name = user.nickname.trim() || user.username;

  useEffect(() => {
    if (path === '/') navigate(HOME[user.role], { replace: true });
  }, [path, user.role]);

  return (
    <div className="layout">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          Parley console
        </Link>
        {user.role !== 'system_admin' && <MyStatus />}
        <div className="who">
          <span className="who-name">{name}</span>
          {(name !== role || user.tenantId !== null) && (
            <span className="who-role">
              {name !== role && role}
              {name !== role && user.tenantId !== null && ' · '}
              {user.tenantId !== null && <>tenant {user.tenantId}</>}
            </span>
          )}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <Navigation routes={routes} path={path} />
      <main id="main" className="content" tabIndex={-1}>
        {path === '/' ? null : <Content path={path} routes={routes} />}
      </main>
    </div>
  );
}
