// What the person signed in may do, from the same table the API enforces (domain/merchant/roles.ts): the dashboard hides a
// page or a button whose route the role cannot call, and the API refuses it anyway (403) if it is called.
import { roleAllows } from '../../domain/merchant/route-rights.js';
import { useSession } from './session.js';

/** May the viewer call this route ("METHOD /route/:pattern" as the API registers it)? Before /me answers: no. */
export function useCan(): (method: string, url: string) => boolean {
  const { me } = useSession();
  const role = me?.viewer?.role;
  return (method, url) => (role ? roleAllows(role, method, url).allowed : false);
}
