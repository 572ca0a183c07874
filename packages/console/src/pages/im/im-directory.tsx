import { Page } from '../../components/page.js';
import { ImAppGate } from './app-gate.js';
import { Rooms } from './im-rooms.js';
import { Users } from './im-users.js';

/** System admin: users, groups and chat rooms of the open IM app, each a searchable list read a page at a time. */
export function ImDirectoryPage() {
  return (
    <Page title="IM users and groups" intro="Register, find and edit the app's users; create, find and edit its groups and chat rooms and their members.">
      <ImAppGate>
        <Users />
        <Rooms kind="chatgroups" />
        <Rooms kind="chatrooms" />
      </ImAppGate>
    </Page>
  );
}
