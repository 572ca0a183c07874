/**
 * Every page of the console, by role. A page whose API is not built yet is a placeholder entry;
 * building it means replacing `render` here, nothing else.
 */
import type { ReactNode } from 'react';
import type { Role } from '@parley/protocol';
import { CannedRepliesPage } from './pages/agent/canned-replies.js';
import { HistoryPage } from './pages/agent/history.js';
import { WorkspacePage } from './pages/agent/workspace.js';
import { CallbackRulesPage } from './pages/im/callback-rules.js';
import { ExceptionStorePage } from './pages/im/exception-store.js';
import { ImAppsPage } from './pages/im/im-apps.js';
import { ImDirectoryPage } from './pages/im/im-directory.js';
import { ClusterPage } from './pages/system/cluster.js';
import { TenantsPage } from './pages/system/tenants.js';
import { AgentsPage } from './pages/tenant/agents.js';
import { RestChannelsPage } from './pages/tenant/rest/rest-channels.js';
import { ReportsPage } from './pages/tenant/reports.js';
import { SupervisorPage } from './pages/tenant/supervisor.js';
import { SkillGroupsPage } from './pages/tenant/skill-groups.js';
import { VipTagsPage } from './pages/tenant/vip-tags.js';

export interface ConsoleRoute {
  /** Path inside /console. */
  path: string;
  label: string;
  /** Navigation group heading. */
  section: string;
  roles: readonly Role[];
  /** True while the page is a "not available yet" placeholder. */
  placeholder?: true;
  render(): ReactNode;
}

export const ROUTES: readonly ConsoleRoute[] = [
  { path: '/tenants', label: 'Tenants', section: 'Customer service', roles: ['system_admin'], render: () => <TenantsPage /> },
  { path: '/im-apps', label: 'IM apps', section: 'Instant messaging', roles: ['system_admin'], render: () => <ImAppsPage /> },
  { path: '/im-directory', label: 'IM users and groups', section: 'Instant messaging', roles: ['system_admin'], render: () => <ImDirectoryPage /> },
  { path: '/callback-rules', label: 'Callback rules', section: 'Instant messaging', roles: ['system_admin'], render: () => <CallbackRulesPage /> },
  { path: '/exception-store', label: 'Exception store', section: 'Instant messaging', roles: ['system_admin'], render: () => <ExceptionStorePage /> },
  { path: '/cluster', label: 'Cluster', section: 'Operations', roles: ['system_admin'], render: () => <ClusterPage /> },
  { path: '/skill-groups', label: 'Skill groups', section: 'Members', roles: ['admin'], render: () => <SkillGroupsPage /> },
  { path: '/agents', label: 'Agents', section: 'Members', roles: ['admin'], render: () => <AgentsPage /> },
  { path: '/vip-tags', label: 'VIP tags', section: 'Members', roles: ['admin'], render: () => <VipTagsPage /> },
  { path: '/rest-channels', label: 'REST associations', section: 'Channels', roles: ['admin'], render: () => <RestChannelsPage /> },
  { path: '/supervisor', label: 'Supervisor view', section: 'Supervision', roles: ['admin'], render: () => <SupervisorPage /> },
  { path: '/reports', label: 'Reports', section: 'Supervision', roles: ['admin'], render: () => <ReportsPage /> },
  // A tenant admin is also an agent: they get the workspace and the history too.
  { path: '/workspace', label: 'Workspace', section: 'Agent', roles: ['agent', 'admin'], render: () => <WorkspacePage /> },
  { path: '/history', label: 'Conversation history', section: 'Agent', roles: ['agent', 'admin'], render: () => <HistoryPage /> },
  { path: '/canned-replies', label: 'Canned replies', section: 'Agent', roles: ['agent', 'admin'], render: () => <CannedRepliesPage /> },
];

/** Where each role lands after signing in. */
export const HOME: Record<Role, string> = { system_admin: '/tenants', admin: '/skill-groups', agent: '/workspace' };

export const routesFor = (role: Role): ConsoleRoute[] => ROUTES.filter((r) => r.roles.includes(role));
